//! `kld`: the command-line front end of karenina-ld. All logic lives in the
//! library; this binary parses arguments, reads and writes files, prints, and
//! picks exit codes (0 ok, 1 invalid input or failed check, 2 usage or I/O).

mod cli;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("kld: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
