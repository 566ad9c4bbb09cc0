//! `karenina_ld._native`: karenina-ld for Python. Thin: Python classes over
//! the library (typed rows to Python values, library errors to one Python
//! exception hierarchy, the GIL released for long work, Ctrl-C to the
//! library's cancellation token). Logic the library lacks does not go here.

// One module-file style in every crate of the workspace (ARCHITECTURE.md,
// "Invariants"): a module with children is `foo/mod.rs`.
#![deny(clippy::self_named_module_files)]

use pyo3::prelude::*;

mod answers;
mod checkpoint;
mod errors;
mod interrupt;
mod lock;
mod sheets;
mod stats;
mod store;
mod values;

// The allocator the `kld` binary uses, so that the Python package's loads
// and queries run as fast as `kld`'s, counted so that each query's memory
// budget (karenina_ld::memory) holds here too.
#[global_allocator]
static GLOBAL: karenina_ld::memory::CountingAllocator<mimalloc::MiMalloc> =
    karenina_ld::memory::CountingAllocator(mimalloc::MiMalloc);

/// `kld` with these arguments (`argv[0]` is the program name), in this
/// process: the same function the `kld` binary runs. Returns the exit status.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| karenina_ld_cli::main_from_args(argv))
}

/// The Karenina question ID of `text` (`urn:uuid:question-…`), as Karenina
/// computes it.
///
/// >>> question_id("What is the capital of France?")
/// 'urn:uuid:question-what-is-the-capital-of-france-cb0b4aaf'
#[pyfunction]
fn question_id(text: &str) -> String {
    karenina_ld::model::qid::question_id(text)
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", karenina_ld::VERSION)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(question_id, m)?)?;
    m.add_function(wrap_pyfunction!(checkpoint::validate, m)?)?;
    m.add_function(wrap_pyfunction!(sheets::import_questions, m)?)?;
    m.add_function(wrap_pyfunction!(store::queries, m)?)?;
    m.add_function(wrap_pyfunction!(store::query_text, m)?)?;
    m.add_function(wrap_pyfunction!(stats::compare, m)?)?;
    m.add_function(wrap_pyfunction!(stats::rate_names, m)?)?;
    m.add_class::<stats::Comparison>()?;
    m.add_class::<errors::Diagnostic>()?;
    m.add_class::<checkpoint::Checkpoint>()?;
    m.add_class::<checkpoint::Results>()?;
    m.add_class::<checkpoint::Preset>()?;
    m.add_class::<store::Store>()?;
    m.add_class::<answers::Solutions>()?;
    m.add_class::<answers::Triples>()?;
    Ok(())
}
