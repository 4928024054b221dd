//! Verifies the packages of law.toml against law.lock and compiles them into OUT_DIR.
fn main() {
    clir_codegen::build::run()
}
