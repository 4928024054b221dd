//! Compiles the packages of law.toml (fide.laws.chess) into OUT_DIR, verified against law.lock.
fn main() {
    clir_codegen::build::run();
}
