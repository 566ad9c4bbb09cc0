//! `kld`: the command-line front end of karenina-ld. All logic lives in the
//! library (`karenina_ld`), the command line itself in this crate's library
//! ([`karenina_ld_cli`], shared with the Python package's `kld`): this binary
//! only installs the allocator and hands over its arguments.

/// mimalloc, counted: each query's allocations are charged to its memory
/// budget (karenina_ld::memory).
#[global_allocator]
static GLOBAL: karenina_ld::memory::CountingAllocator<mimalloc::MiMalloc> =
    karenina_ld::memory::CountingAllocator(mimalloc::MiMalloc);

extern "C" {
    /// mimalloc's own: frees this thread's cached and abandoned memory back
    /// to the system (`force`: now, not after its purge delay).
    fn mi_collect(force: bool);
    /// mimalloc's own: sets one of its options.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc's `mimalloc.h` (v2 and v3): how long
/// freed memory stays resident before it is handed back to the system.
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// Hands a large query's freed memory back to the system when it ends.
fn release_memory() {
    // SAFETY: mi_collect takes no pointers and may be called on any thread
    // at any time (it is mimalloc's public API, linked in by the mimalloc crate).
    unsafe { mi_collect(true) }
}

fn main() -> std::process::ExitCode {
    // Freed memory goes back to the system at once, not a second later
    // (mimalloc v3's default): a query's memory budget bounds what it holds,
    // and the process's size follows it only if what it freed leaves too.
    // A chain of doubling strings under a 512 MiB budget held 510 MiB and
    // peaked 100 MB higher with the delay; no cost measured on a 9 MB
    // checkpoint's export. MIMALLOC_PURGE_DELAY, when set, still rules.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mimalloc's public API, called before any other thread
        // exists; it takes no pointers.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
    }
    karenina_ld::memory::set_release(release_memory);
    std::process::ExitCode::from(karenina_ld_cli::main_from_args(std::env::args_os()))
}
