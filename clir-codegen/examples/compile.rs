fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let doc = clir_codegen::ir::Document::parse(&bytes).unwrap();
    let seal = clir_codegen::canonical::seal(&bytes);
    match clir_codegen::compile_document(&doc, &seal) {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
