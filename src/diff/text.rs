//! Line diffs with a deadline, for texts of any size.
//!
//! Why: a minimal line diff (Myers) costs the product of the texts' length
//! and the number of changes: a re-indented 15 MB checkpoint, where every
//! line changed, kept `kld canon --check` busy for more than 7 minutes (the
//! pre-commit hook stalled). Every diff here runs under a deadline
//! ([`DIFF_DEADLINE`]); past it, the rest is shown as removed and added
//! whole (a coarser diff, still correct), so a diff's time is bounded.

use std::time::{Duration, Instant};

/// How long a line diff looks for the smallest set of changes before
/// falling back to a coarser one.
pub const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// A unified diff of `old` and `new` by lines (`radius` lines of context,
/// headers `---`/`+++` named as given, "\ No newline at end of file" where
/// it applies), computed under [`DIFF_DEADLINE`]. Empty when equal. The
/// text is as in the files: escape it before printing to a terminal
/// ([`crate::terminal::escape_controls`]).
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str, radius: usize) -> String {
    let diff = similar::TextDiff::configure()
        .deadline(Instant::now() + DIFF_DEADLINE)
        .diff_lines(old, new);
    let mut s = diff
        .unified_diff()
        .context_radius(radius)
        .missing_newline_hint(true)
        .header(old_name, new_name)
        .to_string();
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_change_is_a_minimal_hunk() {
        let old = "a\nb\nc\nd\ne\nf\ng\n";
        let new = "a\nb\nc\nD\ne\nf\ng\n";
        let d = unified(old, new, "x", "y", 1);
        assert_eq!(d, "--- x\n+++ y\n@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n");
        assert_eq!(unified(old, old, "x", "y", 3), "");
    }

    #[test]
    fn every_line_changed_in_a_big_text_ends_by_the_deadline_and_stays_correct() {
        let old: String = (0..200_000)
            .map(|i| format!("  \"k{i}\": {i},\n"))
            .collect();
        let new: String = (0..200_000)
            .map(|i| format!("    \"k{i}\": {i},\n"))
            .collect();
        let t = Instant::now();
        let d = unified(&old, &new, "a", "b", 3);
        // (Not a speed assertion: a quadratic diff of these takes minutes.)
        assert!(t.elapsed() < Duration::from_secs(60));
        let removed: String = d
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"))
            .map(|l| format!("{}\n", &l[1..]))
            .collect();
        let added: String = d
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .map(|l| format!("{}\n", &l[1..]))
            .collect();
        assert_eq!((removed, added), (old, new));
    }
}
