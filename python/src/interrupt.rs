//! Long work off the GIL, stoppable by Ctrl-C.
//!
//! The work runs on a scoped thread while the calling thread waits without
//! the GIL (other Python threads run meanwhile) and, every 50 ms, takes the
//! GIL back only to run Python's signal handlers. When one raises
//! (KeyboardInterrupt), the work is cancelled through the library's own
//! cancellation (a query's [`karenina_ld::sparql::Control`], the same token
//! `kld serve` uses), awaited, and the exception is raised.

use pyo3::prelude::*;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

const POLL: Duration = Duration::from_millis(50);

/// Runs `work` off the GIL; `cancel` stops it when a signal handler raises.
pub fn run<T: Send>(
    py: Python<'_>,
    cancel: &(dyn Fn() + Sync),
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel::<std::thread::Result<T>>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = tx.send(r);
        });
        let mut rx = rx;
        loop {
            let (back, got) = py.detach(move || {
                let got = rx.recv_timeout(POLL);
                (rx, got)
            });
            rx = back;
            match got {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err(
                        "karenina_ld: internal error: the worker thread panicked",
                    ))
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        cancel();
                        // The work stops at its next check; wait for it so
                        // that nothing keeps running after the exception.
                        py.detach(move || drop(rx.recv()));
                        return Err(e);
                    }
                }
            }
        }
    })
}
