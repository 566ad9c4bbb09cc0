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

/// The flags that fix a typed library error (the library names no flags).
fn hint(e: &anyhow::Error) -> Option<&'static str> {
    use karenina_ld::Error;
    e.chain()
        .find_map(|c| c.downcast_ref::<Error>())
        .and_then(|e| match e {
            Error::NoGraphStore => Some("give --graph-store URL, or --server to derive it"),
            Error::ManyGraphs { .. } => Some("export one graph, or pass --union to merge them"),
            Error::Timeout { .. } => Some("raise it with --timeout"),
            Error::ResultTooLarge { .. } => Some("add LIMIT, or raise --max-result-bytes"),
            _ => None,
        })
}

fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
