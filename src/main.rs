//! `kld`: the command-line front end of karenina-ld. All logic lives in the
//! library, and so does the command line itself ([`karenina_ld::cli`], shared
//! with the Python package's `kld`): this binary only installs the allocator
//! and hands over its arguments.

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

fn main() -> std::process::ExitCode {
    karenina_ld::memory::set_release(release_memory);
    std::process::ExitCode::from(karenina_ld::cli::main_from_args(std::env::args_os()))
}
