//! The one way package text reaches generated code. Labels, article texts, ids and names are
//! written by the package's author, who may be hostile: in a comment or a doc attribute they must
//! stay one line of inert text, and in a string literal they must stay a literal. The same
//! text printed to a terminal (`clir verify`, `clir add`) goes through [`terminal_text`].

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

/// Package text made safe for one line of a terminal: control characters (ESC sequences, OSC
/// titles, line breaks, backspace) and invisible format characters (bidi overrides such as
/// U+202E, zero-width characters) become `\u{..}` escapes, and a backslash followed by `u{`
/// is escaped too, so an escape on the screen always means the package holds that character.
pub fn terminal_text(s: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() || is_invisible(c);
    if !s.contains(unsafe_char) && !s.contains("\\u{") {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        } else if c == '\\' && rest[1..].starts_with("u{") {
            out.push_str("\\u{5c}");
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

/// JSON text made safe for a terminal: the invisible format characters serde_json leaves as
/// they are become `\uXXXX` escapes (it already escapes every control character), so the JSON
/// value is the same.
pub fn terminal_json(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.contains(is_invisible) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if is_invisible(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
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
    fn terminal_text_leaves_no_control_or_invisible_character() {
        let hostile = "demo\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}txt.exe\nline\u{200b}";
        let safe = terminal_text(hostile);
        assert!(!safe.contains(|c: char| c.is_control() || is_invisible(c)), "{safe}");
        assert_eq!(safe, "demo\\u{001b}]0;owned\\u{0007}\\u{001b}[2J\\u{202e}txt.exe\\u{000a}line\\u{200b}");
        assert_eq!(terminal_text("demo.laws.loans 0.1.0"), "demo.laws.loans 0.1.0");
        // A package cannot fake an escape: a written `\u{..}` is itself escaped.
        assert_eq!(terminal_text("a\\u{202e}"), "a\\u{5c}u{202e}");
        let json = serde_json::to_string("a\u{1b}\u{202e}b").unwrap();
        let shown = terminal_json(&json);
        assert!(!shown.contains(|c: char| c.is_control() || is_invisible(c)), "{shown}");
        assert_eq!(serde_json::from_str::<String>(&shown).unwrap(), "a\u{1b}\u{202e}b");
    }

    /// Every character issue 45 names reaches a terminal as its `\u{..}` escape: C0 and C1
    /// controls (ESC among them) and DEL, bidi embeddings, overrides and isolates, the marks,
    /// zero-width characters, the byte-order mark and the soft hyphen.
    #[test]
    fn terminal_text_escapes_every_control_bidi_and_zero_width_character() {
        let listed = ('\u{0}'..='\u{1f}')
            .chain('\u{7f}'..='\u{9f}')
            .chain('\u{202a}'..='\u{202e}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(['\u{200e}', '\u{200f}', '\u{200b}', '\u{200c}', '\u{200d}', '\u{feff}', '\u{ad}']);
        for c in listed {
            let text = format!("a{c}b");
            assert_eq!(terminal_text(&text), format!("a\\u{{{:04x}}}b", c as u32), "U+{:04X}", c as u32);
        }
        // Letters of other scripts are text, not escapes.
        assert_eq!(terminal_text("Dvořák שחמט 象棋"), "Dvořák שחמט 象棋");
    }

    #[test]
    fn string_literals_escape_what_cannot_be_seen() {
        let lit = string_literal("x\"\n\u{202e}\u{2066}\\").to_string();
        assert!(!lit.contains(['\n', '\u{202e}', '\u{2066}']), "{lit}");
        let back: String = syn::parse_str::<syn::LitStr>(&lit).unwrap().value();
        assert_eq!(back, "x\"\n\u{202e}\u{2066}\\");
    }
}
