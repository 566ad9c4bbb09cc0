//! `kld`: the command-line front end of karenina-ld. All logic lives in the
//! library, and so does the command line itself ([`karenina_ld::cli`], shared
//! with the Python package's `kld`): this binary only installs the allocator
//! and hands over its arguments.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(karenina_ld::cli::main_from_args(std::env::args_os()))
}
