//! `kld`: the command-line front end of karenina-ld. All logic lives in the
//! library; this binary parses arguments, reads and writes files, prints, and
//! picks exit codes (0 ok, 1 invalid input or failed check, 2 usage or I/O).

mod cli;

/// mimalloc, counted: each query's allocations are charged to its memory
/// budget (karenina_ld::memory).
#[global_allocator]
static GLOBAL: karenina_ld::memory::CountingAllocator<mimalloc::MiMalloc> =
    karenina_ld::memory::CountingAllocator(mimalloc::MiMalloc);

extern "C" {
    /// mimalloc's own: frees this thread's cached and abandoned memory back
    /// to the system (`force`: now, not after its purge delay).
    fn mi_collect(force: bool);
}

/// Hands a large query's freed memory back to the system when it ends.
fn release_memory() {
    // SAFETY: mi_collect takes no pointers and may be called on any thread
    // at any time (it is mimalloc's public API, linked in by the mimalloc crate).
    unsafe { mi_collect(true) }
}

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    karenina_ld::memory::set_release(release_memory);
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => ExitCode::from(code),
        // A reader that went away (`kld … | head`) ends the output, quietly.
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            match hint(&e) {
                Some(h) => eprintln!("kld: error: {e:#} ({h})"),
                None => eprintln!("kld: error: {e:#}"),
            }
            ExitCode::from(2)
        }
    }
}

/// The flags that fix a typed library error found in `e`'s chain.
fn hint(e: &anyhow::Error) -> Option<&'static str> {
    e.chain()
        .find_map(|c| c.downcast_ref::<karenina_ld::Error>())
        .and_then(cli::hint)
}

fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
