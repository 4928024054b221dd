//! Why not: per rule, its why-not walk as the plan orders it (a function telling a
//! `clir::Trace` each failing item of each binding); per relation and sign, where a tuple stands
//! in the final layers; and `why_not`, answering an asked literal with both.

use super::{Emitter, Layer};
use crate::plan::why_not::{HeadArg, WhyNotPlan, WhyStep};
use crate::plan::Read;
use crate::resolve::{RItem, RLiteral, RTerm, Ty};
use crate::text::string_literal;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The identifier of rule `ri`'s why-not walk.
    fn why_not_fn_name(&self, ri: usize) -> Ident {
        format_ident!("why_not_{}", self.names.rules[ri])
    }

    /// `why_not`, its tables, and every rule's walk.
    pub(super) fn why_not_fns(&mut self) -> TokenStream {
        let p = self.p;
        let mut out = TokenStream::new();
        for ri in 0..p.rules.len() {
            let comment = self.comment(format!("Why not, by {}: {}", p.rules[ri].id, p.show_rule(&self.renamed(ri))));
            let f = self.why_not_fn(&self.plan.why_not[ri].clone());
            out.extend(quote! { #comment #f });
        }
        let walks = (0..p.rules.len()).map(|ri| self.why_not_fn_name(ri));
        let n_rules = Literal::usize_unsuffixed(p.rules.len());
        let status = (0..p.relations.len()).flat_map(|rel| {
            [false, true].map(|neg| {
                let [d, s, c] =
                    [Layer::Definite, Layer::Supported, Layer::Concluded].map(|k| self.layer_name(rel, neg, k));
                if d == s && s == c {
                    quote!(|l, row| ::clir::rt::status_of(&l.#c, row))
                } else {
                    quote!(|l, row| ::clir::rt::status(&l.#d, &l.#s, &l.#c, row))
                }
            })
        });
        let n_slots = Literal::usize_unsuffixed(2 * p.relations.len());
        out.extend(quote! {
            /// Per rule: its why-not walk.
            const WHY_NOT: [fn(&Layers, &[i64], &mut ::clir::Trace); #n_rules] = [#(#walks),*];

            /// Per relation and sign (`::clir::slot`): where a tuple `[case, args..]` stands.
            const STATUS: [fn(&Layers, &[i64]) -> ::clir::Status; #n_slots] = [#(#status),*];

            /// Whether the literal `asked` is concluded over the final layers `l`, and if not why.
            fn why_not(l: &Layers, names: &::clir::Interner, asked: &::clir::Asked) -> ::clir::WhyNot {
                ::clir::why_not::answer(
                    &SCHEMA,
                    names,
                    asked,
                    &|rule, row, t| WHY_NOT[rule](l, row, t),
                    &|slot, row| STATUS[slot](l, row),
                )
            }
        });
        out
    }

    /// The why-not walk of one rule: the asked row binds the head, then the steps.
    fn why_not_fn(&self, wp: &WhyNotPlan) -> TokenStream {
        let ri = wp.rule;
        let rule = &self.p.rules[ri];
        let name = self.why_not_fn_name(ri);
        let mut head = TokenStream::new();
        let uses_case = wp
            .steps
            .iter()
            .any(|s| matches!(s, WhyStep::Test { .. } | WhyStep::Each { .. } | WhyStep::Negation { .. }));
        if uses_case {
            head.extend(quote! { let case = ::clir::CaseId(row[0] as u32); });
        }
        for (j, h) in wp.head.iter().enumerate() {
            let col = Literal::usize_unsuffixed(j + 1);
            match *h {
                HeadArg::Bind(v) => {
                    let (id, ty) = (self.var(ri, v), self.ty(rule.vars[v].1));
                    head.extend(quote! { let #id = #ty::from_flat(row[#col]); });
                }
                HeadArg::Equal(v) => {
                    let id = self.var(ri, v);
                    head.extend(quote! { if row[#col] != #id.to_flat() { return; } });
                }
                HeadArg::Value(t) => {
                    let val = self.term(ri, t);
                    head.extend(quote! { if row[#col] != #val.to_flat() { return; } });
                }
                HeadArg::Computed(_) => {}
            }
        }
        let row = if wp.head.is_empty() && !uses_case { quote!(_row) } else { quote!(row) };
        let body = self.why_not_steps(wp, 0, &mut Vec::new(), false);
        quote! {
            #[inline(never)]
            fn #name(l: &Layers, #row: &[i64], t: &mut ::clir::Trace) {
                #head
                #body
            }
        }
    }

    /// The literal of body item `item` of rule `ri`.
    fn item_literal(&self, ri: usize, item: usize) -> &RLiteral {
        match &self.p.rules[ri].body[item] {
            RItem::Literal(_, l) | RItem::Not(l) => l,
            RItem::Comparison(..) => unreachable!("a literal item"),
        }
    }

    /// `&[Some(a), None, ..]`: the literal's arguments, `None` where not in `bound` columns.
    fn shown_args(&self, ri: usize, l: &RLiteral, bound: &[usize]) -> TokenStream {
        let args = l.args.iter().enumerate().map(|(j, a)| {
            if !bound.contains(&j) {
                return quote!(None);
            }
            let v = self.term(ri, *a);
            quote!(Some(#v.to_flat()))
        });
        quote!(&[#(#args),*])
    }

    /// The pattern of a loop over `l`'s tuples with `bound` columns known: `_` for the first
    /// `prefix` (the key), a new variable binds, anything else is `a_<j>`, and the pairs that
    /// must be equal for a tuple to agree with what is bound. An unbound variable's first column binds
    /// it when `bind` holds it (`_` when it is needed nowhere); otherwise it is `a_<j>` too (a
    /// negation's own variable).
    fn why_not_pattern(
        &self,
        ri: usize,
        l: &RLiteral,
        prefix: usize,
        bound: &[usize],
        bind: Option<&[usize]>,
    ) -> (Vec<TokenStream>, Vec<(TokenStream, TokenStream)>) {
        let (mut pats, mut agrees) = (Vec::new(), Vec::new());
        let mut first: Vec<(usize, Ident)> = Vec::new();
        for (j, a) in l.args.iter().enumerate() {
            if j < prefix {
                pats.push(quote!(_));
                continue;
            }
            let fresh = format_ident!("a_{}", j);
            if bound.contains(&j) {
                let val = self.term(ri, *a);
                agrees.push((quote!(#fresh), val));
                pats.push(quote!(#fresh));
                continue;
            }
            let RTerm::Var(v) = *a else { unreachable!("an unbound column holds a variable") };
            match first.iter().find(|(w, _)| *w == v) {
                Some((_, id)) => {
                    agrees.push((quote!(#fresh), quote!(#id)));
                    pats.push(quote!(#fresh));
                }
                None => {
                    let repeated = l.args[j + 1..].contains(a);
                    match bind {
                        Some(needed) if !needed.contains(&v) && !repeated => pats.push(quote!(_)),
                        Some(_) => {
                            let id = self.var(ri, v);
                            first.push((v, id.clone()));
                            pats.push(quote!(#id));
                        }
                        None => {
                            first.push((v, fresh.clone()));
                            pats.push(quote!(#fresh));
                        }
                    }
                }
            }
        }
        (pats, agrees)
    }

    /// `Probe::new(&l.layer).seek((case, key..), ..)`: the tuples whose first `prefix` columns
    /// are the bound values.
    fn why_not_range(&self, ri: usize, layer: &Ident, l: &RLiteral, prefix: usize) -> TokenStream {
        let vals = l.args[..prefix].iter().map(|a| self.term(ri, *a));
        let fields = (0..=prefix).map(Literal::usize_unsuffixed);
        quote!(::clir::rt::Probe::new(&l.#layer).seek((case, #(#vals,)*), |tuple| (#(tuple.#fields,)*)))
    }

    /// The final layer a body literal is asked in.
    fn why_not_layer(&self, l: &RLiteral, read: Read) -> Ident {
        let layer = if read == Read::Supported { Layer::Supported } else { Layer::Concluded };
        self.layer_name(l.rel, l.negative, layer)
    }

    /// The code of steps `k..` of `wp`, inside the loops of the steps before; `oks` are the
    /// flags of the tests so far, `in_loop` whether a loop encloses it.
    fn why_not_steps(&self, wp: &WhyNotPlan, k: usize, oks: &mut Vec<Ident>, in_loop: bool) -> TokenStream {
        let ri = wp.rule;
        let rule = &self.p.rules[ri];
        let Some(step) = wp.steps.get(k) else {
            return if oks.is_empty() { quote!(t.applicable();) } else { quote!(if #(#oks)&&* { t.applicable(); }) };
        };
        let ok = format_ident!("ok_{}", k);
        let report = |read: Read| if read == Read::Supported { quote!(supported) } else { quote!(premise) };
        let here = match step {
            WhyStep::False => return quote!(t.comparison(&["false"], &[]);),
            WhyStep::Decided { item } => {
                let RItem::Comparison(op, a, b) = &rule.body[*item] else { unreachable!("a comparison") };
                let r = self.renamed(ri);
                let text = format!("{} {} {}", self.p.show_term(&r, *a), op.symbol(), self.p.show_term(&r, *b));
                let text = string_literal(&text);
                quote!(t.comparison(&[#text], &[]);)
            }
            WhyStep::Test { item, read } => {
                let l = self.item_literal(ri, *item);
                let (layer, rel, neg) = (self.why_not_layer(l, *read), self.rel_const(l.rel), l.negative);
                let vals = l.args.iter().map(|a| self.term(ri, *a));
                let test = if *read == Read::Supported { quote!(test_supported) } else { quote!(test) };
                oks.push(ok.clone());
                quote! {
                    let #ok = t.#test(&l.#layer, (case, #(#vals,)*), #rel, #neg);
                }
            }
            WhyStep::Each { item, read, prefix, bound } => {
                let l = self.item_literal(ri, *item);
                let (layer, rel, neg) = (self.why_not_layer(l, *read), self.rel_const(l.rel), l.negative);
                let range = self.why_not_range(ri, &layer, l, *prefix);
                let needed = self.why_not_needed(wp, k + 1);
                let (pats, agrees) = self.why_not_pattern(ri, l, *prefix, bound, Some(&needed));
                let differs = agrees.iter().map(|(a, b)| quote!(#a != #b));
                let skip = (!agrees.is_empty()).then(|| quote!(if #(#differs)||* { continue; }));
                let any = format_ident!("any_{}", k);
                let (how, shown) = (report(*read), self.shown_args(ri, l, bound));
                let inner = self.why_not_steps(wp, k + 1, &mut oks.clone(), true);
                return quote! {
                    let mut #any = false;
                    for &(_, #(#pats,)*) in #range {
                        #skip
                        #any = true;
                        #inner
                    }
                    if !#any {
                        t.#how(#rel, #neg, #shown);
                    }
                };
            }
            WhyStep::Compare { item } => {
                let RItem::Comparison(op, a, b) = &rule.body[*item] else { unreachable!("a comparison") };
                let (mut pieces, mut vars) = (vec![String::new()], Vec::new());
                self.comparison_pieces(ri, *a, false, &mut pieces, &mut vars);
                pieces.last_mut().expect("a piece").push_str(&format!(" {} ", op.symbol()));
                self.comparison_pieces(ri, *b, false, &mut pieces, &mut vars);
                let pieces = pieces.iter().map(|s| string_literal(s));
                let shown = vars.iter().map(|&v| {
                    let id = self.var(ri, v);
                    match rule.vars[v].1 {
                        Ty::Integer => quote!(::clir::Shown::Int(#id)),
                        _ => quote!(::clir::Shown::Name(#id.to_flat())),
                    }
                });
                let (a, b) = (self.term(ri, *a), self.term(ri, *b));
                let op: TokenStream = op.symbol().parse().expect("operator");
                oks.push(ok.clone());
                quote! {
                    let #ok = #a #op #b || t.comparison(&[#(#pieces),*], &[#(#shown),*]);
                }
            }
            WhyStep::Negation { item, bound } => {
                let l = self.item_literal(ri, *item);
                let (layer, rel, neg) = (self.why_not_layer(l, Read::Negated), self.rel_const(l.rel), l.negative);
                if bound.len() == l.args.len() {
                    let vals = l.args.iter().map(|a| self.term(ri, *a));
                    oks.push(ok.clone());
                    let rest = self.why_not_steps(wp, k + 1, oks, in_loop);
                    return quote! {
                        let #ok = t.test_absent(&l.#layer, (case, #(#vals,)*), #rel, #neg);
                        #rest
                    };
                }
                let shown = self.shown_args(ri, l, bound);
                let holds = {
                    let prefix = bound.iter().enumerate().take_while(|(i, &c)| *i == c).count();
                    let range = self.why_not_range(ri, &layer, l, prefix);
                    let (pats, agrees) = self.why_not_pattern(ri, l, prefix, bound, None);
                    if agrees.is_empty() {
                        quote!(!#range.is_empty())
                    } else {
                        let equal = agrees.iter().map(|(a, b)| quote!(#a == #b));
                        quote!(#range.iter().any(|&(_, #(#pats,)*)| #(#equal)&&*))
                    }
                };
                oks.push(ok.clone());
                quote! {
                    let #ok = !#holds || t.negation(#rel, #neg, #shown);
                }
            }
            WhyStep::Head { arg } => {
                let col = Literal::usize_unsuffixed(arg + 1);
                let val = self.term(ri, rule.head.args[*arg]);
                let leave = if in_loop { quote!(continue) } else { quote!(return) };
                quote! {
                    if row[#col] != #val.to_flat() { #leave; }
                }
            }
        };
        let rest = self.why_not_steps(wp, k + 1, oks, in_loop);
        quote! { #here #rest }
    }

    /// The variables steps `k..` of `wp` read.
    fn why_not_needed(&self, wp: &WhyNotPlan, k: usize) -> Vec<usize> {
        let rule = &self.p.rules[wp.rule];
        let mut out = Vec::new();
        for step in &wp.steps[k..] {
            match step {
                WhyStep::Test { item, .. }
                | WhyStep::Each { item, .. }
                | WhyStep::Compare { item }
                | WhyStep::Negation { item, .. } => match &rule.body[*item] {
                    RItem::Literal(_, l) | RItem::Not(l) => out.extend(l.vars()),
                    RItem::Comparison(_, a, b) => {
                        rule.term_vars(*a, &mut out);
                        rule.term_vars(*b, &mut out);
                    }
                },
                WhyStep::Head { arg } => rule.term_vars(rule.head.args[*arg], &mut out),
                WhyStep::False | WhyStep::Decided { .. } => {}
            }
        }
        out
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
