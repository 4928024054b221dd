//! JSON text as lines hold it: strings written as serde_json writes them, and values compacted
//! as they were written.

use serde_json::Value;
use std::borrow::Cow;

/// Whether `s` is written as a JSON string as it is, between quotes (serde_json escapes only
/// `"`, the backslash and control characters).
pub(super) fn is_plain(s: &str) -> bool {
    s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// Writes `s` as a JSON string, as serde_json does.
pub(crate) fn json_str(out: &mut String, s: &str) {
    if is_plain(s) {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&Value::from(s).to_string());
    }
}

/// Writes `v` as compact JSON.
pub(super) fn json_value(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => json_str(out, s),
        other => out.push_str(&other.to_string()),
    }
}

/// `json`, a JSON value as written, without white space between its tokens: a case value comes
/// back as it was written (a number of any size or spelling, a string's escapes), and two values
/// written differently are never taken for one.
pub fn compact_json(json: &str) -> Cow<'_, str> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let bytes = json.as_bytes();
    let (mut in_string, mut escaped) = (false, false);
    let needs = bytes.iter().any(|&b| {
        let outside = !in_string;
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            _ => {}
        }
        outside && is_space(b)
    });
    if !needs {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ' ' | '\t' | '\n' | '\r' if !in_string => continue,
            _ => {}
        }
        out.push(c);
    }
    Cow::Owned(out)
}

/// Appends `value` as compact JSON: what its `Display` writes, without the formatter between
/// serde_json and the string (a quarter of the cost of `--explain`).
pub(crate) fn push_json(out: &mut String, value: &impl serde::Serialize) {
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::compact_json;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Any JSON value, with white space of every JSON kind between its tokens and strings that
    /// hold white space, quotes and escapes.
    fn spaced_json() -> impl Strategy<Value = String> {
        let ws = prop::sample::select(vec!["", " ", "\t", "\n", "\r\n", "  "]);
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("-0".to_string()),
            Just("1E2".to_string()),
            Just("18446744073709551617".to_string()),
            "[ a-z\"\\\\\t]{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            Just("\"a \\\" b\"".to_string()),
        ];
        leaf.prop_recursive(3, 24, 4, move |inner| {
            let ws = ws.clone();
            prop_oneof![
                (prop::collection::vec((inner.clone(), ws.clone()), 0..4), ws.clone()).prop_map(|(items, w)| {
                    let items: Vec<String> = items.into_iter().map(|(v, w)| format!("{w}{v}{w}")).collect();
                    format!("[{w}{}]", items.join(","))
                }),
                (prop::collection::vec(("[a-z]{1,3}", inner, ws.clone()), 0..4)).prop_map(|items| {
                    let items: Vec<String> = items
                        .into_iter()
                        .enumerate()
                        .map(|(i, (k, v, w))| format!("{w}\"{k}{i}\"{w}:{w}{v}{w}"))
                        .collect();
                    format!("{{{}}}", items.join(","))
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn compact_json_drops_only_the_white_space_between_tokens(json in spaced_json()) {
            let compact = compact_json(&json);
            let (a, b): (Value, Value) = (serde_json::from_str(&json).unwrap(), serde_json::from_str(&compact).unwrap());
            prop_assert_eq!(a, b);
            // Outside strings, no white space is left; inside them, every character stays.
            let strings = |s: &str| serde_json::from_str::<Value>(s).unwrap().to_string();
            prop_assert_eq!(strings(&json), strings(&compact));
            prop_assert_eq!(compact_json(&compact), compact.clone());
            let spaces_outside = {
                let (mut in_string, mut escaped, mut n) = (false, false, 0);
                for c in compact.chars() {
                    match c {
                        _ if escaped => escaped = false,
                        '\\' if in_string => escaped = true,
                        '"' => in_string = !in_string,
                        ' ' | '\t' | '\n' | '\r' if !in_string => n += 1,
                        _ => {}
                    }
                }
                n
            };
            prop_assert_eq!(spaces_outside, 0);
        }
    }

    #[test]
    fn numbers_and_escapes_stay_as_written() {
        assert_eq!(compact_json("18446744073709551616"), "18446744073709551616");
        assert_eq!(compact_json("[ 1E2 ,\t-0 ]"), "[1E2,-0]");
        assert_eq!(compact_json("\"a \\u0061 \\\" b\""), "\"a \\u0061 \\\" b\"");
        assert!(matches!(compact_json("{\"a\":1}"), std::borrow::Cow::Borrowed(_)));
    }
}
