//! Tells the tests where the repository is (`KLD_SOURCE_ROOT`): they read
//! its examples and fixtures (tests/data), two folders up from this crate.

fn main() {
    let manifest = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..");
    let root = root.canonicalize().unwrap_or(manifest);
    println!("cargo:rustc-env=KLD_SOURCE_ROOT={}", root.display());
    println!("cargo:rerun-if-changed=build.rs");
    // The root by its absolute path: a build of another checkout into the
    // same target directory (the fresh-clone check) leaves a path that no
    // longer exists, and cargo reruns this script when a path it watches is
    // gone, instead of keeping the other checkout's root.
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.toml").display()
    );
}
