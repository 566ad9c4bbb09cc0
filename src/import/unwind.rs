//! A panic in a reader kld does not own (calamine), caught and turned into
//! a located error, without the panic's message on standard error.
//!
//! Why: calamine 0.35 indexes and slices a damaged `.xls` without checking
//! (one flipped byte of a 5 KB file panicked it); [`super::guard`] checks
//! what it can foresee, and this is the last line behind it. The process's
//! panic hook is wrapped once: it stays silent only on a thread inside
//! [`quietly`], and calls the previous hook everywhere else.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`; a panic in it is returned as its message.
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_panic_becomes_its_message() {
        assert_eq!(super::quietly(|| 1), Ok(1));
        let e = super::quietly(|| -> u8 { panic!("index out of bounds") }).unwrap_err();
        assert_eq!(e, "index out of bounds");
    }
}
