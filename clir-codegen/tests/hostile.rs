//! Hostile package text: labels, names and article texts never become code, and the generated
//! module stays valid Rust that rustc accepts (no bidi controls or bare CRs in it); in the
//! package shown as Datalog (`clir show`) every statement stays on its own line.

use clir_codegen::canonical::seal;
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use proc_macro2::{TokenStream, TokenTree};

/// Compiles a package of the test kit's notation; the generated Rust, after checking that the
/// package shown as Datalog is inert too.
fn compile(text: &str) -> String {
    let pkg = clir_testkit::Package::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let bytes = pkg.bytes();
    let doc = verify_bytes(&bytes, &VerifyOptions::default()).into_document().expect("verifies");
    assert_shown_inert(&clir_codegen::show_document(&doc).expect("shows"));
    clir_codegen::compile_document(&doc, &seal(&bytes)).expect("compiles")
}

/// No package text breaks a line of `clir show`'s output or hides what it says.
fn assert_shown_inert(shown: &str) {
    for bad in ['\r', '\u{202e}', '\u{2066}', '\u{2028}', '\u{feff}', '\0'] {
        assert!(!shown.contains(bad), "{:?} reaches the Datalog:\n{shown}", bad);
    }
    for line in shown.lines() {
        let marker = line.starts_with("clir_comment!") || line.starts_with("clir_verbatim!");
        assert!(!marker && !line.starts_with("*/"), "a label broke a line: {line}");
    }
}

/// Whether `name` occurs as an identifier in the code (not in a comment, doc or literal).
fn has_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == name,
        TokenTree::Group(g) => has_ident(g.stream(), name),
        _ => false,
    })
}

fn assert_inert(rust: &str) {
    let file = syn::parse_file(rust).unwrap_or_else(|e| panic!("not Rust: {e}"));
    let tokens = quote::quote!(#file);
    assert!(!has_ident(tokens, "clir_injected"), "package text became code");
    for bad in ['\r', '\u{202e}', '\u{2066}', '\u{2028}', '\u{feff}', '\0'] {
        assert!(!rust.contains(bad), "{:?} reaches the generated code", bad);
    }
}

const HOSTILE: &str =
    "\nclir_comment!(1);\nclir_comment!(99999);\nclir_verbatim!(0);\n*/ fn clir_injected() {} /*\r\n\u{202e}\u{2066}x\u{2028}";

#[test]
fn labels_and_texts_never_become_code() {
    let label = serde_json::to_string(HOSTILE).unwrap();
    let rust = compile(&format!(
        "package hostile.labels 0.1.0
         type Game {label}
         const Playing: Game {label}
         empirical started(game: Game) {label}
         institutional p(game: Game) {label}
         judgment touched(game: Game) by judgment:A {label}
         fragment ART article/1 {label}
         rule R defeasible {label} @ART: p(g) :- started(g)
         rule S defeasible {label}: ~p(g) :- touched(g)
         priority RS: R > S {label}
         institutional q(game: Game)
         rule Q strict: q(g) :- started(g)
         closure C: q over started {label}"
    ));
    assert_inert(&rust);
    // The text is still there, escaped, for a reader of the generated code.
    assert!(rust.contains("clir_comment!(99999);"), "the label is kept, escaped");
}

#[test]
fn names_never_become_code() {
    // Backquoted names reach identifiers (through the name allocator) and strings only.
    let rust = compile(
        "package hostile.names 0.1.0
         type `Game */ fn clir_injected() {} /*`
         empirical `started\u{202e}`(game: `Game */ fn clir_injected() {} /*`)
         institutional `p\rclir_comment!(1);\nclir_verbatim!(0);`(game: `Game */ fn clir_injected() {} /*`)
         rule `R\u{2066}` strict: `p\rclir_comment!(1);\nclir_verbatim!(0);`(g) :- `started\u{202e}`(g)",
    );
    assert_inert(&rust);
}
