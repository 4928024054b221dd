//! The one way package text reaches generated code. Labels, article texts, ids and names are
//! written by the package's author, who may be hostile: in a comment or a doc attribute they must
//! stay one line of inert text, and in a string literal they must stay a literal.

use proc_macro2::Literal;

/// Package text made safe for one line of a `//` comment or a `#[doc]` attribute: line breaks of
/// every kind, other control characters and invisible format characters (bidi overrides and
/// isolates, zero-width characters, the byte-order mark) become `\u{..}` escapes, and `*/` and `/*`
/// are broken up so that no comment can be opened or closed.
pub fn comment_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev = '\0';
    for ch in s.chars() {
        match ch {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push(' '),
            '/' if prev == '*' => out.push_str("\\/"),
            '*' if prev == '/' => out.push_str("\\*"),
            c if c.is_control() || is_invisible(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
        prev = ch;
    }
    out
}

/// A Rust string literal of package text (every character that is not printable escaped).
pub fn string_literal(s: &str) -> Literal {
    Literal::string(s)
}

/// Format characters that change how text reads without being seen: bidi embeddings,
/// overrides and isolates (which rustc rejects in comments and literals), zero-width
/// characters, line and paragraph separators, the byte-order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2069}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_stay_one_inert_line() {
        let hostile = "a\nclir_comment!(1);\r\n*/ fn evil() {} /* \u{202e}x\u{2066}\u{2028}y\u{0}z\u{feff}";
        let safe = comment_text(hostile);
        assert!(!safe.contains(['\n', '\r', '\u{202e}', '\u{2066}', '\u{2028}', '\0', '\u{feff}']), "{safe}");
        assert!(!safe.contains("*/") && !safe.contains("/*"), "{safe}");
        assert_eq!(comment_text("Article 4.2. Loans end: 1/2 * 3"), "Article 4.2. Loans end: 1/2 * 3");
        assert_eq!(comment_text("a*/b/*c"), "a*\\/b/\\*c");
    }

    #[test]
    fn string_literals_escape_what_cannot_be_seen() {
        let lit = string_literal("x\"\n\u{202e}\u{2066}\\").to_string();
        assert!(!lit.contains(['\n', '\u{202e}', '\u{2066}']), "{lit}");
        let back: String = syn::parse_str::<syn::LitStr>(&lit).unwrap().value();
        assert_eq!(back, "x\"\n\u{202e}\u{2066}\\");
    }
}
