//! Ruling a chunk of lines as one batch: each line read (by the fast path, else the full
//! reader), the batch evaluated, and each line's ruling or error line written, in order.

use super::fast;
use super::read::{add_case, over_budget, read_line, Catalog, Line, Options, Read, UNREADABLE};
use super::write::{error_line, CaseValue, Parts, Writer};
use crate::batch::{Batch, Output};
use crate::value::{CaseId, FastMap};
use crate::Package;

/// Rules a chunk of lines as one batch; returns exactly one output line per input line, in
/// order, and how many of them are error lines.
pub fn rule_chunk(pkg: &dyn Package, cat: &Catalog, lines: &[Line], opts: &Options) -> (Vec<String>, usize) {
    let mut out = String::new();
    let errors = rule_chunk_into(pkg, cat, lines, opts, &mut out);
    (out.lines().map(str::to_string).collect(), errors)
}

/// Rules a chunk of lines as one batch, appending exactly one output line per input line (each
/// ended by `\n`) to `out`, in order; returns how many of them are error lines.
pub fn rule_chunk_into<S: AsRef<str>>(
    pkg: &dyn Package,
    cat: &Catalog,
    lines: &[(usize, S)],
    opts: &Options,
    out: &mut String,
) -> usize {
    let ReadChunk { batch, slots, asked_from } = read_chunk(cat, lines, opts);
    let mut output = if batch.cases > 0 { pkg.evaluate(&batch) } else { Output::default() };
    output.sort_instances();
    if let Some(coverage) = &opts.coverage {
        coverage.lock().unwrap_or_else(std::sync::PoisonError::into_inner).add(&output, batch.cases as u64);
    }
    let mut w = Writer::new(cat, &batch, &output, opts);
    let mut errors = 0;
    // The warnings of the cases, in case order: each case takes those at the front.
    let mut noted_from = 0;
    for (s, (no, text)) in slots.into_iter().zip(lines) {
        let s = match s {
            Ok((case, id)) if output.over_budget.binary_search(&CaseId(id)).is_ok() => {
                let limit = opts.max_case_tuples.unwrap_or(u64::MAX);
                Err(error_line(&case.json(), *no, &over_budget(limit)))
            }
            s => s,
        };
        match s {
            Ok((case, id)) => {
                let noted = &batch.warnings[noted_from..];
                let n = noted.iter().take_while(|(c, _)| c.0 == id).count();
                noted_from += n;
                let asked = asked_from.get(&id).map(|&from| {
                    let n = batch.why_not[from..].iter().take_while(|a| a.case.0 == id).count();
                    from..from + n
                });
                w.ruling_line(out, &case, id, Parts { warnings: &noted[..n], asked, line: text.as_ref() });
            }
            Err(line) => {
                errors += 1;
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    errors
}

/// A chunk's lines read into one batch.
struct ReadChunk<'l> {
    batch: Batch,
    /// Per line: its case value and its case id in the batch, or its error line.
    slots: Vec<Result<(CaseValue<'l>, u32), String>>,
    /// Per case with a why-not: its first asked literal in `batch.why_not` (they follow in order).
    asked_from: FastMap<u32, usize>,
}

/// Reads a chunk's lines into one batch: each by the fast path, else by the full reader, or as
/// its error line.
fn read_chunk<'l, S: AsRef<str>>(cat: &Catalog, lines: &'l [(usize, S)], opts: &Options) -> ReadChunk<'l> {
    let mut batch = Batch::new(cat.schema);
    batch.explain = opts.explain || opts.coverage.is_some() || opts.certify;
    batch.max_case_tuples = opts.max_case_tuples;
    let mut read = Read::default();
    let (mut rows, mut flat, mut names) = (Vec::new(), Vec::new(), FastMap::default());
    let mut scratch = fast::Scratch::default();
    let mut slots: Vec<Result<(CaseValue, u32), String>> = Vec::with_capacity(lines.len());
    let mut asked_from: FastMap<u32, usize> = FastMap::default();
    let chunk_bytes: usize = lines.iter().map(|(_, text)| text.as_ref().len()).sum();
    for (no, text) in lines {
        let text = text.as_ref();
        if slots.len() == 1 {
            reserve_like_first(&mut batch, lines[0].1.as_ref().len(), chunk_bytes);
        }
        if let Some(why) = text.strip_prefix(UNREADABLE) {
            slots.push(Err(error_line("null", *no, why)));
            continue;
        }
        if let Some(added) = fast::add_line(cat, &mut batch, text, opts, &mut scratch) {
            slots.push(Ok((CaseValue::Name(added.case), added.id)));
            continue;
        }
        let r = match read_line(text, &mut read) {
            Ok(()) => match add_case(cat, &mut batch, &read, opts, &mut rows, &mut flat, &mut names) {
                Ok(id) => {
                    if !read.why_not.is_empty() {
                        asked_from.insert(id, batch.why_not.len() - read.why_not.len());
                    }
                    Ok((CaseValue::Json(std::mem::take(&mut read.case).into_owned()), id))
                }
                Err(msg) => Err(error_line(&read.case, *no, &msg)),
            },
            Err((case, msg)) => Err(error_line(&case, *no, &msg)),
        };
        slots.push(r);
    }
    ReadChunk { batch, slots, asked_from }
}

/// After a chunk's first case (of `first_bytes` bytes, in a chunk of `chunk_bytes`): room in
/// each of the batch's rows for as many cases like it as the chunk's bytes hold, so that they
/// grow once rather than by doubling. A row takes at least a byte of its line for each value,
/// so the room is at most `chunk_bytes` values, whatever the first line.
fn reserve_like_first(batch: &mut Batch, first_bytes: usize, chunk_bytes: usize) {
    let cases = chunk_bytes / first_bytes.max(1);
    for rows in &mut batch.facts {
        rows.reserve(rows.len().saturating_mul(cases).min(chunk_bytes));
    }
}
