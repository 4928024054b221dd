//! Truncated and garbled notation, and garbled package files, never panic: the parser answers
//! with an error naming a line and column inside the text, the printer with an error.

use std::path::Path;

fn fide() -> (Vec<u8>, String) {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../sources/fide.laws.chess-0.1.0.lawir.json"))
            .unwrap();
    let text = clir_notation::print(&bytes).unwrap();
    (bytes, text)
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Parses `text`: an error must point inside it.
fn parse_checked(text: &str) {
    if let Err(e) = clir_notation::pack(text) {
        let lines = text.lines().count().max(1);
        assert!(e.line >= 1 && e.line <= lines, "line {} of {lines}: {e}", e.line);
        let width = text.lines().nth(e.line - 1).map_or(0, |l| l.chars().count());
        assert!(e.column >= 1 && e.column <= width + 1, "column {} of {width}: {e}", e.column);
    }
}

#[test]
fn truncated_notation_never_panics() {
    let (_, text) = fide();
    let mut cut = 0;
    while cut < text.len() {
        if text.is_char_boundary(cut) {
            parse_checked(&text[..cut]);
        }
        cut += 97;
    }
}

#[test]
fn garbled_notation_never_panics() {
    let (_, text) = fide();
    let alphabet: Vec<char> = "()[]{}:,.~`\"@#<>=!-+*/\\ \n\tabcXYZ019éμ\u{202e}".chars().collect();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let chars: Vec<char> = text.chars().collect();
    for _ in 0..300 {
        let mut garbled = chars.clone();
        for _ in 0..1 + rng.below(6) {
            let at = rng.below(garbled.len());
            match rng.below(3) {
                0 => garbled[at] = alphabet[rng.below(alphabet.len())],
                1 => {
                    garbled.remove(at);
                }
                _ => garbled.insert(at, alphabet[rng.below(alphabet.len())]),
            }
        }
        parse_checked(&garbled.into_iter().collect::<String>());
    }
    // Statements alone, each garbled in its own way.
    for s in [
        "package",
        "package a",
        "package a 1\nrule",
        "package a 1\nrule R",
        "package a 1\nrule R strict",
        "package a 1\nrule R strict:",
        "package a 1\nrule R strict: p(",
        "package a 1\nrule R strict: p(x) :- ",
        "package a 1\nrule R strict: p(x) :- (q(x)",
        "package a 1\nrule R strict: p(x) :- x - ",
        "package a 1\nrule R strict: p(x) :- 99999999999999999999 > x",
        "package a 1\ntype `",
        "package a 1\ntype ``",
        "package a 1\nnode {",
        "package a 1\nnode {} x",
        "package a 1\nnode x",
        "package a 1\ntype T set",
        "package a 1\ntype T set k",
        "package a 1\ntype T set k =",
        "package a 1\ntype T set k = [",
        "package a 1\ntype T label",
        "package a 1\ntype T label en",
        "package a 1\nfragment F",
        "package a 1\nfragment F a/1",
        "package a 1\nfragment F a/1 \"x\" text en",
        "package a 1\nsemantic-hash x",
        "package a 1\ndocument",
        "package a 1\ndocument set",
        "package a 1\nmetadata",
        "package a 1\norder",
        "package a 1\nexternal E",
        "package a 1\nexternal E: r",
        "package a 1\npriority P: A >",
        "package a 1\nclosure C: p over",
        "package a 1\nclosure C: p over d asof",
        "package a 1\nrule R strict [x: T: p(x)",
        "package a 1\nrule R strict [x T]: p(x)",
        "package a 1\nwork W kind",
        "package a 1\nwork W number",
        "package a 1\nedition E lifecycle x",
        "package a 1\nedition E of",
        "package a 1\nfragment F a/1 edition",
        "package a 1\nfragment F a/1 edition E",
        "package a 1\npublication P - uri",
        "package a 1\npublication P - media x",
        "package a 1\nrule R strict: p(#)",
        "package a 1\nrule R strict: p(\"\\u12\")",
    ] {
        parse_checked(s);
    }
}

#[test]
fn garbled_package_files_never_panic_the_printer() {
    let (bytes, _) = fide();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..200 {
        let mut garbled = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(garbled.len());
            garbled[at] = b"{}[]\":,0a\\ "[rng.below(11)];
        }
        if let Ok(text) = clir_notation::print(&garbled) {
            // Whatever prints packs back to the bytes it was printed from.
            assert_eq!(clir_notation::pack(&text).unwrap(), garbled);
        }
    }
    for cut in (0..bytes.len()).step_by(1013) {
        assert!(clir_notation::print(&bytes[..cut]).is_err());
    }
    for odd in [&b"[]"[..], b"{}", b"{\"nodes\":[1,null,\"x\",{}]}", b"{\"nodes\":{}}", b"null"] {
        let _ = clir_notation::print(odd);
    }
}

#[test]
fn errors_name_line_and_column() {
    let e = clir_notation::parse("package a 1\ntype Game\n  rule R strict: p(x) :- q(x) junk").unwrap_err();
    assert_eq!((e.line, e.column), (3, 31), "{e}");
    assert!(e.message.contains("junk"), "{e}");
    // A statement over two lines: the column on the line the error is on.
    let e = clir_notation::parse("package a 1\nrule R strict: p(x) :-\n      q(x),\n      ??").unwrap_err();
    assert_eq!((e.line, e.column), (4, 7), "{e}");
    let e = clir_notation::parse("package a 1\ntype T é ?").unwrap_err();
    assert_eq!((e.line, e.column), (2, 8), "{e}");
    let e = clir_notation::parse("\n\n  bogus x").unwrap_err();
    assert_eq!((e.line, e.column), (3, 3), "{e}");
}

#[test]
fn a_rule_locates_its_head_and_premises() {
    let text = "package a 1\ntype T\nempirical q(x: T)\ninstitutional p(x: T)\nrule R strict:\n    p(x) :- q(x),\n        not q(x), x = x\nrule S strict bare: p(x) :- q(x)";
    let (_, at) = clir_notation::parse_located(text).unwrap();
    assert_eq!((at[3].line, at[3].column), (5, 1));
    assert_eq!(at[3].find("head.args[0]"), (6, 5));
    assert_eq!(at[3].find("body.items[0].predicate"), (6, 13));
    assert_eq!(at[3].find("body.items[1]"), (7, 9));
    assert_eq!(at[3].find("body.items[2].left"), (7, 19));
    assert_eq!(at[3].find("body.items[22]"), (5, 1));
    assert_eq!(at[3].find("variables[0]"), (5, 1));
    assert_eq!(at[4].find("body.formula"), (8, 29));
}
