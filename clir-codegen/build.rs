//! Tells the crates that depend on this one where its manifest and sources are
//! (`DEP_CLIR_CODEGEN_ROOT`): the `clir` tool embeds them in the crates `clir run` and `clir new` write.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo::metadata=root={root}");
}
