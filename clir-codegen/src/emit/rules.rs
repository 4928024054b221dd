//! One function per rule: the chain of datafrog leapjoins the plan gives it, over its operands,
//! yielding the rule's heads and, when asked (`bindings`), recording every binding of its
//! variables from the last leapjoin's logic closure. Each layer of evaluation, each round of a
//! recursive stratum and each explanation calls the same function with the relations it reads.

use super::{ident, tuple, Emitter};
use crate::names::ModuleNames;
use crate::plan::{Access, RulePlan, Test, View};
use crate::resolve::{RItem, RTerm};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

/// One column of a [`Pattern`].
enum Col {
    /// Not read: `_`.
    Skip,
    /// The case, `case`.
    Case,
    /// Binds a variable of the rule.
    Var(Ident, usize),
    /// A value that must equal a term, tested by one of the pattern's conditions.
    Fresh(Ident),
}

/// A pattern over a tuple of an operand, and what its columns must meet besides.
struct Pattern {
    cols: Vec<Col>,
    /// Per column that is [`Col::Fresh`], the condition that it equals its term.
    conds: Vec<TokenStream>,
    /// The variables the conditions read.
    cond_vars: Vec<usize>,
}

/// What the body of a closure over patterns reads of them: the case and variables of the rule.
#[derive(Default)]
struct Uses {
    case: bool,
    vars: Vec<usize>,
}

impl Pattern {
    fn new(cols: Vec<Col>) -> Pattern {
        Pattern { cols, conds: Vec::new(), cond_vars: Vec::new() }
    }

    /// The pattern for a closure whose body reads `uses`, and the pattern's own conditions
    /// when `conds`: what it does not read is `_`.
    fn within(&self, uses: &Uses, conds: bool) -> TokenStream {
        let items = self.cols.iter().map(|c| match c {
            Col::Case if uses.case => quote!(case),
            Col::Var(id, v) if uses.vars.contains(v) || (conds && self.cond_vars.contains(v)) => quote!(#id),
            Col::Fresh(id) if conds => quote!(#id),
            _ => quote!(_),
        });
        tuple(items.collect())
    }
}

impl Emitter<'_> {
    /// The function of every rule that can apply (split into crates, each in its group's crate).
    pub(super) fn rule_fns(&mut self) -> TokenStream {
        let mut out = TokenStream::new();
        for ri in 0..self.p.rules.len() {
            if self.plan.rules[ri].never {
                continue;
            }
            let comment = self.rule_comment(ri);
            let f = self.rule_fn(ri);
            let g = self.group_of_rule(ri);
            match &mut self.split {
                Some(split) => {
                    split.items[g].extend(quote! { #comment #f });
                }
                None => out.extend(quote! { #comment #f }),
            }
        }
        out
    }

    /// The group (crate) of stratum `si` where the package is split into crates; 0 otherwise.
    pub(super) fn group_of_stratum(&self, si: usize) -> usize {
        self.split.as_ref().map_or(0, |split| split.plan.group_of[si])
    }

    /// The group of rule `ri`: its head's stratum's.
    pub(super) fn group_of_rule(&self, ri: usize) -> usize {
        self.group_of_stratum(self.s.rels[self.p.rules[ri].head.rel].stratum)
    }

    /// The identifier of rule `ri`'s function.
    pub(super) fn rule_fn_name(&self, ri: usize) -> Ident {
        ident(&self.names.rule_fn(ri))
    }

    /// Rule `ri` with its variables named as in the code.
    pub(super) fn renamed(&self, ri: usize) -> crate::resolve::RRule {
        self.p.rules[ri].renamed(self.vars[ri].clone())
    }

    /// The comment over a rule: the lines that introduce it everywhere (id, strength, anchors,
    /// label, the rule as Datalog) and its leapjoins, with the variables named as in the code.
    fn rule_comment(&mut self, ri: usize) -> TokenStream {
        let r = self.renamed(ri);
        let rp = &self.plan.rules[ri];
        let [head, label, rule] = crate::datalog::rule_lines(self.p, &r);
        let mut text = format!("{head}\n{label}\n{rule}");
        for line in rp.show_joins(self.p, &r) {
            text.push('\n');
            text.push_str(&line);
        }
        self.comment(text)
    }

    /// The type of tuples `(CaseId, T..)` of rule `ri`'s variables `vars`.
    fn vars_ty(&self, ri: usize, vars: &[usize]) -> TokenStream {
        let rule = &self.p.rules[ri];
        tuple(std::iter::once(quote!(CaseId)).chain(vars.iter().map(|&v| self.ty(rule.vars[v].1))).collect())
    }

    /// The tuple `(case, v..)` of rule `ri`'s variables `vars`, as a pattern or an expression;
    /// `_` for a variable `used` does not hold, when given.
    pub(super) fn vars_tuple(&self, ri: usize, vars: &[usize], used: Option<&[usize]>) -> TokenStream {
        let items = vars.iter().map(|&v| {
            if used.is_some_and(|u| !u.contains(&v)) {
                quote!(_)
            } else {
                let id = self.var(ri, v);
                quote!(#id)
            }
        });
        tuple(std::iter::once(quote!(case)).chain(items).collect())
    }

    /// The pattern of a tuple of literal `args` whose columns are in `order`, its case bound as
    /// `case`: a key column (bound already) ignored, a variable's first column binds it, any
    /// other column is a fresh `<letter>_<column>` that must equal its term.
    fn columns(&self, ri: usize, args: &[RTerm], order: &[usize], key: &[usize], case: bool, letter: &str) -> Pattern {
        let mut p = Pattern::new(vec![if case { Col::Case } else { Col::Skip }]);
        let mut here: Vec<usize> = Vec::new();
        for &j in order {
            if key.contains(&j) {
                p.cols.push(Col::Skip);
                continue;
            }
            match args[j] {
                RTerm::Var(v) if !here.contains(&v) => {
                    here.push(v);
                    p.cols.push(Col::Var(self.var(ri, v), v));
                }
                other => {
                    let fresh = ident(&ModuleNames::column(letter, j));
                    let val = self.term(ri, other);
                    self.p.rules[ri].term_vars(other, &mut p.cond_vars);
                    p.conds.push(quote!(#fresh == #val));
                    p.cols.push(Col::Fresh(fresh));
                }
            }
        }
        p
    }

    /// Adds what `test` of rule `ri` reads from the tuples bound before it to `uses`.
    fn test_uses(&self, ri: usize, rp: &RulePlan, test: Test, uses: &mut Uses) {
        let rule = &self.p.rules[ri];
        match test {
            Test::Comparison(item) => uses.vars.extend(rule.filter_vars(&rule.body[item])),
            Test::Step(k) => {
                uses.case = true;
                let args = &rp.operands[rp.steps[k].operand].literal.args;
                match &rp.steps[k].access {
                    Access::Seek { key, .. } => key.iter().for_each(|&j| rule.term_vars(args[j], &mut uses.vars)),
                    _ => args.iter().for_each(|&t| rule.term_vars(t, &mut uses.vars)),
                }
            }
        }
    }

    /// What a tuple `(case, terms..)` of rule `ri` reads.
    fn terms_uses(&self, ri: usize, terms: impl IntoIterator<Item = RTerm>) -> Uses {
        let mut uses = Uses { case: true, ..Uses::default() };
        terms.into_iter().for_each(|t| self.p.rules[ri].term_vars(t, &mut uses.vars));
        uses
    }

    /// What operand `step` reads by its key (its view, or the operand itself), the order of its
    /// columns there, and its tuple type.
    fn keyed(&self, ri: usize, rp: &RulePlan, step: usize) -> (TokenStream, Vec<usize>, TokenStream) {
        let s = &rp.steps[step];
        match s.access {
            Access::Seek { view: Some(v), .. } => {
                let view = ident(&self.locals[ri].views[v]);
                (quote!(#view), rp.views[v].order.clone(), self.view_ty(rp, v))
            }
            _ => {
                let rel = rp.operands[s.operand].literal.rel;
                let n = self.p.relations[rel].params.len();
                let operand = ident(&self.locals[ri].operands[s.operand]);
                (quote!(#operand), (0..n).collect(), self.tuple_ty(rel))
            }
        }
    }

    /// The tuple type of view `v` of rule plan `rp`.
    fn view_ty(&self, rp: &RulePlan, v: usize) -> TokenStream {
        let params = &self.p.relations[rp.operands[rp.views[v].operand].literal.rel].params;
        let cols = rp.views[v].order.iter().map(|&j| self.ty(params[j].1));
        tuple(std::iter::once(quote!(CaseId)).chain(cols).collect())
    }

    /// View `view` of the relation `rows` (an expression of type `&Relation<_>`): the expression
    /// building it.
    pub(super) fn view_of(rows: &TokenStream, view: &View) -> TokenStream {
        let order = &view.order;
        let cols: Vec<Ident> = (0..order.len()).map(|j| ident(&ModuleNames::column("a", j))).collect();
        let reordered = order.iter().map(|&j| &cols[j]);
        let reorder = quote!(|&(case, #(#cols,)*)| (case, #(#reordered,)*));
        match view.least_by {
            None => quote!(::clir::rt::view(#rows, #reorder)),
            Some(n) => {
                let fields = (0..=n).map(Literal::usize_unsuffixed);
                quote!(::clir::rt::least_view(#rows, #reorder, |t| (#(t.#fields,)*)))
            }
        }
    }

    /// The Rust condition that comparison `item` of rule `ri` holds.
    fn comparison_holds(&self, ri: usize, item: usize) -> TokenStream {
        let RItem::Comparison(op, a, b) = &self.p.rules[ri].body[item] else { return quote!(true) };
        let (a, b) = (self.term(ri, *a), self.term(ri, *b));
        let op: TokenStream = op.symbol().parse().expect("operator");
        quote!(#a #op #b)
    }

    /// The Rust condition that `test` holds, once its variables are bound: a comparison, a
    /// membership test, or a negation; a membership test gallops through its operand's probe
    /// when `probed`, else is one binary search.
    fn test_holds(&self, ri: usize, rp: &RulePlan, test: Test, probed: bool) -> TokenStream {
        let k = match test {
            Test::Comparison(item) => return self.comparison_holds(ri, item),
            Test::Step(k) => k,
        };
        let s = &rp.steps[k];
        let args = &rp.operands[s.operand].literal.args;
        let holds = match &s.access {
            Access::Seek { key, .. } => {
                let (rows, order, _) = self.keyed(ri, rp, k);
                let vals = key.iter().map(|&j| self.term(ri, args[j]));
                let fields = (0..=key.len()).map(Literal::usize_unsuffixed);
                let row = self.columns(ri, args, &order, key, false, "a");
                let matches = if row.conds.is_empty() {
                    quote!(|_| true)
                } else {
                    let conds = &row.conds;
                    let test = quote!(#(#conds)&&*);
                    let pat = row.within(&Uses::default(), true);
                    quote!(|&#pat| #test)
                };
                if keyed_by_prefix(&order) {
                    quote!(::clir::rt::any_keyed(#rows, (case, #(#vals,)*), #matches))
                } else {
                    quote!(::clir::rt::any_by(#rows, (case, #(#vals,)*), |t| (#(t.#fields,)*), #matches))
                }
            }
            _ => {
                let rel = ident(&self.locals[ri].operands[s.operand]);
                let vals = args.iter().map(|a| self.term(ri, *a));
                if probed {
                    quote!(#rel.contains(&(case, #(#vals,)*)))
                } else {
                    quote!(::clir::rt::contains(#rel, &(case, #(#vals,)*)))
                }
            }
        };
        if s.negated {
            quote!(!#holds)
        } else {
            holds
        }
    }

    /// The function of rule `ri`: its leapjoins, as the plan chains them.
    fn rule_fn(&self, ri: usize) -> TokenStream {
        let rp = &self.plan.rules[ri];
        let locals = &self.locals[ri];
        let mut params: Vec<TokenStream> = Vec::new();
        if rp.per_case {
            params.push(quote!(cases: &Relation<(CaseId,)>));
        }
        let budget = rp.extends().then(|| quote!(budget: &::clir::rt::Budget,));
        for (oi, o) in rp.operands.iter().enumerate() {
            params.push(match rp.views.iter().position(|v| v.operand == oi) {
                Some(v) => {
                    let (n, ty) = (ident(&locals.views[v]), self.view_ty(rp, v));
                    quote!(#n: &Relation<#ty>)
                }
                None => {
                    let (n, ty) = (ident(&locals.operands[oi]), self.tuple_ty(o.literal.rel));
                    quote!(#n: &Relation<#ty>)
                }
            });
        }
        let mut body = TokenStream::new();
        if !rp.checks.is_empty() {
            let holds = rp.checks.iter().map(|&c| self.comparison_holds(ri, c));
            body.extend(quote! { if !(#(#holds)&&*) { return ::clir::rt::empty(); } });
        }
        // The source: the batch's cases, or the first literal's tuples.
        let (mut source, mut prefix_ty, mut prefix) = if rp.per_case {
            (quote!(cases), quote!((CaseId,)), Pattern::new(vec![Col::Case]))
        } else {
            let oi = rp.steps[0].operand;
            let o = &rp.operands[oi];
            let (src, order, ty) = match rp.views.iter().position(|v| v.operand == oi) {
                Some(v) => (ident(&locals.views[v]), rp.views[v].order.clone(), self.view_ty(rp, v)),
                None => {
                    (ident(&locals.operands[oi]), (0..o.literal.args.len()).collect(), self.tuple_ty(o.literal.rel))
                }
            };
            let pattern = self.columns(ri, &o.literal.args, &order, &[], true, "a");
            (quote!(#src), ty, pattern)
        };
        for (k, j) in rp.joins.iter().enumerate() {
            // The tuples bound so far, as each leaper's closure takes them.
            let bound = quote!(type Bound = #prefix_ty;);
            let mut prefix_tests = prefix.conds.clone();
            let prefix_conds = !prefix_tests.is_empty();
            let mut prefix_uses = Uses::default();
            // A closure over the tuples bound so far, returning `body`, which reads `uses`.
            let over = |body: TokenStream, uses: &Uses| {
                let pat = prefix.within(uses, false);
                quote!(|&#pat: &Bound| #body)
            };
            let mut leapers: Vec<TokenStream> = Vec::new();
            let mut value_tests: Vec<TokenStream> = Vec::new();
            let (row, row_ty) = match j.extend {
                Some(s) => {
                    let Access::Seek { key, .. } = &rp.steps[s].access else { unreachable!("an extension seeks") };
                    let args = &rp.operands[rp.steps[s].operand].literal.args;
                    let (rows, order, ty) = self.keyed(ri, rp, s);
                    let vals = key.iter().map(|&j| self.term(ri, args[j]));
                    let fields = (0..=key.len()).map(Literal::usize_unsuffixed);
                    let key_of = over(quote!((case, #(#vals,)*)), &self.terms_uses(ri, key.iter().map(|&j| args[j])));
                    leapers.push(if keyed_by_prefix(&order) {
                        quote!(ExtendBy::keyed(#rows, #key_of))
                    } else {
                        quote!(ExtendBy::rows(#rows, #key_of, |t: &#ty| (#(t.#fields,)*)))
                    });
                    let row = self.columns(ri, args, &order, key, false, "b");
                    value_tests.extend(row.conds.iter().cloned());
                    (row, ty)
                }
                None => (Pattern::new(Vec::new()), quote!(())),
            };
            // Each operand a membership test of the prefix reads, as a probe that gallops from
            // where its last lookup ended (the source is sorted, so keys mostly grow).
            let mut probes = TokenStream::new();
            for t in &j.prefix {
                if let Test::Step(step) = *t {
                    if matches!(rp.steps[step].access, Access::Contains) {
                        let rel = ident(&locals.operands[rp.steps[step].operand]);
                        probes.extend(quote! { let mut #rel = ::clir::rt::Probe::new(#rel); });
                    }
                }
            }
            prefix_tests.extend(j.prefix.iter().map(|&t| self.test_holds(ri, rp, t, true)));
            j.prefix.iter().for_each(|&t| self.test_uses(ri, rp, t, &mut prefix_uses));
            if !prefix_tests.is_empty() {
                let test = quote!(#(#prefix_tests)&&*);
                let pat = prefix.within(&prefix_uses, prefix_conds);
                let holds = quote!(Holds::new(|&#pat: &Bound| #test));
                // Before the proposer, so that a prefix the tests refuse costs no lookup.
                match leapers.pop() {
                    Some(extend) => leapers.push(quote!(#holds.before(#extend))),
                    None => leapers.push(holds),
                }
            }
            value_tests.extend(j.value.iter().map(|&t| self.test_holds(ri, rp, t, false)));
            if !value_tests.is_empty() {
                let test = quote!(#(#value_tests)&&*);
                let mut uses = Uses::default();
                j.value.iter().for_each(|&t| self.test_uses(ri, rp, t, &mut uses));
                let (pat, row_pat) = (prefix.within(&uses, false), row.within(&uses, !row.conds.is_empty()));
                leapers.push(quote!(ValueFilter::from(|&#pat: &Bound, &#row_pat: &#row_ty| #test)));
            }
            // Last, so that it counts what every other leaper kept.
            if j.extend.is_some() {
                leapers.push(quote!(::clir::rt::Spend::new(budget)));
            }
            // `Bound` names the tuples bound so far in every closure a leaper takes over them.
            let closes_over_bound = j.extend.is_some() || !prefix_tests.is_empty() || !value_tests.is_empty();
            let leapers = match leapers.len() {
                0 => quote!(Once),
                1 => leapers.pop().expect("one leaper"),
                _ => quote!((#(#leapers,)*)),
            };
            let bound = if closes_over_bound { bound } else { TokenStream::new() };
            // The tuple each proposal yields: the binding (what `head` makes of it) or the
            // tuples bound so far.
            let last = k + 1 == rp.joins.len();
            let vars = if last { &rp.binding } else { &j.yields };
            let yields = self.vars_tuple(ri, vars, None);
            let out = if last {
                let head = self.head_tuple(ri);
                if self.explanations {
                    quote!({
                        ::clir::rt::bind(&mut bindings, #yields);
                        #head
                    })
                } else {
                    head
                }
            } else {
                yields.clone()
            };
            let uses = match (last, self.explanations) {
                (false, _) => self.terms_uses(ri, vars.iter().map(|&v| RTerm::Var(v))),
                (true, false) => self.terms_uses(ri, self.p.rules[ri].head.args.iter().copied()),
                (true, true) => {
                    let mut uses = self.terms_uses(ri, self.p.rules[ri].head.args.iter().copied());
                    uses.vars.extend(vars.iter().copied());
                    uses
                }
            };
            let row_pat = if j.extend.is_some() { row.within(&uses, false) } else { quote!(_) };
            let pat = prefix.within(&uses, false);
            let leapjoin = quote!(Relation::from_leapjoin(#source, #leapers, |&#pat, &#row_pat| #out));
            let join = quote! { #bound #probes #leapjoin };
            if last {
                body.extend(if k == 0 {
                    quote!(#bound #probes let heads = #leapjoin;)
                } else {
                    quote!(let heads = { #join };)
                });
            } else {
                let name = ident(&locals.joined[k]);
                body.extend(quote! { let #name = { #join }; });
                if let Some(n) = j.least_by {
                    let fields = (0..=n).map(Literal::usize_unsuffixed);
                    body.extend(quote! { let #name = ::clir::rt::least(#name, |t| (#(t.#fields,)*)); });
                }
                source = quote!(&#name);
                prefix_ty = self.vars_ty(ri, &j.yields);
                let cols = std::iter::once(Col::Case).chain(j.yields.iter().map(|&v| Col::Var(self.var(ri, v), v)));
                prefix = Pattern::new(cols.collect());
            }
        }
        let name = self.rule_fn_name(ri);
        let head_ty = self.tuple_ty(self.p.rules[ri].head.rel);
        let k = self.rule_const(ri);
        // Compiled without explanations, a rule's function records nothing and takes no record.
        let (record, found, recorded) = if self.explanations {
            (
                quote!(record: ::clir::rt::Record),
                quote!(let mut bindings = record.found();),
                quote!(record.record(#k, bindings);),
            )
        } else {
            Default::default()
        };
        // Split into crates, the caller of a stratum evaluated by this one call is the root's.
        let stratum = self.s.rels[self.p.rules[ri].head.rel].stratum;
        let vis = (self.split.is_some() && self.plan.strata[stratum].direct).then(|| quote!(pub));
        quote! {
            #[inline(never)]
            #vis fn #name(#(#params,)* #budget #record) -> Relation<#head_ty> {
                #found
                #body
                #recorded
                heads
            }
        }
    }
}

/// Whether a tuple of columns `order` (and its case) is keyed through `::clir::rt::Prefix`,
/// which flat tuples (of up to [`super::MAX_TUPLE`] items) implement; a longer one names its
/// key's fields.
fn keyed_by_prefix(order: &[usize]) -> bool {
    order.len() < super::MAX_TUPLE
}
