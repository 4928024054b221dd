//! Why not and explanations as data: per rule, one line of text (`clir::rt::rules`: its
//! variables, head, body and why-not walk as the plan orders it), read by code compiled once in
//! the runtime; per relation and sign, its final layers; and `why_not`, answering an asked
//! literal over them.

use super::{lit, Emitter, Layer};
use crate::plan::why_not::{HeadArg, WhyStep};
use crate::plan::Read;
use crate::resolve::{RItem, RLiteral, RTerm, Ty};
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter<'_> {
    /// `RULES`, `LAYERS` and `why_not`.
    pub(super) fn why_not_fns(&mut self) -> TokenStream {
        let p = self.p;
        let texts: String = (0..p.rules.len()).map(|ri| format!("    {},\n", lit(&self.rule_text(ri)))).collect();
        let rules = self.verbatim(format!(
            "/// Per rule, as data: its variables, head, body and why-not walk (`clir::rt::rules`).\n\
             static RULES: ::clir::rt::RuleTable = ::clir::rt::RuleTable::new(&[\n{texts}]);\n"
        ));
        // One line a relation: its positive, then its negative literal's slots.
        let mut entries = String::new();
        for rel in 0..p.relations.len() {
            let [pos, neg] = [false, true].map(|neg| {
                let [d, s, c] =
                    [Layer::Definite, Layer::Supported, Layer::Concluded].map(|k| self.layer_name(rel, neg, k));
                if d == s && s == c {
                    format!("[layer::{c}.id(); 3]")
                } else {
                    format!("[layer::{d}.id(), layer::{s}.id(), layer::{c}.id()]")
                }
            });
            entries.push_str(&format!("    {pos}, {neg},\n"));
        }
        // It changes with the relations only: split into crates, the base crate's.
        let vis = if self.split.is_some() { "pub " } else { "" };
        let mut layers = self.verbatim(format!(
            "/// Per relation and sign (`::clir::slot`): the slots of its final `+D`, `+S` and `+d`.\n\
             {vis}const LAYERS: [[usize; 3]; {}] = [\n{entries}];\n",
            2 * p.relations.len()
        ));
        if let Some(split) = &mut self.split {
            split.io_items.extend(std::mem::take(&mut layers));
        }
        quote! {
            #rules

            #layers

            /// Whether the literal `asked` is concluded over the final layers `l`, and if not why.
            fn why_not(l: &::clir::rt::Layers, names: &::clir::Interner, asked: &::clir::Asked) -> ::clir::WhyNot {
                let layers = |slot: usize| l.finals(LAYERS[slot]);
                ::clir::why_not::answer(
                    &SCHEMA,
                    names,
                    asked,
                    &|rule, row, t| RULES.walk(rule, row, t, &layers),
                    &|slot, row| ::clir::rt::rules::status(layers(slot), row),
                )
            }
        }
    }

    /// Rule `ri` as the text `clir::rt::rules` reads.
    fn rule_text(&self, ri: usize) -> String {
        let rule = &self.p.rules[ri];
        let wp = &self.plan.why_not[ri];
        let mut out = String::new();
        let types: String = rule.vars.iter().map(|(_, ty)| if *ty == Ty::Integer { 'i' } else { 'n' }).collect();
        out.push_str(&format!("{} {}", rule.vars.len(), if types.is_empty() { "-" } else { &types }));
        let binding = &self.plan.rules[ri].binding;
        out.push_str(&format!(" {}", binding.len()));
        for v in binding {
            out.push_str(&format!(" {v}"));
        }
        self.literal_text(ri, &rule.head, &mut out);
        out.push_str(&format!(" {}", rule.body.len()));
        for item in &rule.body {
            match item {
                RItem::Literal(status, l) => {
                    let read = if *status == crate::ir::Status::Supported { "S" } else { "E" };
                    out.push_str(&format!(" L {read}"));
                    self.literal_text(ri, l, &mut out);
                }
                RItem::Not(l) => {
                    out.push_str(" N");
                    self.literal_text(ri, l, &mut out);
                }
                RItem::Comparison(op, a, b) => {
                    out.push_str(&format!(" C {}", op.symbol()));
                    self.term_text(ri, *a, &mut out);
                    self.term_text(ri, *b, &mut out);
                }
            }
        }
        out.push_str(&format!(" {}", wp.head.len()));
        for h in &wp.head {
            match *h {
                HeadArg::Bind(v) => out.push_str(&format!(" B {v}")),
                HeadArg::Equal(v) => out.push_str(&format!(" Q {v}")),
                HeadArg::Value(t) => {
                    out.push_str(" X");
                    self.term_text(ri, t, &mut out);
                }
                HeadArg::Computed(_) => out.push_str(" P"),
            }
        }
        out.push_str(&format!(" {}", wp.steps.len()));
        let read = |r: Read| if r == Read::Supported { "S" } else { "E" };
        let list = |out: &mut String, xs: &[usize]| {
            out.push_str(&format!(" {}", xs.len()));
            for x in xs {
                out.push_str(&format!(" {x}"));
            }
        };
        let text = |out: &mut String, s: &str| {
            out.push_str(&format!(" {}:{s}", s.len()));
        };
        for step in &wp.steps {
            match step {
                WhyStep::False => out.push_str(" F"),
                WhyStep::Decided { item } => {
                    let RItem::Comparison(op, a, b) = &rule.body[*item] else { unreachable!("a comparison") };
                    let r = self.renamed(ri);
                    out.push_str(" D");
                    text(
                        &mut out,
                        &format!("{} {} {}", self.p.show_term(&r, *a), op.symbol(), self.p.show_term(&r, *b)),
                    );
                }
                WhyStep::Test { item, read: r } => out.push_str(&format!(" T {item} {}", read(*r))),
                WhyStep::Each { item, read: r, prefix, bound } => {
                    out.push_str(&format!(" E {item} {} {prefix}", read(*r)));
                    list(&mut out, bound);
                }
                WhyStep::Compare { item } => {
                    let RItem::Comparison(op, a, b) = &rule.body[*item] else { unreachable!("a comparison") };
                    let (mut pieces, mut vars) = (vec![String::new()], Vec::new());
                    self.comparison_pieces(ri, *a, false, &mut pieces, &mut vars);
                    pieces.last_mut().expect("a piece").push_str(&format!(" {} ", op.symbol()));
                    self.comparison_pieces(ri, *b, false, &mut pieces, &mut vars);
                    out.push_str(&format!(" C {item} {}", pieces.len()));
                    for piece in &pieces {
                        text(&mut out, piece);
                    }
                    list(&mut out, &vars);
                }
                WhyStep::Negation { item, bound } => {
                    out.push_str(&format!(" N {item}"));
                    list(&mut out, bound);
                }
                WhyStep::Head { arg } => out.push_str(&format!(" H {arg}")),
            }
        }
        out
    }

    /// Appends ` REL NEG ARITY term..` of literal `l` of rule `ri`.
    fn literal_text(&self, ri: usize, l: &RLiteral, out: &mut String) {
        out.push_str(&format!(" {} {} {}", l.rel, u8::from(l.negative), l.args.len()));
        for a in &l.args {
            self.term_text(ri, *a, out);
        }
    }

    /// Appends ` term` of term `t` of rule `ri`: `vN`, `=VALUE` (flat) or an operator and its
    /// two terms.
    fn term_text(&self, ri: usize, t: RTerm, out: &mut String) {
        match t {
            // A constant's interned id is its index: the interner starts with the constants.
            RTerm::Var(v) => out.push_str(&format!(" v{v}")),
            RTerm::Const(c) => out.push_str(&format!(" ={c}")),
            RTerm::Int(i) => out.push_str(&format!(" ={i}")),
            RTerm::Str(i) => out.push_str(&format!(" ={}", self.string_sym[i])),
            RTerm::Arith(i) => {
                let (op, a, b) = self.p.rules[ri].ariths[i];
                out.push_str(&format!(" {}", op.symbol()));
                self.term_text(ri, a, out);
                self.term_text(ri, b, out);
            }
        }
    }

    /// Appends term `t` of rule `ri` to the comparison text `pieces`, a variable ending the
    /// current piece (and listed in `vars`).
    fn comparison_pieces(&self, ri: usize, t: RTerm, nested: bool, pieces: &mut Vec<String>, vars: &mut Vec<usize>) {
        match t {
            RTerm::Var(v) => {
                vars.push(v);
                pieces.push(String::new());
            }
            RTerm::Arith(i) => {
                let (op, a, b) = self.p.rules[ri].ariths[i];
                let last = |pieces: &mut Vec<String>, s: &str| pieces.last_mut().expect("a piece").push_str(s);
                if nested {
                    last(pieces, "(");
                }
                self.comparison_pieces(ri, a, true, pieces, vars);
                last(pieces, &format!(" {} ", op.symbol()));
                self.comparison_pieces(ri, b, true, pieces, vars);
                if nested {
                    last(pieces, ")");
                }
            }
            other => {
                let text = self.p.show_term(&self.p.rules[ri], other);
                pieces.last_mut().expect("a piece").push_str(&text);
            }
        }
    }
}
