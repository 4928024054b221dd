//! `evaluate`: the store of the evaluation (a slot of `::clir::rt::Layers` per layer, named in
//! the module `layer`); per stratum that has rules or closures, a function of the layers its
//! frame reads, returning those it computes (each computed by calling the rules' functions, in
//! a datafrog `Iteration` where the plan says the layer is recursive); the calls of those
//! functions in order, moving layers out of the store and back; then the conclusions written.

use super::{fill, ident, Emitter};
use crate::ir::RelationKind;
use crate::names::{ModuleNames, Round};
use crate::plan::calls::{self, Applies, Frame, Modes};
use crate::plan::layers::{layer, Heads, Layer, LayerId, LayerSet, Start};
use crate::plan::{Shape, View};
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::quote;

/// An operand of a call of a rule's function.
pub(super) enum Arg {
    /// A final layer: a parameter of the function, or computed by it before the call.
    Layer(LayerId),
    /// A relation of a round (recent, stable or all tuples of a variable): an expression of type
    /// `&Relation<_>`.
    Local(TokenStream),
}

/// What one function has: the layers it computed so far (owned locals; the others it reads are
/// its parameters, references), and the views its calls read, each built once, before the first
/// call that reads it.
#[derive(Default)]
pub(super) struct Views {
    /// The layers computed so far.
    owned: Vec<LayerId>,
    /// Per view built: the layer, the view, its local.
    built: Vec<(LayerId, View, Ident)>,
    /// The statements building the views added since they were last taken.
    lets: TokenStream,
}

impl Views {
    /// The statements building the views added since the last call.
    pub(super) fn take(&mut self) -> TokenStream {
        std::mem::take(&mut self.lets)
    }
}

impl Emitter<'_> {
    /// The distinct layer names of relation `rel`, both signs, each with its sign.
    fn layers_of(&self, rel: usize) -> Vec<(Ident, bool)> {
        let mut out: Vec<(Ident, bool)> = Vec::new();
        for neg in [false, true] {
            for layer in [Layer::Definite, Layer::Supported, Layer::Concluded] {
                let n = self.layer_name(rel, neg, layer);
                if !out.iter().any(|(m, _)| *m == n) {
                    out.push((n, neg));
                }
            }
        }
        out
    }

    pub(super) fn closure_name(&self, ci: usize) -> Ident {
        ident(&self.names.closure(ci, self.p.closures[ci].rel))
    }

    pub(super) fn evaluate_fn(&mut self) -> TokenStream {
        let p = self.p;
        // Per layer, its name and tuple type.
        let mut slots: Vec<(Ident, String)> = vec![(ident("cases"), "(CaseId,)".to_string())];
        // Input relations are read in functions of their own, so that `evaluate` does not grow
        // with the inputs' decoding.
        let mut reads: Vec<TokenStream> = Vec::new();
        let mut calls: Vec<TokenStream> = Vec::new();
        let mut items = TokenStream::new();
        let groups = self.split.as_ref().map_or(0, |split| split.plan.groups);
        for si in 0..self.plan.strata.len() {
            let st = self.plan.strata[si].clone();
            for &rel in &st.rels {
                let ty = self.tuple_text(rel);
                let k = self.rel_const(rel);
                let input = p.relations[rel].kind != RelationKind::Institutional;
                // A stratum of input facts only: +D is the input, and +S and +d coincide with it.
                for (n, neg) in self.layers_of(rel) {
                    slots.push((n.clone(), ty.clone()));
                    if st.shape == Shape::Inputs && input {
                        reads.push(quote! { l[layer::#n] = batch.input(#k, #neg); });
                    }
                }
                if st.shape != Shape::Inputs && input {
                    for neg in [false, true] {
                        let n = self.input_name(rel, neg);
                        slots.push((n.clone(), ty.clone()));
                        reads.push(quote! { l[layer::#n] = batch.input(#k, #neg); });
                    }
                }
            }
            for &ci in &st.closures {
                slots.push((self.closure_name(ci), self.tuple_text(p.closures[ci].rel)));
            }
            if st.direct {
                calls.push(self.direct_call(si));
            } else if st.shape != Shape::Inputs && st.evaluates {
                let (item, glue) = self.stratum_fn(si);
                let g = self.group_of_stratum(si);
                match &mut self.split {
                    Some(split) => split.items[g].extend(item),
                    None => items.extend(item),
                }
                calls.push(glue);
            }
        }
        // The strata in order, in functions of a few strata each, so that none grows with the
        // package.
        let ex_param = self.explanations.then(|| quote!(, ex: &mut ::clir::rt::Explain));
        let (eval_items, evals) = self.chunked("evaluate_strata", quote!(l: &mut ::clir::rt::Layers #ex_param), calls);
        items.extend(eval_items);
        let tables = self.numbering_tables();
        items.extend(tables);
        let ex_arg = self.explanations.then(|| quote!(, &mut ex));
        let calls: Vec<TokenStream> = evals.into_iter().map(|f| quote!(#f(&mut l #ex_arg);)).collect();
        let (read_items, read_calls) =
            self.chunked("read_inputs", quote!(l: &mut ::clir::rt::Layers, batch: &::clir::Batch), reads);
        let read_calls = self.in_io(
            read_items,
            read_calls,
            quote!(read_inputs),
            quote!(l: &mut ::clir::rt::Layers, batch: &::clir::Batch),
            quote!((l, batch)),
            &mut items,
        );
        let mut out = Vec::new();
        for (ri, r) in p.relations.iter().enumerate() {
            let k = self.rel_const(ri);
            let [c, not_c] = [false, true].map(|neg| self.layer_name(ri, neg, Layer::Concluded));
            let [d, not_d] = [false, true].map(|neg| self.layer_name(ri, neg, Layer::Definite));
            // One line a relation, as prettyplease would not write it.
            let line = if r.kind == RelationKind::Institutional {
                format!("out.conclude_relation({k}, [&l[layer::{c}], &l[layer::{not_c}]], [&l[layer::{d}], &l[layer::{not_d}]]);")
            } else {
                format!("out.contradict({k}, &l[layer::{d}], &l[layer::{not_d}]);")
            };
            out.push(self.verbatim(line));
        }
        let (write_items, writes) =
            self.chunked("write_conclusions", quote!(l: &::clir::rt::Layers, out: &mut ::clir::Output), out);
        let writes = self.in_io(
            write_items,
            writes,
            quote!(write_conclusions),
            quote!(l: &::clir::rt::Layers, out: &mut ::clir::Output),
            quote!((l, out)),
            &mut items,
        );
        let (start, explain) = if self.explanations {
            let mut explains = self.explains(groups, &mut items);
            explains.extend(self.closure_explains());
            let start = quote! {
                // Explanation instances, recorded by the strata's calls of rules as they evaluate.
                let mut ex = ::clir::rt::Explain::new(&RULES, batch.explain || !batch.why_not.is_empty());
            };
            // What no stratum recorded, found over the final layers.
            // A second pass over the same layers, with a fresh allowance of the budget.
            let rest =
                if explains.is_empty() { explains } else { quote!(if ex.on() { l.budget().restart(); #explains }) };
            let explain = quote! {
                #rest
                out.instances = ex.finish();
                out.why_not = batch.why_not.iter().map(|asked| why_not(&l, &batch.interner, asked)).collect();
            };
            (start, explain)
        } else {
            (
                TokenStream::new(),
                self.comment("Compiled without explanations (`clir compile --no-explanations`)".to_string()),
            )
        };
        let mut slot_module = self.slot_module(&slots);
        if let Some(split) = &mut self.split {
            split.io_items.extend(std::mem::take(&mut slot_module));
        }
        quote! {
            /// Rules a batch of cases: every stratum, in order, over all cases at once.
            pub fn evaluate(batch: &::clir::Batch) -> ::clir::Output {
                evaluate_layers(batch).1
            }

            /// [`evaluate`], keeping the final layers (what the typed API's why-not reads).
            fn evaluate_layers(batch: &::clir::Batch) -> (::clir::rt::Layers, ::clir::Output) {
                let mut l = ::clir::rt::Layers::new(&layer::EMPTY);
                l.limit(batch.max_case_tuples, batch.cases);
                l[layer::cases] = (0..batch.cases).map(|c| (CaseId(c),)).collect();
                #start
                #(#read_calls(&mut l, batch);)*
                #(#calls)*
                let mut out = ::clir::Output::new(SCHEMA.relations.len());
                #(#writes(&l, &mut out);)*
                #explain
                out.over_budget = l.budget().over();
                (l, out)
            }

            #slot_module

            #items
        }
    }

    /// Stratum `si`'s function, returning the layers it computes (one, or a tuple of them in the
    /// frame's order), and the statements of its caller: the layers it reads passed from the
    /// store `l`, and those it returns put there.
    fn stratum_fn(&mut self, si: usize) -> (TokenStream, TokenStream) {
        let st = self.plan.strata[si].clone();
        let f = &st.frame;
        let body = self.stratum(si);
        let name = ident(&self.names.stratum_fn(st.rels[0]));
        let vis = self.split.is_some().then(|| quote!(pub));
        let (mut params, mut args) = self.frame_params(f);
        let mut lines = Vec::new();
        // A stratum whose rules record explanations as they are called takes `ex`; split into
        // crates, numbering the rules as its group does.
        if self.explanations && st.records {
            params.push(quote!(ex: &mut ::clir::rt::Explain));
            args.push("ex".to_string());
            lines.extend(self.numbering_of(self.group_of_stratum(si)));
        }
        let mut fields: Vec<(Ident, TokenStream)> =
            f.writes.iter().map(|&id| (self.layer_ident(id), self.tuple_ty(id.rel))).collect();
        fields.extend(f.closures.iter().map(|&ci| (self.closure_name(ci), self.tuple_ty(self.p.closures[ci].rel))));
        let (names, tys): (Vec<&Ident>, Vec<&TokenStream>) = fields.iter().map(|(n, t)| (n, t)).unzip();
        let (ret, body, value) = match names.as_slice() {
            [one] => {
                let (body, value) = returned(body, one);
                (quote!(Relation<#(#tys)*>), body, value)
            }
            _ => (quote!((#(Relation<#tys>),*)), body, quote!((#(#names),*))),
        };
        let item = quote! {
            #[inline(never)]
            #vis fn #name(#(#params),*) -> #ret {
                #body
                #value
            }
        };
        let path = self.group_path(self.group_of_stratum(si));
        let places: Vec<String> = names.iter().map(|n| format!("l[layer::{n}]")).collect();
        let target = match places.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            _ if places.join(", ").len() + 2 <= super::WIDTH / 2 => Some(format!("({})", places.join(", "))),
            _ => Some(format!("(\n{})", super::fill(places, "    "))),
        };
        lines.push(Self::call_text(target.as_deref(), &format!("{path}::{name}"), &args));
        (item, self.verbatim(lines.join("\n")))
    }

    /// The path of group `g`'s functions from the package's module: its crate's, when split.
    fn group_path(&self, g: usize) -> String {
        match &self.split {
            Some(split) => format!("::{}", split.crates[g]),
            None => "self".to_string(),
        }
    }

    /// The statements of a stratum evaluated by its one call ([`crate::plan::StratumPlan::direct`]):
    /// the call of the rule's function over the layers of the store `l`, its heads put there.
    fn direct_call(&mut self, si: usize) -> TokenStream {
        let st = self.plan.strata[si].clone();
        let call = &st.definite_set.calls[0];
        let rp = &self.plan.rules[call.rule];
        let comment = self.comment(format!("Stratum of {}", st.title(self.p)));
        let mut lines = Vec::new();
        let mut args = Vec::new();
        if rp.per_case {
            args.push("&l[layer::cases]".to_string());
        }
        args.extend(call.args.iter().map(|a| format!("&l[layer::{}]", self.layer_ident(a.layer()))));
        if rp.extends() {
            args.push("l.budget()".to_string());
        }
        if self.explanations {
            args.push(match call.record {
                None => "::clir::rt::Record::OFF".to_string(),
                Some(modes) => {
                    lines.extend(self.numbering_of(self.group_of_stratum(si)));
                    let flags: Vec<String> = modes.flags().iter().map(bool::to_string).collect();
                    format!("ex.to(&[{}])", flags.join(", "))
                }
            });
        }
        let path = self.group_path(self.group_of_stratum(si));
        let target = format!("l[layer::{}]", self.layer_ident(st.frame.writes[0]));
        lines.push(Self::call_text(Some(&target), &format!("{path}::{}", self.rule_fn_name(call.rule)), &args));
        let code = self.verbatim(lines.join("\n"));
        quote! { #comment #code }
    }

    /// The statements of stratum `si`'s function.
    fn stratum(&mut self, si: usize) -> TokenStream {
        let st = self.plan.strata[si].clone();
        let mut out = self.comment(format!("Stratum of {}", st.title(self.p)));
        let mut views = Views::default();
        out.extend(self.layer_set(&st.definite_set, &mut views));
        match st.shape {
            Shape::Collapsed | Shape::Inputs => {}
            Shape::Uncontested => out.extend(self.layer_set(st.applicable_set.as_ref().expect("planned"), &mut views)),
            Shape::Contested => {
                let contested = self.contested(si, &mut views);
                out.extend(views.take());
                out.extend(contested);
            }
        }
        for &ci in &st.closures {
            out.extend(self.closure(ci, &mut views));
        }
        out
    }

    /// The arguments of a call of rule `ri` whose operands are `args`: each the relation it
    /// names, or the view of it the function reads instead; a view of a layer of `l` is built
    /// once in `views`, and shared by every call that reads the layer by the same columns.
    pub(super) fn call_args(&self, ri: usize, args: Vec<Arg>, views: &mut Views) -> Vec<TokenStream> {
        let rp = &self.plan.rules[ri];
        let args = args.into_iter().enumerate();
        args.map(|(oi, a)| match (a, rp.views.iter().find(|v| v.operand == oi)) {
            (Arg::Layer(id), None) => self.layer_use(id, views),
            (Arg::Local(rows), None) => rows,
            (Arg::Local(rows), Some(v)) => {
                let view = Self::view_of(&rows, v);
                quote!(&#view)
            }
            (Arg::Layer(id), Some(v)) => {
                let same = |w: &View| w.order == v.order && w.least_by == v.least_by;
                let known = views.built.iter().find(|(m, w, _)| *m == id && same(w));
                let name = match known {
                    Some((_, _, name)) => name.clone(),
                    None => {
                        let params = &self.p.relations[rp.operands[oi].literal.rel].params;
                        let n = self.layer_ident(id);
                        let base =
                            crate::names::view_name(&n.to_string(), v.by().iter().map(|&j| params[j].0.as_str()));
                        let taken: Vec<String> = views.built.iter().map(|(_, _, m)| m.to_string()).collect();
                        let name = ident(&self.names.stratum_local(&base, &taken));
                        let view = Self::view_of(&self.layer_use(id, views), v);
                        views.lets.extend(quote! { let #name = #view; });
                        views.built.push((id, v.clone(), name.clone()));
                        name
                    }
                };
                quote!(&#name)
            }
        })
        .collect()
    }

    /// Layer `id` where a function reads it: `&name` once it computed it, else its parameter
    /// `name` (a reference).
    pub(super) fn layer_use(&self, id: LayerId, views: &Views) -> TokenStream {
        let n = self.layer_ident(id);
        if views.owned.contains(&id) {
            quote!(&#n)
        } else {
            quote!(#n)
        }
    }

    /// What a call passes for one operand, as the plan says.
    pub(super) fn arg(&self, a: calls::Arg) -> Arg {
        match a {
            calls::Arg::Layer(id) => Arg::Layer(id),
            calls::Arg::Recent(id) => {
                let n = self.layer_ident(id);
                Arg::Local(quote!(&#n.recent.borrow()))
            }
            calls::Arg::Stable(id) => {
                let m = self.round_ident(id, Round::Stable);
                Arg::Local(quote!(&#m))
            }
            calls::Arg::Total(id) => {
                let m = self.round_ident(id, Round::Total);
                Arg::Local(quote!(&#m))
            }
        }
    }

    /// The call of rule `ri`'s function over `args`: the relation of its heads. With `records`,
    /// through `ex`, which records its bindings as explanation instances of those modes; compiled
    /// without explanations, with no record at all.
    pub(super) fn rule_call(&self, ri: usize, args: &[TokenStream], records: Option<Modes>) -> TokenStream {
        let name = self.rule_fn_name(ri);
        let cases = self.plan.rules[ri].per_case.then(|| quote!(cases,));
        let budget = self.plan.rules[ri].extends().then(|| quote!(budget,));
        let record = match records {
            // Compiled without explanations, a rule's function takes no record at all.
            _ if !self.explanations => TokenStream::new(),
            None => quote!(::clir::rt::Record::OFF),
            Some(modes) => {
                let flags = modes.flags();
                quote!(ex.to(&[#(#flags),*]))
            }
        };
        quote!(self::#name(#cases #(#args,)* #budget #record))
    }

    /// Adds what `call` of the rule of `h` finds to its layer or variable; with `h.unless`
    /// `(c, d)`, also the found heads not in the definite complement `d` to `c` (`lets` binds
    /// them once). `nth` numbers the call among the rule's calls of a round when it has several.
    fn add_found(
        &self,
        h: &Heads,
        nth: Option<usize>,
        call: TokenStream,
        (lets, views): (&mut TokenStream, &Views),
        adds: &mut Vec<(Ident, TokenStream)>,
    ) {
        let into = self.layer_ident(h.into);
        let Some((c, d)) = h.unless else {
            adds.push((into, call));
            return;
        };
        let (c, d) = (self.layer_ident(c), self.layer_use(d, views));
        let (found, kept) = self.names.found(h.rule, nth);
        let (found, kept) = (ident(&found), ident(&kept));
        lets.extend(quote! {
            let #found = #call;
            let #kept = ::clir::rt::difference(&#found, #d);
        });
        adds.push((c, quote!(#kept)));
        adds.push((into, quote!(#found)));
    }

    /// What the rules of `adds` found for `target`, in rule order.
    fn found_for<'a>(adds: &'a [(Ident, TokenStream)], target: &Ident) -> Vec<&'a TokenStream> {
        adds.iter().filter(|(m, _)| m == target).map(|(_, r)| r).collect()
    }

    /// The relation of `start`'s tuples (if any) and of every part: one rule's heads as its
    /// leapjoin yields them, else one `gather`.
    fn union_of(start: Option<TokenStream>, parts: &[&TokenStream]) -> TokenStream {
        match (start, parts) {
            (None, [only]) => quote!(#only),
            (start, _) => {
                let start = start.map_or_else(|| quote!(Vec::new()), |r| quote!(#r.elements));
                quote!(::clir::rt::gather(#start, [#(#parts),*]))
            }
        }
    }

    /// The statements computing layer set `set` as the plan says: its layers from what they
    /// start from, the views its rules read (in `views`, once), each rule's heads added to its layers, once or as the variables of a datafrog
    /// `Iteration` whose rounds call each rule with the recent tuples of each operand it reads
    /// from them; the final layers stored in `l`.
    fn layer_set(&self, set: &LayerSet, views: &mut Views) -> TokenStream {
        let iteration = set.iteration;
        // What a layer starts from, as a relation (none: empty).
        let start_of = |id: LayerId, start: Start| match start {
            Start::Empty => None,
            Start::Input => {
                let i = self.input_name(id.rel, id.negative);
                Some(quote!(#i))
            }
            // A method call: the same for a parameter (a reference) and an owned local.
            Start::Copy(d) => {
                let d = self.layer_ident(d);
                Some(quote!(#d.clone()))
            }
        };
        // Per layer (without an iteration) or variable, the relations of heads it takes, found
        // once (`once`) or in each round (`rounds`).
        let (mut once, mut rounds) = (TokenStream::new(), TokenStream::new());
        let mut once_adds: Vec<(Ident, TokenStream)> = Vec::new();
        let mut round_adds: Vec<(Ident, TokenStream)> = Vec::new();
        for c in &set.calls {
            let h = set.heads.iter().find(|h| h.rule == c.rule).expect("a call of a rule of the set");
            let args = c.args.iter().map(|&a| self.arg(a)).collect();
            let mut call = self.rule_call(c.rule, &self.call_args(c.rule, args, views), c.record);
            if c.kept {
                let app = self.applies(c.rule);
                once.extend(quote! { let #app = #call; });
                call = quote!(#app.clone());
            }
            let (lets, adds) = if c.round { (&mut rounds, &mut round_adds) } else { (&mut once, &mut once_adds) };
            self.add_found(h, c.nth, call, (lets, views), adds);
        }
        // Each variable takes what its rules found as one relation (one sort, not a merge a rule).
        let insert_all = |adds: &[(Ident, TokenStream)]| {
            let mut stmts = TokenStream::new();
            for (k, (v, _)) in adds.iter().enumerate() {
                if adds[..k].iter().all(|(m, _)| m != v) {
                    let all = Self::union_of(None, &Self::found_for(adds, v));
                    stmts.extend(quote! { #v.insert(#all); });
                }
            }
            stmts
        };
        if iteration {
            once.extend(insert_all(&once_adds));
            rounds.extend(insert_all(&round_adds));
        }
        // A layer no rule adds to is the relation it starts from, set before the rules run.
        let mut fixed = TokenStream::new();
        for &(id, start) in &set.fixed {
            let n = self.layer_ident(id);
            let init = start_of(id, start).expect("a fixed layer starts from a relation");
            fixed.extend(quote! { let #n = #init; });
        }
        views.owned.extend(set.fixed.iter().map(|&(id, _)| id));
        if !iteration {
            let mut built = TokenStream::new();
            for &(id, start) in &set.layers {
                let n = self.layer_ident(id);
                let all = Self::union_of(start_of(id, start), &Self::found_for(&once_adds, &n));
                built.extend(quote! { let #n = #all; });
            }
            views.owned.extend(set.layers.iter().map(|&(id, _)| id));
            let views = views.take();
            return quote! { #fixed #views #once #built };
        }
        let names: Vec<Ident> = set.layers.iter().map(|&(id, _)| self.layer_ident(id)).collect();
        let vars: Vec<TokenStream> = set
            .layers
            .iter()
            .map(|&(id, s)| {
                let n = self.layer_ident(id);
                let ty = self.tuple_ty(id.rel);
                let label = n.to_string();
                let insert = match start_of(id, s) {
                    Some(r) if set.seeded => quote! { ::clir::rt::seed(&#n, #r); },
                    Some(r) => quote! { #n.insert(#r); },
                    None => TokenStream::new(),
                };
                quote! {
                    let #n = iteration.variable::<#ty>(#label);
                    #insert
                }
            })
            .collect();
        let stables = set.stable.iter().map(|&id| {
            let (n, m) = (self.layer_ident(id), self.round_ident(id, Round::Stable));
            quote! { let #m = ::clir::rt::stable(&#n); }
        });
        let totals = set.total.iter().map(|&id| {
            let (n, m) = (self.layer_ident(id), self.round_ident(id, Round::Total));
            quote! { let #m = ::clir::rt::total(&#n); }
        });
        let views_built = views.take();
        views.owned.extend(set.layers.iter().map(|&(id, _)| id));
        quote! {
            #fixed
            #views_built
            let mut iteration = ::clir::rt::Iteration::new();
            #(#vars)*
            #once
            while iteration.changed() {
                #(#stables)*
                #(#totals)*
                #rounds
            }
            #(let #names = #names.complete();)*
        }
    }

    /// A contested relation: each rule's applicability over lower strata, then team defeat.
    /// The local holding where rule `ri` applies in a contested stratum.
    fn applies(&self, ri: usize) -> Ident {
        ident(&self.names.applies(ri))
    }

    fn contested(&mut self, si: usize, views: &mut Views) -> TokenStream {
        let st = self.plan.strata[si].clone();
        let p = self.p;
        let rel = st.rels[0];
        let ty = self.tuple_ty(rel);
        let mut out = TokenStream::new();
        let apps: Vec<Ident> = st.applicable.iter().map(|&ri| self.applies(ri)).collect();
        for (a, app) in st.applies.iter().zip(&apps) {
            match a {
                Applies::Kept(_) => {}
                Applies::Never(_) => out.extend(quote! { let #app = ::clir::rt::empty::<#ty>(); }),
                Applies::Call(c) => {
                    let args = c.args.iter().map(|&a| self.arg(a)).collect();
                    let call = self.rule_call(c.rule, &self.call_args(c.rule, args, views), c.record);
                    out.extend(quote! { let #app = #call; });
                }
            }
        }
        let app_of = |ri: usize| apps[st.applicable.iter().position(|&x| x == ri).expect("rule of stratum")].clone();
        for contest in &st.contests {
            let neg = contest.negative;
            let supporters = &contest.supporters;
            let d = self.layer_use(layer(self.s, rel, neg, Layer::Definite), views);
            let not_d = self.layer_use(layer(self.s, rel, !neg, Layer::Definite), views);
            let s = self.layer_name(rel, neg, Layer::Supported);
            let c = self.layer_name(rel, neg, Layer::Concluded);
            let sup_apps: Vec<Ident> = supporters.iter().map(|&r| app_of(r)).collect();
            let mut attacks = Vec::new();
            let mut comments = TokenStream::new();
            for attack in &contest.attacks {
                let (a, beaters) = (attack.rule, &attack.beaten_by);
                let a_app = app_of(a);
                let text = format!(
                    "{} attacks {}{}: {}",
                    p.rules[a].id,
                    if neg { "~" } else { "" },
                    p.relations[rel].name,
                    if beaters.is_empty() {
                        "no rule ranks above it".to_string()
                    } else {
                        format!(
                            "beaten where {} applies",
                            beaters.iter().map(|&t| p.rules[t].id.as_str()).collect::<Vec<_>>().join(" or ")
                        )
                    }
                );
                comments.extend(self.comment(text));
                let b_apps = beaters.iter().map(|&t| app_of(t));
                attacks.push(quote!((&#a_app, &[#(&#b_apps),*])));
            }
            let sign = if neg { "~" } else { "" };
            let head = self.comment(format!(
                "{sign}{}: concluded when definite, or when a rule for it applies, {sign}{} is not the complement of a definite fact, and every applicable attack is beaten (team defeat)",
                p.relations[rel].name, p.relations[rel].name
            ));
            let contest = ident(&ModuleNames::contest(&c.to_string()));
            // With no rule on either side, nothing names the tuple type but a turbofish.
            let of = (sup_apps.is_empty() && attacks.is_empty()).then(|| quote!(::<#ty>));
            let s_stmt = if s == c {
                TokenStream::new()
            } else {
                quote! { let #s = #contest.supported(#d); }
            };
            out.extend(quote! {
                #head
                #comments
                let #contest = ::clir::rt::Contest #of::new(&[#(&#sup_apps),*], &[#(#attacks),*]);
                #s_stmt
                let #c = #contest.concluded(#d, #not_d);
            });
            for l in [Layer::Supported, Layer::Concluded] {
                views.owned.push(layer(self.s, rel, neg, l));
            }
        }
        out
    }

    /// The module `layer`: per layer of `slots` (name, tuple type), a `::clir::rt::Slot` constant
    /// at its position, and `EMPTY`, every layer empty, what an evaluation starts from.
    /// Split into crates, the module and its constants are public: the base crate's.
    fn slot_module(&mut self, slots: &[(Ident, String)]) -> TokenStream {
        let (module, item) = if self.split.is_some() { ("pub mod", "pub") } else { ("mod", "pub(super)") };
        let consts: String = slots
            .iter()
            .enumerate()
            .map(|(i, (n, ty))| format!("    {item} const {n}: Slot<{ty}> = Slot::new({i});\n"))
            .collect();
        let empty = fill(slots.iter().map(|(n, _)| format!("{n}.empty")), "        ");
        self.verbatim(format!(
            "/// Every layer of the evaluation, a slot of `::clir::rt::Layers`: the inputs, then each\n\
             /// stratum's layers once it has computed them (empty before). A layer no later step\n\
             /// reads is still kept.\n\
             #[allow(non_upper_case_globals, dead_code, unused_imports)]\n\
             {module} layer {{\n    \
             use super::{{CaseId, Sym}};\n    \
             use ::clir::rt::Slot;\n\
             {consts}    \
             /// Every layer empty, at its slot's position.\n    \
             {item} const EMPTY: [fn() -> Box<dyn ::clir::rt::Layer>; {}] = [\n{empty}    ];\n\
             }}\n",
            slots.len()
        ))
    }

    /// The chunks `chunk_items` (called as `chunks`) of a step that reads no rule: in the module's
    /// `items`, or split into crates, in the io crate under one public function `name` taking
    /// `params` (passing `args` on), so that a changed rule does not build them again. Returns
    /// the paths to call.
    fn in_io(
        &mut self,
        chunk_items: TokenStream,
        chunks: Vec<TokenStream>,
        name: TokenStream,
        params: TokenStream,
        args: TokenStream,
        items: &mut TokenStream,
    ) -> Vec<TokenStream> {
        let Some(split) = &mut self.split else {
            items.extend(chunk_items);
            return chunks;
        };
        split.io_items.extend(quote! {
            /// Calls each part of it, in order.
            pub fn #name(#params) {
                #(#chunks #args;)*
            }
            #chunk_items
        });
        let io = &split.io;
        vec![quote!(::#io::#name)]
    }

    /// The explaining calls no stratum made ([`Self::explain_calls`]), per group (its crate's,
    /// when split) in functions of a few rules each, over the final layers they read; returns
    /// the calls of those functions, over the store `l`.
    fn explains(&mut self, groups: usize, items: &mut TokenStream) -> TokenStream {
        // Each group's statements, in order.
        let mut by_group: Vec<Vec<(Frame, TokenStream)>> = vec![Vec::new(); groups.max(1)];
        for (g, frame, stmt) in self.explain_calls() {
            by_group[g].push((frame, stmt));
        }
        let mut calls = TokenStream::new();
        for (g, of_group) in by_group.into_iter().enumerate() {
            for (k, chunk) in of_group.chunks(super::CHUNK).enumerate() {
                let mut frame = Frame::default();
                chunk.iter().for_each(|(f, _)| frame.merge(f));
                let name = ident(&ModuleNames::chunk("explain", k));
                let (mut params, mut args) = self.frame_params(&frame);
                params.push(quote!(ex: &mut ::clir::rt::Explain));
                args.push("&mut ex".to_string());
                let body = chunk.iter().map(|(_, s)| s);
                let vis = self.split.is_some().then(|| quote!(pub));
                let item = quote! {
                    #[inline(never)]
                    #vis fn #name(#(#params),*) {
                        #(#body)*
                    }
                };
                match &mut self.split {
                    Some(split) => split.items[g].extend(item),
                    None => items.extend(item),
                }
                let path = self.group_path(g);
                let mut text: Vec<String> = self.numbering_of(g).into_iter().collect();
                text.push(Self::call_text(None, &format!("{path}::{name}"), &args));
                calls.extend(self.verbatim(text.join("\n")));
            }
        }
        calls
    }

    /// Split into crates, the statement numbering the rules as group `g`'s crate does, for the
    /// calls of its functions that follow ([`Self::group_numbering`]).
    fn numbering_of(&self, g: usize) -> Option<String> {
        let split = self.split.as_ref()?;
        Some(format!("ex.numbering(&{});", ModuleNames::group_rules(&split.crates[g].to_string())))
    }

    /// Split into crates with explanations, group `g`'s numbering of its rules: `RULE_<rule>`
    /// from 0, in the package's order, for its crate; and the table of the package's indices
    /// of them in that order, for the package's crate.
    pub(super) fn group_numbering(&mut self, g: usize) -> TokenStream {
        if !self.explanations {
            return TokenStream::new();
        }
        let rules: Vec<usize> = (0..self.p.rules.len()).filter(|&ri| self.group_of_rule(ri) == g).collect();
        let mut lines = String::new();
        for (k, &ri) in rules.iter().enumerate() {
            let doc = super::lit(&crate::text::comment_text(&format!("`{}`", self.p.rules[ri].id)));
            lines.push_str(&format!("#[doc = {doc}] pub const {}: usize = {k};\n", self.rule_const(ri)));
        }
        self.verbatim(lines)
    }

    /// Split into crates with explanations, per group the table of the package's indices of its
    /// rules in the order the group numbers them ([`Self::group_numbering`]).
    fn numbering_tables(&mut self) -> TokenStream {
        let Some(split) = &self.split else { return TokenStream::new() };
        if !self.explanations {
            return TokenStream::new();
        }
        let mut lines = String::new();
        for (g, krate) in split.crates.iter().enumerate() {
            let rules: Vec<String> = (0..self.p.rules.len())
                .filter(|&ri| self.group_of_rule(ri) == g)
                .map(|ri| self.rule_const(ri).to_string())
                .collect();
            let table = ModuleNames::group_rules(&krate.to_string());
            lines.push_str(&format!(
                "/// The rule indices of `{krate}`'s rules, in the order it numbers them.\nstatic {table}: [usize; {}] = [\n{}];\n",
                rules.len(),
                super::fill(rules, "    ")
            ));
        }
        self.verbatim(lines)
    }

    /// The parameters of a function that reads what `f` says, and the arguments its caller passes
    /// from the store `l`: the input facts first, taken out of the store before any layer is
    /// borrowed from it.
    fn frame_params(&self, f: &Frame) -> (Vec<TokenStream>, Vec<String>) {
        let (mut params, mut args) = (Vec::new(), Vec::new());
        for &(rel, negative) in &f.inputs {
            let (n, ty) = (self.input_name(rel, negative), self.tuple_ty(rel));
            params.push(quote!(#n: Relation<#ty>));
            args.push(format!("::clir::rt::take(&mut l[layer::{n}])"));
        }
        for &id in &f.reads {
            let (n, ty) = (self.layer_ident(id), self.tuple_ty(id.rel));
            params.push(quote!(#n: &Relation<#ty>));
            args.push(format!("&l[layer::{n}]"));
        }
        if f.cases {
            params.push(quote!(cases: &Relation<(CaseId,)>));
            args.push("&l[layer::cases]".to_string());
        }
        if f.budget {
            params.push(quote!(budget: &::clir::rt::Budget));
            args.push("l.budget()".to_string());
        }
        (params, args)
    }

    /// The statement calling `f` with `args` (and assigning it to the place `out`, when given), as
    /// code written as it is: on one line, or its arguments filled in lines below it.
    fn call_text(out: Option<&str>, f: &str, args: &[String]) -> String {
        let lhs = out.map(|o| format!("{o} = ")).unwrap_or_default();
        let line = format!("{lhs}{f}({});", args.join(", "));
        if line.len() <= super::WIDTH - 8 {
            return line;
        }
        format!("{lhs}{f}(\n{});", super::fill(args.iter().cloned(), "    "))
    }

    fn closure(&mut self, ci: usize, views: &mut Views) -> TokenStream {
        let p = self.p;
        let c = &p.closures[ci];
        let comment = self.comment(format!(
            "Closure {} ({}): ~{} for every concluded {} that {} does not even support{}",
            c.id,
            c.label,
            p.relations[c.rel].name,
            p.relations[c.domain].name,
            p.relations[c.rel].name,
            c.snapshot.as_deref().map(|s| format!("; snapshot {s}")).unwrap_or_default()
        ));
        let dom = self.layer_use(layer(self.s, c.domain, false, Layer::Concluded), views);
        let sup = self.layer_use(layer(self.s, c.rel, false, Layer::Supported), views);
        let closed = self.closure_name(ci);
        let mut stmts = quote! {
            #comment
            let #closed = ::clir::rt::difference(#dom, #sup);
        };
        let mut done: Vec<LayerId> = Vec::new();
        for l in [Layer::Definite, Layer::Supported, Layer::Concluded] {
            let id = layer(self.s, c.rel, true, l);
            if !done.contains(&id) {
                let (name, read) = (self.layer_ident(id), self.layer_use(id, views));
                stmts.extend(quote! { let #name = ::clir::rt::union(&[#read, &#closed]); });
                views.owned.push(id);
                done.push(id);
            }
        }
        stmts
    }
}

/// `body` and the value `name` it returns: a body whose last statement is `let name = e;` gives
/// up that statement and returns `e` (as a reader would write it; clippy's `let_and_return`).
fn returned(body: TokenStream, name: &Ident) -> (TokenStream, TokenStream) {
    let tokens: Vec<TokenTree> = body.clone().into_iter().collect();
    let is_punct = |t: &TokenTree, c: char| matches!(t, TokenTree::Punct(p) if p.as_char() == c);
    let last_let = tokens.iter().rposition(|t| matches!(t, TokenTree::Ident(i) if i == "let"));
    if let Some(at) = last_let {
        let rest = &tokens[at + 1..];
        let rest = match rest.first() {
            Some(TokenTree::Ident(i)) if i == "mut" => &rest[1..],
            _ => rest,
        };
        if let [TokenTree::Ident(bound), eq, expr @ .., semi] = rest {
            let one_statement = !expr.iter().any(|t| is_punct(t, ';'));
            if bound == name && is_punct(eq, '=') && !expr.is_empty() && is_punct(semi, ';') && one_statement {
                return (tokens[..at].iter().cloned().collect(), expr.iter().cloned().collect());
            }
        }
    }
    (body, quote!(#name))
}
