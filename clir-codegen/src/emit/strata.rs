//! `evaluate`: the `Layers` of every relation, one function per stratum that has rules or
//! closures (each layer computed by calling the rules' functions with the layers they read, in a
//! datafrog `Iteration` where the plan says the layer is recursive), then the conclusions
//! written out.

use super::{mentions, Emitter, Layer};
use crate::ir::{RelationKind, Strength};
use crate::plan::Shape;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The layers one fixpoint computes: per layer name, its tuple type and the relation it starts
/// from (`None`: empty, statically).
type Computed = Vec<ComputedLayer>;

/// One layer of [`Computed`].
type ComputedLayer = (Ident, TokenStream, Option<TokenStream>);

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
        format_ident!("closure_{}_{}", ci, self.names.relations[self.p.closures[ci].rel])
    }

    pub(super) fn evaluate_fn(&mut self) -> TokenStream {
        let p = self.p;
        let mut fields: Vec<TokenStream> = vec![quote!(cases: Relation<(CaseId,)>)];
        let mut init: Vec<TokenStream> = vec![quote!(cases: (0..batch.cases).map(|c| (CaseId(c),)).collect())];
        // Input relations are read in functions of their own, so that `evaluate` (which builds
        // `Layers`, every field empty) does not grow with the inputs' decoding.
        let mut reads: Vec<TokenStream> = Vec::new();
        let mut calls: Vec<TokenStream> = Vec::new();
        let mut items = TokenStream::new();
        for si in 0..self.plan.strata.len() {
            let st = self.plan.strata[si].clone();
            for &rel in &st.rels {
                let ty = self.tuple_ty(rel);
                let k = self.rel_const(rel);
                let input = p.relations[rel].kind != RelationKind::Institutional;
                // A stratum of input facts only: +D is the input, and +S and +d coincide with it.
                for (n, neg) in self.layers_of(rel) {
                    fields.push(quote!(#n: Relation<#ty>));
                    init.push(quote!(#n: ::clir::rt::empty()));
                    if st.shape == Shape::Inputs && input {
                        reads.push(quote! { l.#n = batch.input::<#ty>(#k, #neg); });
                    }
                }
                if st.shape != Shape::Inputs && input {
                    for neg in [false, true] {
                        let n = self.input_name(rel, neg);
                        fields.push(quote!(#n: Relation<#ty>));
                        init.push(quote!(#n: ::clir::rt::empty()));
                        reads.push(quote! { l.#n = batch.input::<#ty>(#k, #neg); });
                    }
                }
            }
            for &ci in &st.closures {
                let n = self.closure_name(ci);
                let ty = self.tuple_ty(p.closures[ci].rel);
                fields.push(quote!(#n: Relation<#ty>));
                init.push(quote!(#n: ::clir::rt::empty()));
            }
            if st.shape != Shape::Inputs {
                let name = format_ident!("evaluate_stratum_{}", si);
                let body = self.stratum(si);
                if !mentions(&body, "l") {
                    // Every rule of the stratum can never apply and nothing fills its layers.
                    continue;
                }
                items.extend(quote! {
                    #[inline(never)]
                    fn #name(l: &mut Layers) {
                        #body
                    }
                });
                calls.push(quote!(self::#name(&mut l);));
            }
        }
        let (read_items, read_calls) =
            self.chunked("read_inputs", quote!(l: &mut Layers, batch: &::clir::Batch), reads);
        items.extend(read_items);
        let mut out = Vec::new();
        for (ri, r) in p.relations.iter().enumerate() {
            let k = self.rel_const(ri);
            let [c, not_c] = [false, true].map(|neg| self.layer_name(ri, neg, Layer::Concluded));
            let [d, not_d] = [false, true].map(|neg| self.layer_name(ri, neg, Layer::Definite));
            out.push(if r.kind == RelationKind::Institutional {
                quote! { out.conclude_relation(#k, [&l.#c, &l.#not_c], [&l.#d, &l.#not_d]); }
            } else {
                quote! { out.contradict(#k, &l.#d, &l.#not_d); }
            });
        }
        let (write_items, writes) =
            self.chunked("write_conclusions", quote!(l: &Layers, out: &mut ::clir::Output), out);
        items.extend(write_items);
        let explain = if self.explanations {
            let stmts = self.explain_calls();
            let (explain_items, explains) =
                self.chunked("explain", quote!(l: &Layers, instances: &mut Vec<::clir::Instance>), stmts);
            items.extend(explain_items);
            quote! {
                if batch.explain || !batch.why_not.is_empty() {
                    let mut instances: Vec<::clir::Instance> = Vec::new();
                    #(#explains(&l, &mut instances);)*
                    out.instances = instances;
                }
                out.why_not = batch.why_not.iter().map(|asked| why_not(&l, &batch.interner, asked)).collect();
            }
        } else {
            self.comment("Compiled without explanations (`clir compile --no-explanations`)".to_string())
        };
        quote! {
            /// Rules a batch of cases: every stratum, in order, over all cases at once.
            pub fn evaluate(batch: &::clir::Batch) -> ::clir::Output {
                evaluate_layers(batch).1
            }

            /// [`evaluate`], keeping the final layers (what the typed API's why-not reads).
            fn evaluate_layers(batch: &::clir::Batch) -> (Layers, ::clir::Output) {
                let mut l = Layers { #(#init,)* };
                #(#read_calls(&mut l, batch);)*
                #(#calls)*
                let mut out = ::clir::Output::new(SCHEMA.relations.len());
                #(#writes(&l, &mut out);)*
                #explain
                (l, out)
            }

            /// Every relation of the evaluation: the inputs, then each stratum's layers once it
            /// has computed them (empty before). A layer no later step reads is still kept.
            #[allow(dead_code)]
            struct Layers {
                #(#fields,)*
            }

            #items
        }
    }

    /// The statements of stratum `si`'s function.
    fn stratum(&mut self, si: usize) -> TokenStream {
        let st = self.plan.strata[si].clone();
        let p = self.p;
        let mut out = self.comment(st.heading(p, si));
        // +D: the input facts, then every strict rule over definite premises.
        let mut definite: Computed = Vec::new();
        for &rel in &st.rels {
            let ty = self.tuple_ty(rel);
            for neg in [false, true] {
                let n = self.layer_name(rel, neg, Layer::Definite);
                let init = (p.relations[rel].kind != RelationKind::Institutional).then(|| {
                    let i = self.input_name(rel, neg);
                    quote!(::clir::rt::take(&mut l.#i))
                });
                definite.push((n, ty.clone(), init));
            }
        }
        let heads: Vec<(usize, Ident, Option<Ident>)> = st
            .definite
            .iter()
            .map(|&ri| {
                let h = &p.rules[ri].head;
                (ri, self.layer_name(h.rel, h.negative, Layer::Definite), None)
            })
            .collect();
        let (stmts, empty) = self.fixpoint(&heads, &definite, true, st.definite_recursive);
        out.extend(stmts);
        match st.shape {
            Shape::Collapsed | Shape::Inputs => {}
            Shape::Uncontested => {
                let mut computed: Computed = Vec::new();
                for &rel in &st.rels {
                    let ty = self.tuple_ty(rel);
                    for neg in [false, true] {
                        let d = self.layer_name(rel, neg, Layer::Definite);
                        for layer in [Layer::Concluded, Layer::Supported] {
                            let n = self.layer_name(rel, neg, layer);
                            if !computed.iter().any(|(m, _, _)| *m == n) {
                                let init = (!empty.contains(&d)).then(|| quote!(l.#d.clone()));
                                computed.push((n, ty.clone(), init));
                            }
                        }
                    }
                }
                let heads: Vec<(usize, Ident, Option<Ident>)> = st
                    .applicable
                    .iter()
                    .map(|&ri| {
                        let h = &p.rules[ri].head;
                        let c = self.layer_name(h.rel, h.negative, Layer::Concluded);
                        let s = self.layer_name(h.rel, h.negative, Layer::Supported);
                        // +S regardless; +d unless the complement is definite.
                        if c == s {
                            (ri, c, None)
                        } else {
                            let d = self.layer_name(h.rel, !h.negative, Layer::Definite);
                            (ri, s, Some(d))
                        }
                    })
                    .collect();
                out.extend(self.fixpoint(&heads, &computed, false, st.applicable_recursive).0);
            }
            Shape::Contested => out.extend(self.contested(si)),
        }
        for &ci in &st.closures {
            out.extend(self.closure(ci));
        }
        out
    }

    /// The call of rule `ri`'s function over `args`: the relation of its heads.
    fn rule_call(&self, ri: usize, args: &[TokenStream]) -> TokenStream {
        let name = self.rule_fn_name(ri);
        let rule = &self.p.rules[ri];
        let mut used = Vec::new();
        for a in &rule.head.args {
            rule.term_vars(*a, &mut used);
        }
        let pat = self.vars_tuple(ri, &self.plan.rules[ri].binding, Some(&used));
        let head = self.head_tuple(ri);
        let cases = self.plan.rules[ri].per_case.then(|| quote!(&l.cases,));
        quote!(self::#name(#cases #(#args,)* &|&#pat| #head))
    }

    /// The statements computing the layers `computed` (named as the layer, each with the
    /// relation it starts from) by the rules of `heads`: each rule's heads go into its layer and,
    /// when the third field names a `+D` layer, also into the concluded layer but for those that
    /// one holds. Over definite premises when `definite`; when `recursive`, one datafrog
    /// `Iteration` with a `Variable` per layer, each rule reading the recent tuples of each
    /// operand of the stratum in turn. Stores the final layers in `l`, but for those that are
    /// statically empty (no initial tuples, no rule adds to them), left as `l` holds them and
    /// returned.
    fn fixpoint(
        &self,
        heads: &[(usize, Ident, Option<Ident>)],
        computed: &Computed,
        definite: bool,
        recursive: bool,
    ) -> (TokenStream, Vec<Ident>) {
        let is_computed = |n: &Ident| computed.iter().any(|(m, _, _)| m == n);
        // The layers some rule adds to: only those are mutable.
        let mut targets: Vec<Ident> = Vec::new();
        // An iteration when some rule reads a relation of the stratum.
        let recursive =
            recursive && heads.iter().any(|&(ri, _, _)| !self.plan.rules[ri].never && !self.plan.own[ri].is_empty());
        // Adds a relation of heads to a layer: a variable of the iteration, or a `Vec`.
        let insert = |n: &Ident, r: TokenStream| {
            if recursive {
                quote! { #n.insert(#r); }
            } else {
                quote! { #n.extend(#r.elements); }
            }
        };
        // Adds the heads `call` yields to rule `ri`'s layers.
        let adds = |ri: usize, into: &Ident, unless: &Option<Ident>, call: TokenStream| match unless {
            None => insert(into, call),
            Some(d) => {
                let h = &self.p.rules[ri].head;
                let c = self.layer_name(h.rel, h.negative, Layer::Concluded);
                let concluded = insert(&c, quote!(::clir::rt::difference(&found, &l.#d)));
                let supported = insert(into, quote!(found));
                quote! {{ let found = #call; #concluded #supported }}
            }
        };
        let mut once = TokenStream::new();
        // Without an iteration: per layer, the relations of heads it is the union of.
        let mut parts: Vec<(Ident, TokenStream)> = Vec::new();
        let mut rounds = TokenStream::new();
        // The variables some round reads whole: before the last round, and with it.
        let (mut read_stable, mut read_total): (Vec<Ident>, Vec<Ident>) = (Vec::new(), Vec::new());
        for (ri, into, unless) in heads {
            let ri = *ri;
            let rp = &self.plan.rules[ri];
            if rp.never {
                continue;
            }
            let layers: Vec<Ident> = rp.operands.iter().map(|o| self.operand_layer(o, definite)).collect();
            // The operands read from the stratum itself: the variables of its iteration.
            let dynamic: Vec<usize> = if recursive { self.plan.own[ri].clone() } else { Vec::new() };
            debug_assert!(
                dynamic.iter().all(|&j| is_computed(&layers[j])),
                "a round reads what the iteration computes"
            );
            targets.push(into.clone());
            if unless.is_some() {
                let h = &self.p.rules[ri].head;
                targets.push(self.layer_name(h.rel, h.negative, Layer::Concluded));
            }
            if dynamic.is_empty() {
                let args: Vec<TokenStream> = layers.iter().map(|n| quote!(&l.#n)).collect();
                let call = self.rule_call(ri, &args);
                match unless {
                    _ if recursive => once.extend(adds(ri, into, unless, call)),
                    None => parts.push((into.clone(), call)),
                    Some(d) => {
                        let found = format_ident!("{}_found", self.names.rules[ri]);
                        let h = &self.p.rules[ri].head;
                        let c = self.layer_name(h.rel, h.negative, Layer::Concluded);
                        once.extend(quote! { let #found = #call; });
                        parts.push((c, quote!(::clir::rt::difference(&#found, &l.#d))));
                        parts.push((into.clone(), quote!(#found.clone())));
                    }
                }
                continue;
            }
            // Semi-naive: one call per operand of the stratum, its recent tuples against the
            // stable ones of the operands before it and all so far of those after it.
            for i in 0..dynamic.len() {
                let args: Vec<TokenStream> = layers
                    .iter()
                    .enumerate()
                    .map(|(k, n)| match dynamic.iter().position(|&d| d == k) {
                        Some(x) if x == i => quote!(&#n.recent.borrow()),
                        Some(x) if x < i => {
                            read_stable.push(n.clone());
                            let m = format_ident!("{}_stable", n);
                            quote!(&#m)
                        }
                        Some(_) => {
                            read_total.push(n.clone());
                            let m = format_ident!("{}_total", n);
                            quote!(&#m)
                        }
                        None => quote!(&l.#n),
                    })
                    .collect();
                rounds.extend(adds(ri, into, unless, self.rule_call(ri, &args)));
            }
        }
        let empty: Vec<Ident> = computed
            .iter()
            .filter(|(n, _, init)| init.is_none() && !targets.contains(n))
            .map(|(n, _, _)| n.clone())
            .collect();
        if rounds.is_empty() {
            let kept: Vec<&ComputedLayer> = computed.iter().filter(|(n, _, _)| !empty.contains(n)).collect();
            // A layer no rule adds to is the relation it starts from.
            let (added, unchanged): (Vec<&&ComputedLayer>, Vec<_>) =
                kept.iter().partition(|(n, _, _)| targets.contains(n));
            let assigns = added.iter().map(|(n, ty, init)| {
                let of: Vec<&TokenStream> = parts.iter().filter(|(m, _)| m == n).map(|(_, r)| r).collect();
                match (init, &of[..]) {
                    // One rule's heads: the relation its leapjoin yields.
                    (None, [only]) => quote! { l.#n = #only; },
                    _ => {
                        let init = init.as_ref().map_or_else(|| quote!(Vec::new()), |r| quote!(#r.elements));
                        quote! {
                            let mut #n: Vec<#ty> = #init;
                            #(#n.extend(#of.elements);)*
                            l.#n = Relation::from_vec(#n);
                        }
                    }
                }
            });
            let moves = unchanged.iter().map(|(n, _, init)| quote! { l.#n = #init; });
            let stmts = quote! {
                #(#moves)*
                #once
                #(#assigns)*
            };
            return (stmts, empty);
        }
        let names: Vec<&Ident> = computed.iter().map(|(n, _, _)| n).collect();
        let vars = computed.iter().map(|(n, ty, init)| {
            let label = n.to_string();
            let insert = init.as_ref().map(|r| quote! { #n.insert(#r); });
            quote! {
                let #n = iteration.variable::<#ty>(#label);
                #insert
            }
        });
        read_stable.sort();
        read_stable.dedup();
        read_total.sort();
        read_total.dedup();
        let stables = read_stable.iter().map(|n| {
            let m = format_ident!("{}_stable", n);
            quote! { let #m = ::clir::rt::stable(&#n); }
        });
        let totals = read_total.iter().map(|n| {
            let m = format_ident!("{}_total", n);
            quote! { let #m = ::clir::rt::total(&#n); }
        });
        let stmts = quote! {
            let mut iteration = ::clir::rt::Iteration::new();
            #(#vars)*
            #once
            while iteration.changed() {
                #(#stables)*
                #(#totals)*
                #rounds
            }
            #(l.#names = #names.complete();)*
        };
        (stmts, Vec::new())
    }

    /// A contested relation: each rule's applicability over lower strata, then team defeat.
    fn contested(&mut self, si: usize) -> TokenStream {
        let st = self.plan.strata[si].clone();
        let p = self.p;
        let rel = st.rels[0];
        let ty = self.tuple_ty(rel);
        let mut out = TokenStream::new();
        let apps: Vec<Ident> =
            st.applicable.iter().map(|&ri| format_ident!("{}_applies", self.names.rules[ri])).collect();
        for (&ri, app) in st.applicable.iter().zip(&apps) {
            if self.plan.rules[ri].never {
                out.extend(quote! { let #app = ::clir::rt::empty::<#ty>(); });
                continue;
            }
            let args: Vec<TokenStream> = self.plan.rules[ri]
                .operands
                .iter()
                .map(|o| {
                    let n = self.operand_layer(o, false);
                    quote!(&l.#n)
                })
                .collect();
            let call = self.rule_call(ri, &args);
            out.extend(quote! { let #app = #call; });
        }
        let app_of = |ri: usize| apps[st.applicable.iter().position(|&x| x == ri).expect("rule of stratum")].clone();
        for neg in [false, true] {
            let concl = |ri: usize| p.rules[ri].head.negative == neg && p.rules[ri].strength != Strength::Defeater;
            let supporters: Vec<usize> = st.applicable.iter().copied().filter(|&r| concl(r)).collect();
            let attackers: Vec<usize> =
                st.applicable.iter().copied().filter(|&r| p.rules[r].head.negative != neg).collect();
            let d = self.layer_name(rel, neg, Layer::Definite);
            let not_d = self.layer_name(rel, !neg, Layer::Definite);
            let s = self.layer_name(rel, neg, Layer::Supported);
            let c = self.layer_name(rel, neg, Layer::Concluded);
            let sup_apps: Vec<Ident> = supporters.iter().map(|&r| app_of(r)).collect();
            let mut attacks = Vec::new();
            let mut comments = TokenStream::new();
            for &a in &attackers {
                let beaters: Vec<usize> = supporters
                    .iter()
                    .copied()
                    .filter(|&t| p.superiority.iter().any(|x| x.higher == t && x.lower == a))
                    .collect();
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
                if beaters.is_empty() {
                    attacks.push(quote!(#a_app.clone()));
                } else {
                    let b_apps = beaters.iter().map(|&t| app_of(t));
                    attacks.push(quote!(::clir::rt::difference(&#a_app, &::clir::rt::union(&[#(&#b_apps),*]))));
                }
            }
            let sign = if neg { "~" } else { "" };
            let head = self.comment(format!(
                "{sign}{}: concluded when definite, or when a rule for it applies, {sign}{} is not the complement of a definite fact, and every applicable attack is beaten (team defeat)",
                p.relations[rel].name, p.relations[rel].name
            ));
            let candidates = format_ident!("{}_candidates", c);
            let unbeaten = format_ident!("{}_unbeaten_attacks", c);
            let candidates_init = if sup_apps.is_empty() {
                quote!(::clir::rt::empty::<#ty>())
            } else {
                quote!(::clir::rt::union(&[#(&#sup_apps),*]))
            };
            let unbeaten_init = if attacks.is_empty() {
                quote!(::clir::rt::empty::<#ty>())
            } else {
                quote!(::clir::rt::union(&[#(&#attacks),*]))
            };
            let s_stmt = if s == c {
                TokenStream::new()
            } else {
                quote! { l.#s = ::clir::rt::union(&[&l.#d, &#candidates]); }
            };
            out.extend(quote! {
                #head
                let #candidates = #candidates_init;
                #comments
                let #unbeaten = #unbeaten_init;
                #s_stmt
                l.#c = ::clir::rt::union(&[
                    &l.#d,
                    &::clir::rt::difference(&::clir::rt::difference(&#candidates, &l.#not_d), &#unbeaten),
                ]);
            });
        }
        out
    }

    fn closure(&mut self, ci: usize) -> TokenStream {
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
        let dom = self.layer_name(c.domain, false, Layer::Concluded);
        let sup = self.layer_name(c.rel, false, Layer::Supported);
        let closed = self.closure_name(ci);
        let mut stmts = quote! {
            #comment
            l.#closed = ::clir::rt::difference(&l.#dom, &l.#sup);
        };
        let mut done: Vec<Ident> = Vec::new();
        for layer in [Layer::Definite, Layer::Supported, Layer::Concluded] {
            let name = self.layer_name(c.rel, true, layer);
            if !done.contains(&name) {
                stmts.extend(quote! { l.#name = ::clir::rt::union(&[&l.#name, &l.#closed]); });
                done.push(name);
            }
        }
        stmts
    }
}
