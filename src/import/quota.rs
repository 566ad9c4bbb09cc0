//! The names of an import's limits and the bounded quoting of what a
//! message names.
//!
//! Why apart from `super::bounds`: the import's errors
//! (`super::failure`) name a limit and quote names at bounded length,
//! while the limits' checks return those errors; both use this module, and
//! neither the other.

/// One limit's description: its environment variable and what it counts.
pub(super) struct Spec {
    pub(super) var: &'static str,
    pub(super) what: &'static str,
}

pub(super) const BYTES: Spec = Spec {
    var: "KLD_IMPORT_MAX_BYTES",
    what: "bytes",
};
pub(super) const CELLS: Spec = Spec {
    var: "KLD_IMPORT_MAX_CELLS",
    what: "cells",
};
pub(super) const ROWS: Spec = Spec {
    var: "KLD_IMPORT_MAX_ROWS",
    what: "rows",
};
pub(super) const COLUMNS: Spec = Spec {
    var: "KLD_IMPORT_MAX_COLUMNS",
    what: "columns",
};
pub(super) const STRINGS: Spec = Spec {
    var: "KLD_IMPORT_MAX_STRINGS",
    what: "shared strings",
};

/// The limit of `name` whose value is past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`super::bounds::Limits::bytes`].
    Bytes,
    /// [`super::bounds::Limits::cells`].
    Cells,
    /// [`super::bounds::Limits::rows`].
    Rows,
    /// [`super::bounds::Limits::columns`].
    Columns,
    /// [`super::bounds::Limits::strings`].
    Strings,
}

impl Limit {
    fn spec(self) -> Spec {
        match self {
            Limit::Bytes => BYTES,
            Limit::Cells => CELLS,
            Limit::Rows => ROWS,
            Limit::Columns => COLUMNS,
            Limit::Strings => STRINGS,
        }
    }

    /// The environment variable that sets it.
    pub(crate) fn var(self) -> &'static str {
        self.spec().var
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.spec().what)
    }
}

/// `s` cut to at most `max` characters (an ellipsis and the count of what
/// was cut after), so that no message quotes a whole file.
pub(crate) fn bounded(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => {
            let rest = s[i..].chars().count();
            format!("{}… ({rest} more characters)", &s[..i])
        }
    }
}
