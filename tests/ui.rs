//! Compile-fail tests of the Rust surface of compiled-in packages: each `tests/ui/*.rs` must not
//! compile, with the error pinned in its `.stderr` (regenerate with `TRYBUILD=overwrite`, then
//! read the diff).
//!
//! The generated module lives in `OUT_DIR`; trybuild writes its path as `$OUT_DIR[clir]` and
//! leaves out its line numbers, so the pinned notes quote only the line that declares the method
//! (the relation's `clir::case_methods!` invocation, the typed input API itself), never a
//! machine-specific path.
#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
