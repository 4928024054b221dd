//! Why not: for a literal a case asks about, whether it is concluded and, when it is not, every
//! rule for it with the reason it did not conclude it.
//!
//! `rt::RuleTable::walk` walks each rule's body, as the compiler planned it, over the final
//! relations of the case and tells a [`Trace`] every item that fails for a binding (a premise not concluded
//! or not supported, a comparison that is false, a negation whose literal is concluded) and
//! every binding where none does. This module adds what strengths, priorities and closures say
//! (SEMANTICS §4): an applicable rule fails because an applicable attacker is beaten by no
//! applicable rule for the literal, because it is a defeater, or because the complement is
//! definite.

use crate::batch::{entity_text, slot};
use crate::reason::Failure;
pub use crate::reason::{
    rule_object, Asked, Reason, ReasonKind, Shown, Source, Status, Trace, WhyNot, MAX_REASONS_PER_RULE,
};
use crate::schema::Schema;
use crate::value::{Interner, Sym};

/// An entity inside a why-not literal: as [`entity_text`] writes it (bare, or a JSON string when
/// it could be misread), and also as a JSON string when it is `_` (which bare stands for an
/// argument no value binds) or holds a character a reader would not see or would see as
/// something else: a control character, a bidi control, a zero-width character, the byte-order
/// mark or a soft hyphen, each written as its `\uXXXX` JSON escape. A quoted name reads back as
/// the same entity where a literal is read (`why_not`, law tests), and `_` never names one.
pub fn shown_entity(name: &str) -> std::borrow::Cow<'_, str> {
    if name != "_" && !name.contains(unseen) {
        return entity_text(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in serde_json::Value::String(name.to_string()).to_string().chars() {
        if unseen(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Characters that change how text reads without being seen, or are not text: C0 and C1
/// controls and DEL, bidi embeddings, overrides, isolates and marks (U+061C, U+200E, U+200F,
/// U+202A-U+202E, U+2066-U+2069), zero-width and invisible characters (U+180E, U+200B-U+200D,
/// U+2060-U+2064, U+FEFF), the soft hyphen, the line and paragraph separators and the
/// interlinear annotation characters.
fn unseen(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// `name(a,b)` (`~` first when negative), `_` for an unbound argument; entities as
/// [`shown_entity`] writes them, so that an entity named `_` is `"_"`.
pub fn literal_text(schema: &Schema, names: &Interner, rel: usize, negative: bool, args: &[Option<i64>]) -> String {
    let info = &schema.relations[rel];
    let mut out = String::new();
    if negative {
        out.push('~');
    }
    out.push_str(info.name);
    out.push('(');
    for (i, (p, v)) in info.params.iter().zip(args).enumerate() {
        if i > 0 {
            out.push(',');
        }
        match v {
            None => out.push('_'),
            Some(v) if p.integer => out.push_str(&v.to_string()),
            Some(v) => out.push_str(&shown_entity(names.name(Sym(*v as u32)))),
        }
    }
    out.push(')');
    out
}

fn bound(args: &[i64]) -> Vec<Option<i64>> {
    args.iter().map(|&a| Some(a)).collect()
}

/// Answers `asked`: `walk(rule, row, trace)` runs rule `rule`'s generated walk for the literal
/// of flat row `[case, args..]` and sign of the rule's head, `status(slot, row)` reads the final
/// relations of `slot(rel, negative)`.
pub fn answer(
    schema: &Schema,
    names: &Interner,
    asked: &Asked,
    walk: &dyn Fn(usize, &[i64], &mut Trace),
    status: &dyn Fn(usize, &[i64]) -> Status,
) -> WhyNot {
    let (rel, neg) = (asked.rel as usize, asked.negative);
    let row = asked.row();
    let text = |rel: usize, negative: bool, args: &[Option<i64>]| literal_text(schema, names, rel, negative, args);
    let own = status(slot(rel, neg), &row);
    let mut answer = WhyNot {
        literal: text(rel, neg, &bound(&asked.args)),
        concluded: own.concluded,
        definite: own.definite,
        reasons: Vec::new(),
    };
    if own.concluded {
        return answer;
    }
    let traces = |negative: bool| -> Vec<(usize, Trace)> {
        let rules = schema.rules.iter().enumerate().filter(|(_, r)| r.head == asked.rel && r.negative == negative);
        rules
            .map(|(ri, _)| {
                let mut t = Trace::default();
                walk(ri, &row, &mut t);
                (ri, t)
            })
            .filter(|(_, t)| t.matched())
            .collect()
    };
    let (mine, theirs) = (traces(neg), traces(!neg));
    let beats = |t: usize, s: usize| schema.priorities.iter().any(|p| p.higher as usize == t && p.lower as usize == s);
    let is_defeater = |r: usize| schema.rules[r].strength == "defeater";
    let winners: Vec<usize> = mine.iter().filter(|(r, t)| t.applicable && !is_defeater(*r)).map(|(r, _)| *r).collect();
    let unbeaten: Vec<usize> = theirs
        .iter()
        .filter(|(s, t)| t.applicable && !winners.iter().any(|&w| beats(w, *s)))
        .map(|(s, _)| *s)
        .collect();
    for (ri, t) in &mine {
        let source = Source::Rule(*ri);
        let mut push = |kind| answer.reasons.push(Reason { source, kind });
        // A binding with no failing item makes the rule applicable: what failed for other
        // bindings does not matter then.
        if t.applicable {
            if is_defeater(*ri) {
                push(ReasonKind::Defeater);
            } else {
                for &by in &unbeaten {
                    push(ReasonKind::Attacked { by });
                }
            }
            continue;
        }
        for f in &t.failures {
            push(match f {
                Failure::Premise { rel, negative, args, supported: false } => {
                    ReasonKind::PremiseNotConcluded { premise: text(*rel as usize, *negative, args) }
                }
                Failure::Premise { rel, negative, args, supported: true } => {
                    ReasonKind::PremiseNotSupported { premise: text(*rel as usize, *negative, args) }
                }
                Failure::Negation { rel, negative, args } => {
                    ReasonKind::NegationConcluded { premise: text(*rel as usize, *negative, args) }
                }
                Failure::Comparison { text, values } => {
                    ReasonKind::ComparisonFalse { comparison: comparison_text(names, text, values) }
                }
            });
        }
        if t.omitted > 0 {
            push(ReasonKind::More { count: t.omitted });
        }
    }
    let mut closed = false;
    if neg {
        for (ci, c) in schema.closures.iter().enumerate().filter(|(_, c)| c.rel == asked.rel) {
            closed = true;
            let source = Source::Closure(ci);
            let positive = text(rel, false, &bound(&asked.args));
            if status(slot(rel, false), &row).supported {
                answer.reasons.push(Reason { source, kind: ReasonKind::Supported { premise: positive } });
            } else if !status(slot(c.domain as usize, false), &row).concluded {
                let premise = text(c.domain as usize, false, &bound(&asked.args));
                answer.reasons.push(Reason { source, kind: ReasonKind::PremiseNotConcluded { premise } });
            }
        }
    }
    if status(slot(rel, !neg), &row).definite {
        let complement = text(rel, !neg, &bound(&asked.args));
        answer.reasons.push(Reason { source: Source::None, kind: ReasonKind::ComplementDefinite { complement } });
    }
    if mine.is_empty() && !closed {
        answer.reasons.push(Reason { source: Source::None, kind: ReasonKind::NoRule });
    }
    answer
}

fn comparison_text(names: &Interner, text: &[String], values: &[Shown]) -> String {
    let mut out = String::new();
    for (i, piece) in text.iter().enumerate() {
        out.push_str(piece);
        match values.get(i) {
            Some(Shown::Int(v)) => out.push_str(&v.to_string()),
            Some(Shown::Name(v)) => out.push_str(&shown_entity(names.name(Sym(*v as u32)))),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::shown_entity;

    /// An entity named `_` cannot be read as the unbound `_`, and one holding a character a
    /// reader would not see shows it as an escape; every quoted name reads back as the entity.
    #[test]
    fn entities_that_read_as_something_else_are_quoted_and_escaped() {
        assert_eq!(shown_entity("w"), "w");
        assert_eq!(shown_entity("a,b"), "\"a,b\"");
        assert_eq!(shown_entity("_"), "\"_\"");
        assert_eq!(shown_entity("__"), "__");
        assert_eq!(shown_entity("g\u{202e}x"), "\"g\\u202ex\"");
        for name in ["_", "g\u{202e}x", "a\u{200b}\u{2066}\u{feff}\u{ad}b", "c\u{9b}1m\u{7f}", "d\u{1b}[2J\n"] {
            let shown = shown_entity(name);
            assert!(shown.chars().all(|c| !c.is_control() && c.is_ascii() || c.is_alphanumeric()), "{shown:?}");
            assert_eq!(serde_json::from_str::<String>(&shown).unwrap(), name, "{shown}");
        }
    }
}
