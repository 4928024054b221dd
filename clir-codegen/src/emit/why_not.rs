//! Why not and explanations as data: per rule, a `clir::rt::rules::Rule` (its variables, head,
//! body and why-not walk as the plan orders it, relations by their `REL_*` constants), read by
//! code compiled once in the runtime; per relation and sign, its final layers; and `why_not`,
//! answering an asked literal over them.

use super::{lit, Emitter, Layer};
use crate::ir::CmpOp;
use crate::plan::why_not::{HeadArg, WhyStep};
use crate::plan::Read;
use crate::resolve::{RItem, RLiteral, RTerm, Ty};
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter<'_> {
    /// `RULES`, `LAYERS` and `why_not`.
    pub(super) fn why_not_fns(&mut self) -> TokenStream {
        let p = self.p;
        let table: String = (0..p.rules.len()).map(|ri| format!("        {},\n", self.rule_data(ri))).collect();
        let rules = self.verbatim(format!(
            "/// Per rule, as data: its variables, head, body and why-not walk (`clir::rt::rules`), one a\n\
             /// line in the order of the `RULE_*` constants.\n\
             static RULES: ::clir::rt::RuleTable = {{\n    \
             #[allow(unused_imports)]\n    \
             use ::clir::rt::rules::{{Cmp, HeadArg, Item, Literal, Rule, Step, Term}};\n    \
             ::clir::rt::RuleTable::new(&[\n{table}    ])\n}};\n"
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
            split.base_items.extend(std::mem::take(&mut layers));
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

    /// Rule `ri` as the `Rule` of `clir::rt::rules`, on one line: relations by their `REL_*`
    /// constants, texts through the one escaping function.
    fn rule_data(&self, ri: usize) -> String {
        let rule = &self.p.rules[ri];
        let wp = &self.plan.why_not[ri];
        let list = |items: Vec<String>| items.join(", ");
        let numbers = |xs: &[usize]| list(xs.iter().map(usize::to_string).collect());
        let integer = list(rule.vars.iter().map(|(_, ty)| (*ty == Ty::Integer).to_string()).collect());
        let binding = numbers(&self.plan.rules[ri].binding);
        let head = self.literal_data(ri, &rule.head);
        let body = list(
            rule.body
                .iter()
                .map(|item| match item {
                    RItem::Literal(status, l) => {
                        let supported = *status == crate::ir::Status::Supported;
                        format!("Item::Premise({supported}, {})", self.literal_data(ri, l))
                    }
                    RItem::Not(l) => format!("Item::Not({})", self.literal_data(ri, l)),
                    RItem::Comparison(op, a, b) => {
                        format!(
                            "Item::Compare(Cmp::{}, {}, {})",
                            cmp(*op),
                            self.term_data(ri, *a),
                            self.term_data(ri, *b)
                        )
                    }
                })
                .collect(),
        );
        let head_args = list(
            wp.head
                .iter()
                .map(|h| match *h {
                    HeadArg::Bind(v) => format!("HeadArg::Bind({v})"),
                    HeadArg::Equal(v) => format!("HeadArg::Equal({v})"),
                    HeadArg::Value(t) => format!("HeadArg::Value({})", self.term_data(ri, t)),
                    HeadArg::Computed(_) => "HeadArg::Computed".to_string(),
                })
                .collect(),
        );
        let supported = |r: Read| r == Read::Supported;
        let steps = list(
            wp.steps
                .iter()
                .map(|step| match step {
                    WhyStep::False => "Step::False".to_string(),
                    WhyStep::Decided { item } => {
                        let RItem::Comparison(op, a, b) = &rule.body[*item] else { unreachable!("a comparison") };
                        let r = self.renamed(ri);
                        let text = format!("{} {} {}", self.p.show_term(&r, *a), op.symbol(), self.p.show_term(&r, *b));
                        format!("Step::Decided({})", lit(&text))
                    }
                    WhyStep::Test { item, read } => {
                        format!("Step::Test {{ item: {item}, supported: {} }}", supported(*read))
                    }
                    WhyStep::Each { item, read, prefix, bound } => format!(
                        "Step::Each {{ item: {item}, supported: {}, prefix: {prefix}, bound: &[{}] }}",
                        supported(*read),
                        numbers(bound)
                    ),
                    WhyStep::Compare { item } => {
                        let RItem::Comparison(op, a, b) = &rule.body[*item] else { unreachable!("a comparison") };
                        let (mut pieces, mut vars) = (vec![String::new()], Vec::new());
                        self.comparison_pieces(ri, *a, false, &mut pieces, &mut vars);
                        pieces.last_mut().expect("a piece").push_str(&format!(" {} ", op.symbol()));
                        self.comparison_pieces(ri, *b, false, &mut pieces, &mut vars);
                        let pieces = list(pieces.iter().map(|piece| lit(piece)).collect());
                        format!("Step::Compare {{ item: {item}, pieces: &[{pieces}], vars: &[{}] }}", numbers(&vars))
                    }
                    WhyStep::Negation { item, bound } => {
                        format!("Step::Negation {{ item: {item}, bound: &[{}] }}", numbers(bound))
                    }
                    WhyStep::Head { arg } => format!("Step::Head({arg})"),
                })
                .collect(),
        );
        format!(
            "Rule {{ integer: &[{integer}], binding: &[{binding}], head: {head}, body: &[{body}], \
             head_args: &[{head_args}], steps: &[{steps}] }}"
        )
    }

    /// Literal `l` of rule `ri` as a `Literal`, its relation by its `REL_*` constant.
    fn literal_data(&self, ri: usize, l: &RLiteral) -> String {
        let args: Vec<String> = l.args.iter().map(|a| self.term_data(ri, *a)).collect();
        format!("Literal::new({}, {}, &[{}])", self.rel_const(l.rel), l.negative, args.join(", "))
    }

    /// Term `t` of rule `ri` as a `Term`: a variable, a flat value (a constant's interned id is
    /// its index: the interner starts with the constants) or an operator and its two terms.
    fn term_data(&self, ri: usize, t: RTerm) -> String {
        match t {
            RTerm::Var(v) => format!("Term::Var({v})"),
            RTerm::Const(c) => format!("Term::Value({c})"),
            RTerm::Int(i) => format!("Term::Value({i})"),
            RTerm::Str(i) => format!("Term::Value({})", self.string_sym[i]),
            RTerm::Arith(i) => {
                let (op, a, b) = self.p.rules[ri].ariths[i];
                format!("Term::Arith(b'{}', &{}, &{})", op.symbol(), self.term_data(ri, a), self.term_data(ri, b))
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

/// The `clir::rt::rules::Cmp` variant of `op`.
fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "Eq",
        CmpOp::Ne => "Ne",
        CmpOp::Lt => "Lt",
        CmpOp::Le => "Le",
        CmpOp::Gt => "Gt",
        CmpOp::Ge => "Ge",
    }
}
