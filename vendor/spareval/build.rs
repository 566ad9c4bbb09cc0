//! karenina-ld's patch marker: a crate that depends on this copy (through
//! `links = "kld_spareval_patched"`) sees `DEP_KLD_SPAREVAL_PATCHED_PATCHED`
//! in its build script, and so can refuse to build on the unpatched spareval.
fn main() {
    println!("cargo:patched=1");
}
