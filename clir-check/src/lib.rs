//! clir-check: an independent checker of clir's ruling certificates (docs/CERTIFICATES.md).
//!
//! It reads the package file, the case lines and the certified ruling lines itself (serde_json,
//! sha2; no part of clir), and accepts a ruling only when its certificate proves it is exactly
//! what docs/SEMANTICS.md §4-7 concludes: every listed literal is justified at a lower rank, and
//! one step of every rule and closure over the listed layers derives nothing that is not listed
//! (the layers are the fixpoint, not just a set of proofs).

#![deny(missing_docs)]

mod case;
mod check;
pub mod json;
mod package;

pub use case::{check_grants, MAX_FACTS, MAX_WHY_NOT};
pub use check::{check_case, check_line, Failure, Options, Verdict, CERTIFICATE_KEYS, RULING_KEYS};
pub use package::{sha256, Package};

use std::io::{self, BufRead, Read, Write};

/// The longest line read from the cases or the rulings; a longer one is skipped and rejected.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// What a run of [`check_stream`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Cases read (non-blank case lines), one report line each.
    pub cases: u64,
    /// Rulings whose certificate was accepted.
    pub certified: u64,
    /// Rulings rejected (a broken certificate, a missing or extra line).
    pub rejected: u64,
    /// Cases ruled an error line: nothing to certify.
    pub not_ruled: u64,
}

/// The next non-blank line of `input` (`Ok(None)` at the end): its number from 1 and its text,
/// or why it cannot be read (longer than [`MAX_LINE_BYTES`], not UTF-8).
fn next_line(input: &mut impl BufRead, no: &mut usize) -> io::Result<Option<(usize, Result<String, String>)>> {
    loop {
        let mut buf = Vec::new();
        let n = Read::take(&mut *input, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        *no += 1;
        if buf.len() > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
            input.skip_until(b'\n')?;
            return Ok(Some((*no, Err(format!("the line is longer than {MAX_LINE_BYTES} bytes")))));
        }
        // The line break is `\n` or `\r\n`, as clir reads it: a line ending `\r\r\n` keeps one
        // `\r`, which its certificate's case hash covers.
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        if buf.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            continue;
        }
        return Ok(Some((
            *no,
            String::from_utf8(buf)
                .map_err(|e| format!("the line is not UTF-8 (invalid byte at {})", e.utf8_error().valid_up_to())),
        )));
    }
}

/// A report line: its keys in order (as serde_json's sorted objects write them), the `case`
/// value as written in the case line.
fn report(line: usize, case: &str, outcome: &str, rest: &[(&str, serde_json::Value)]) -> String {
    let mut out = format!("{{\"case\":{case},\"line\":{line}");
    let mut keys: Vec<(&str, String)> = vec![("outcome", serde_json::Value::from(outcome).to_string())];
    keys.extend(rest.iter().map(|(k, v)| (*k, v.to_string())));
    keys.sort();
    for (k, v) in keys {
        out.push_str(&format!(",\"{k}\":{v}"));
    }
    out.push('}');
    out
}

/// Checks every ruling of `rulings` against the case line it answers (the non-blank lines of
/// both, in order) and writes one report line a case to `out`:
/// `{"case":C,"line":N,"outcome":"certified"|"rejected"|"not_ruled",...}`, with the `literal`,
/// the `step` and the `reason` of a rejection; `C` is the case line's `case` as written.
pub fn check_stream(
    pkg: &Package,
    opts: &Options,
    mut cases: impl BufRead,
    mut rulings: impl BufRead,
    mut out: impl Write,
) -> io::Result<Summary> {
    let mut summary = Summary::default();
    let (mut case_no, mut ruling_no) = (0, 0);
    loop {
        let case = next_line(&mut cases, &mut case_no)?;
        let ruling = next_line(&mut rulings, &mut ruling_no)?;
        let (line, verdict, case_value) = match (case, ruling) {
            (None, None) => break,
            (Some((no, case)), ruling) => {
                let value = |c: &Result<String, String>| c.as_deref().map_or("null".into(), case::case_value);
                let rejected = |why: &str| Verdict::Rejected(Failure::line(why));
                let (case_value, verdict) = match (case, ruling) {
                    (Ok(c), Some((_, Ok(r)))) => check::check_case(pkg, &c, &r, opts),
                    (c, None) => (value(&c), rejected("no ruling line answers this case line")),
                    (c, Some((_, Err(why)))) => (value(&c), rejected(&format!("its ruling line: {why}"))),
                    (Err(why), Some(_)) => ("null".into(), rejected(&why)),
                };
                (no, verdict, case_value)
            }
            (None, Some((no, _))) => {
                (no, Verdict::Rejected(Failure::line("a ruling line beyond the last case line")), "null".into())
            }
        };
        summary.cases += 1;
        let report = match verdict {
            Verdict::Certified => {
                summary.certified += 1;
                report(line, &case_value, "certified", &[])
            }
            Verdict::NotRuled(error) => {
                summary.not_ruled += 1;
                report(line, &case_value, "not_ruled", &[("error", error.into())])
            }
            Verdict::Rejected(f) => {
                summary.rejected += 1;
                let literal = f.literal.map_or(serde_json::Value::Null, serde_json::Value::from);
                report(
                    line,
                    &case_value,
                    "rejected",
                    &[("literal", literal), ("step", f.step.into()), ("reason", f.reason.into())],
                )
            }
        };
        writeln!(out, "{report}")?;
    }
    out.flush()?;
    Ok(summary)
}
