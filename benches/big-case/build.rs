//! Verifies demo.roads against law.lock and compiles it into OUT_DIR.
fn main() {
    clir_codegen::build::run()
}
