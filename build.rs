//! Refuses to build karenina-ld on the unpatched SPARQL evaluator.
//!
//! kld's query time limits and its never-panicking ORDER BY live in the
//! patched spareval under `vendor/spareval` (see its PATCHES.md), applied by
//! `[patch.crates-io]` in this repository's Cargo.toml. Cargo does not apply
//! a dependency's `[patch]` section to the crates that depend on it, so an
//! application embedding karenina-ld would silently get the registry
//! spareval, whose queries ignore their time limit. The patched copy
//! announces itself (`links = "kld_spareval_patched"`); without it, this
//! script stops the build and says what to add.
//!
//! It also tells the tests where the repository is (`KLD_SOURCE_ROOT`, this
//! folder): tests/common/mod.rs is shared with the crates under crates/,
//! whose own build scripts point two folders up.

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    println!("cargo:rustc-env=KLD_SOURCE_ROOT={root}");
    // Watched by absolute path: after a build of another checkout into the
    // same target directory (the fresh-clone check), the other checkout's
    // path is gone and cargo reruns this script rather than keep its root.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={root}/Cargo.toml");
    if std::env::var_os("DEP_KLD_SPAREVAL_PATCHED_PATCHED").is_none() {
        eprintln!(
            "karenina-ld needs its patched SPARQL evaluator (query time limits, ORDER BY \
             without panics). Add to your workspace's Cargo.toml:\n\n\
             [patch.crates-io]\n\
             spareval = {{ path = \"<path to karenina-ld>/vendor/spareval\" }}\n\n\
             (a dependency's [patch] section is not applied to its dependents; see \
             karenina-ld's vendor/spareval/PATCHES.md)"
        );
        std::process::exit(1);
    }
}
