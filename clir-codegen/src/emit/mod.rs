//! Rust generation: a [`Plan`] printed as a formatted module of datafrog relations, leapjoins
//! and iterations. Every decision (join order, keys, views, layers, fixpoints) is the plan's and
//! every name the allocator's ([`ModuleNames`]); this pass only prints.
//!
//! Every relation is a tuple relation `(CaseId, columns..)`: the case is the first column of
//! every tuple and every lookup key, so one run rules a whole batch of cases without facts of
//! one case ever meeting those of another.
//!
//! - `schema`: entity types, constants, `SCHEMA` and the `Package` impl;
//! - `lines`: `CODEC`, the tables of the package's case and ruling lines;
//! - `api`: the typed API (`Cases`, `Case`, `Rulings`, `Ruling`);
//! - `rules`: one function per rule, its chain of leapjoins over its operands;
//! - `strata`: `evaluate`, the module `layer` (a slot of `::clir::rt::Layers` per layer) and
//!   one function per stratum, of the layers it reads, calling the rules' functions;
//! - `explain`: explanation instances from the same rule functions;
//! - `why_not`: each rule's why-not walk over the final layers.

mod api;
mod explain;
mod lines;
mod rules;
mod schema;
mod strata;
mod why_not;

use crate::compilation::Compilation;
use crate::names::{ModuleNames, Round, RuleLocals};
use crate::plan::layers::{Layer, LayerId};
use crate::plan::Plan;
use crate::resolve::{Program, RRule, RTerm, Ty};
use crate::strata::Strata;
use crate::text::{comment_text, string_literal};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

/// The columns [`fill`] packs the short items of a list into, a line at a time.
const WIDTH: usize = 100;

/// Statements per function when a long list of steps is split up (so that no function grows
/// with the package).
const CHUNK: usize = 32;

/// The parts of the module, in order; each is generated, formatted and dropped before the next.
#[derive(Clone, Copy)]
enum Part {
    Prelude,
    Types,
    Schema,
    Codec,
    Api,
    Evaluate,
    Rules,
    WhyNot,
}

impl Part {
    const ALL: [Part; 8] =
        [Part::Prelude, Part::Types, Part::Schema, Part::Codec, Part::Api, Part::Evaluate, Part::Rules, Part::WhyNot];
}

/// What every part of the emitter reads: the program, its plan, and the module's names.
struct Emitter<'a> {
    p: &'a Program,
    s: &'a Strata,
    plan: &'a Plan,
    seal: String,
    /// Every identifier of the module (the one allocator).
    names: &'a ModuleNames,
    /// Per rule, its variables' identifiers.
    vars: Vec<Vec<String>>,
    /// Per rule, its operands' and views' identifiers.
    locals: Vec<RuleLocals>,
    /// Comment texts, referenced by `clir_comment!(i);` markers replaced after formatting.
    comments: Vec<String>,
    /// Code written as it is, referenced by `clir_verbatim!(i);` markers replaced after
    /// formatting ([`Emitter::verbatim`]).
    verbatim: Vec<String>,
    /// Per String literal of the program: its interner id (constants first, then the strings
    /// that are not already a name, in order).
    string_sym: Vec<u32>,
    /// The String literals given a schema constant of their own (after the declared constants).
    string_consts: Vec<String>,
    /// Whether to generate explanation instances.
    explanations: bool,
    /// Where the package is emitted as several crates: how, and what goes into each.
    split: Option<Split>,
}

/// A package emitted as several crates ([`emit_crates`]): the base crate (entity types and
/// constants), the io crate (relation indices, `CODEC`, reading cases and writing rulings, the
/// module `layer`), one crate a group of strata (its rules' and strata's functions, its
/// explanations), and the root module (schema, rule indices and tables, typed API, `evaluate`).
struct Split {
    plan: crate::plan::crates::CratesPlan,
    /// The base crate's name.
    base: Ident,
    /// The io crate's name.
    io: Ident,
    /// Per group, its crate's name.
    crates: Vec<Ident>,
    /// Per group, its items so far.
    items: Vec<TokenStream>,
    /// The io crate's items.
    io_items: TokenStream,
}

/// The sources of a package emitted as several crates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crates {
    /// The base crate's name and source: the entity types and constants.
    pub base: (String, String),
    /// The io crate's name and source: relation indices, `CODEC`, reading cases and writing
    /// rulings, the module `layer`; it depends on the base crate.
    pub io: (String, String),
    /// Per group of strata in evaluation order, its crate's name and source; each depends only
    /// on the runtime and the base crate, and numbers its own rules: a group's source changes
    /// only with its rules and the relations they read and write.
    pub groups: Vec<(String, String)>,
    /// The package's module, as [`emit_with`] writes it but calling the groups' crates.
    pub root: String,
}

/// Prints the plan of `c` as a formatted Rust module.
pub fn emit(c: &Compilation, seal: &str) -> String {
    emit_with(c, seal, true)
}

/// [`emit`], optionally without the code that computes explanation instances (smaller and
/// faster to build; `--explain` then yields no derivations).
pub fn emit_with(c: &Compilation, seal: &str, explanations: bool) -> String {
    let mut e = Emitter::new(c, seal, explanations);
    let mut out = String::new();
    for part in Part::ALL {
        if let Err(bug) = e.print(part, &mut out) {
            return bug;
        }
    }
    out
}

/// [`emit_with`] as several crates: groups of strata of at most `max_rules` rules each
/// ([`crate::plan::crates`]), the crates named `<prefix>_base`, `<prefix>_io` and
/// `<prefix>_g_<relation>` after each group's first relation (`prefix` a Rust identifier the
/// caller chooses).
pub fn emit_crates(c: &Compilation, seal: &str, explanations: bool, max_rules: usize, prefix: &str) -> Crates {
    let first = |st: &crate::strata::Stratum| st.rels.first().map_or("", |&r| c.names.relations[r].as_str());
    let names: Vec<&str> = c.strata.strata.iter().map(first).collect();
    let plan = crate::plan::crates::crates(&c.strata, &names, max_rules);
    // Each group's crate named by its first stratum, so that a group keeps its name when one
    // is added or removed before it.
    let firsts: Vec<&str> =
        (0..plan.groups).map(|g| names[plan.group_of.iter().position(|&h| h == g).expect("a stratum")]).collect();
    let crates: Vec<Ident> = ModuleNames::group_crates(prefix, &firsts).iter().map(|n| ident(n)).collect();
    let base = ident(&ModuleNames::base_crate(prefix));
    let io = ident(&ModuleNames::io_crate(prefix));
    let items = vec![TokenStream::new(); plan.groups];
    let mut e = Emitter::new(c, seal, explanations);
    let (b, i) = (base.clone(), io.clone());
    e.split = Some(Split { plan, base: b, io: i, crates: crates.clone(), items, io_items: TokenStream::new() });
    let mut root = String::new();
    for part in Part::ALL {
        if let Err(bug) = e.print(part, &mut root) {
            let bug = (base.to_string(), bug);
            return Crates { base: bug.clone(), io: bug.clone(), groups: Vec::new(), root: bug.1 };
        }
    }
    let numberings: Vec<TokenStream> = (0..crates.len()).map(|g| e.group_numbering(g)).collect();
    let split = e.split.take().expect("split");
    let print = |e: &Emitter, tokens: TokenStream| {
        let mut src = String::new();
        if let Err(bug) = e.print_tokens(tokens, &mut src) {
            src = bug;
        }
        src
    };
    let prelude = e.part_prelude("the entity types and constants");
    let types = e.types_and_constants();
    let base_src = print(&e, quote! { #prelude #types });
    let prelude = e.part_prelude("the relation indices, the case and ruling codec and the layer slots");
    let io_items = split.io_items;
    let io_src = print(
        &e,
        quote! {
            #prelude
            #[allow(unused_imports)]
            use ::#base::*;
            #io_items
        },
    );
    let groups = split
        .items
        .into_iter()
        .zip(&crates)
        .zip(numberings)
        .map(|((items, name), numbering)| {
            let prelude = e.part_prelude("a group of its strata");
            let src = print(
                &e,
                quote! {
                    #prelude
                    #[allow(unused_imports)]
                    use ::#base::*;
                    #numbering
                    #items
                },
            );
            (name.to_string(), src)
        })
        .collect();
    Crates { base: (base.to_string(), base_src), io: (io.to_string(), io_src), groups, root }
}

impl<'a> Emitter<'a> {
    fn new(c: &'a Compilation, seal: &str, explanations: bool) -> Self {
        let Compilation { program: p, strata: s, plan, names } = c;
        let vars: Vec<Vec<String>> = p.rules.iter().map(|r| names.variables(p, r)).collect();
        let locals = plan.rules.iter().map(|rp| names.rule_locals(p, rp, &vars[rp.rule])).collect();
        let mut e = Emitter {
            p,
            s,
            plan,
            seal: seal.to_string(),
            names,
            vars,
            locals,
            comments: Vec::new(),
            verbatim: Vec::new(),
            string_sym: Vec::new(),
            string_consts: Vec::new(),
            explanations,
            split: None,
        };
        let mut interned: Vec<&str> = p.constants.iter().map(|c| c.name.as_str()).collect();
        for st in &p.strings {
            match interned.iter().position(|n| n == st) {
                Some(i) => e.string_sym.push(i as u32),
                None => {
                    e.string_sym.push(interned.len() as u32);
                    interned.push(st);
                    e.string_consts.push(st.clone());
                }
            }
        }
        e
    }

    /// Appends `part` to `out`, formatted ([`Emitter::print_tokens`]).
    fn print(&mut self, part: Part, out: &mut String) -> Result<(), String> {
        let tokens = self.part(part);
        self.print_tokens(tokens, out)
    }

    /// Appends `tokens` to `out`, parsed, formatted and with their markers replaced. Each part
    /// is printed on its own, so that only one part's syntax tree and text are held at a time,
    /// however large the package. `Err` is a bug in the emitter, not in the package: a module
    /// that shows the tokens to whoever reports it.
    fn print_tokens(&self, tokens: TokenStream, out: &mut String) -> Result<(), String> {
        let file: syn::File = match syn::parse2(tokens.clone()) {
            Ok(f) => f,
            Err(err) => return Err(format!("compile_error!({:?});\n// {}\n", err.to_string(), tokens)),
        };
        drop(tokens);
        let text = prettyplease::unparse(&file);
        drop(file);
        out.reserve(text.len() + 4096);
        expand_markers(&text, self, out);
        Ok(())
    }
}

/// The index a line that is exactly the marker `<name>!(i);` holds.
fn marker(line: &str, name: &str) -> Option<usize> {
    line.strip_prefix(name)?.strip_prefix("!(")?.strip_suffix(");")?.parse().ok()
}

/// Appends `text` to `out` with every comment marker replaced by its comment of `e.comments`
/// and every verbatim marker by its code of `e.verbatim`, at the marker's indentation. Every
/// doc and literal of package text was escaped to one inert line, so a line that is exactly a
/// marker is one of ours; each line of its comment is escaped again.
fn expand_markers(text: &str, e: &Emitter, out: &mut String) {
    for line in text.lines() {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        if let Some(code) = marker(t, "clir_verbatim").and_then(|i| e.verbatim.get(i)) {
            for l in code.lines() {
                out.push_str(indent);
                out.push_str(l);
                out.push('\n');
            }
            continue;
        }
        if let Some(comment) = marker(t, "clir_comment").and_then(|i| e.comments.get(i)) {
            for c in comment.split('\n') {
                let c = comment_text(c);
                if c.is_empty() {
                    out.push_str(&format!("{indent}//\n"));
                } else {
                    out.push_str(&format!("{indent}// {c}\n"));
                }
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// `items` of a list, each followed by a comma, as lines of `indent` and as many items as fit
/// in [`WIDTH`] columns (an item wider than that alone on its line).
fn fill(items: impl IntoIterator<Item = String>, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for item in items {
        if !line.is_empty() && line.len() + 1 + item.len() + 1 > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if line.is_empty() {
            line.push_str(indent);
        } else {
            line.push(' ');
        }
        line.push_str(&item);
        line.push(',');
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A [`string_literal`] of package text, as the source text of the literal.
fn lit(s: &str) -> String {
    string_literal(s).to_string()
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// The widest tuple Rust orders (`Ord` is implemented up to 12 fields).
const MAX_TUPLE: usize = 12;

/// A tuple of `items` (types, patterns or expressions alike): flat up to [`MAX_TUPLE`] items,
/// else the first ones and a tuple of the rest, so that a binding of any width is `Ord` and
/// orders as its flat form would.
fn tuple(mut items: Vec<TokenStream>) -> TokenStream {
    if items.len() > MAX_TUPLE {
        let rest = items.split_off(MAX_TUPLE - 1);
        items.push(tuple(rest));
    }
    quote!((#(#items,)*))
}

impl Emitter<'_> {
    /// A comment of package or compiler text, as a marker replaced after formatting.
    fn comment(&mut self, text: String) -> TokenStream {
        self.comments.push(text);
        let i = Literal::usize_unsuffixed(self.comments.len() - 1);
        quote! { clir_comment!(#i); }
    }

    /// Lines of `code` (items, or the associated items of an impl) as a marker replaced after
    /// formatting by them as they are, at the marker's indentation: one entry of a table or one
    /// macro invocation a line, where prettyplease would give each argument of a long call a
    /// line of its own. Package text in `code` is a [`string_literal`], one line whatever it
    /// holds.
    fn verbatim(&mut self, code: String) -> TokenStream {
        self.verbatim.push(code);
        let i = Literal::usize_unsuffixed(self.verbatim.len() - 1);
        quote! { clir_verbatim!(#i); }
    }

    /// The tokens of one part of the module.
    fn part(&mut self, part: Part) -> TokenStream {
        match part {
            Part::Prelude => {
                let p = self.p;
                let header = format!(
                    "Generated by clir from {} {} ({}). Do not edit: regenerate with `clir compile`.",
                    p.name, p.version, self.seal
                );
                self.prelude(header)
            }
            Part::Types if self.split.is_some() => {
                let Split { base, io, .. } = self.split.as_ref().expect("split");
                quote! {
                    #[allow(unused_imports)]
                    pub use ::#base::*;
                    #[allow(unused_imports)]
                    pub use ::#io::*;
                }
            }
            Part::Types => self.types_and_constants(),
            Part::Schema => self.schema(),
            Part::Codec if self.split.is_some() => {
                // The base crate's: the keys change with the relations only.
                let codec = self.codec();
                self.split.as_mut().expect("split").io_items.extend(codec);
                TokenStream::new()
            }
            Part::Codec => self.codec(),
            Part::Api => self.typed_api(),
            Part::Evaluate => self.evaluate_fn(),
            Part::Rules => self.rule_fns(),
            Part::WhyNot if self.explanations => self.why_not_fns(),
            Part::WhyNot => TokenStream::new(),
        }
    }

    /// The header comment `header` and the imports every generated file starts with.
    fn prelude(&mut self, header: String) -> TokenStream {
        let header = self.comment(header);
        quote! {
            #header
            #[allow(unused_imports)]
            use ::clir::rt::{ExtendBy, Holds, Once, Relation, ValueFilter};
            use ::clir::CaseId;
            #[allow(unused_imports)]
            use ::clir::Sym;
        }
    }

    /// The prelude of the base and group crates: without the package's identity (name, version,
    /// seal), which changes with every release, so that a crate whose code did not change is the
    /// same file and cargo does not build it again (DECISIONS 85).
    fn part_prelude(&mut self, what: &str) -> TokenStream {
        let header = format!(
            "Generated by clir: {what} of a law package, whose name, version and seal are in the \
             package's own crate. Do not edit: regenerate with `clir run`."
        );
        self.prelude(header)
    }

    /// The Rust type of a column of type `t` in the evaluation: `Sym` for every entity type and
    /// String, so that relations of the same shape share one type (and rustc compiles their
    /// sorts and joins once, whatever their entity types).
    fn ty(&self, t: Ty) -> TokenStream {
        match t {
            Ty::Entity(_) | Ty::String => quote!(Sym),
            Ty::Integer => quote!(i64),
        }
    }

    /// The Rust type of a value of type `t` in the typed API: the entity type's own.
    fn api_ty(&self, t: Ty) -> &str {
        match t {
            Ty::Entity(i) => &self.names.types[i],
            Ty::Integer => "i64",
            Ty::String => "::clir::Str",
        }
    }

    /// `(CaseId, T1, ..)`
    fn tuple_ty(&self, rel: usize) -> TokenStream {
        self.tuple_text(rel).parse().expect("a tuple type is Rust")
    }

    /// [`Self::tuple_ty`] as text, for code written as it is.
    fn tuple_text(&self, rel: usize) -> String {
        let cols: String = self.p.relations[rel].params.iter().map(|x| format!(", {}", self.ty(x.1))).collect();
        if cols.is_empty() {
            "(CaseId,)".to_string()
        } else {
            format!("(CaseId{cols})")
        }
    }

    /// The identifier holding `layer` of relation `rel` with sign `negative`.
    fn layer_name(&self, rel: usize, negative: bool, layer: Layer) -> Ident {
        self.layer_ident(crate::plan::layers::layer(self.s, rel, negative, layer))
    }

    /// The identifier of layer `id`: the relation's own where it has one layer.
    fn layer_ident(&self, id: LayerId) -> Ident {
        ident(&self.names.layer(id, self.s.rels[id.rel].collapsed))
    }

    /// The local holding a round's `round` tuples of the variable of layer `id`.
    fn round_ident(&self, id: LayerId, round: Round) -> Ident {
        ident(&ModuleNames::round(&self.names.layer(id, self.s.rels[id.rel].collapsed), round))
    }

    /// The module constant holding relation `rel`'s index in `SCHEMA.relations`.
    fn rel_const(&self, rel: usize) -> Ident {
        ident(&self.names.rel_const(rel))
    }

    /// The module constant holding rule `ri`'s index in `SCHEMA.rules`.
    fn rule_const(&self, ri: usize) -> Ident {
        ident(&self.names.rule_const(ri))
    }

    fn input_name(&self, rel: usize, negative: bool) -> Ident {
        ident(&self.names.input(rel, negative))
    }

    fn var(&self, ri: usize, v: usize) -> Ident {
        ident(&self.vars[ri][v])
    }

    fn term(&self, ri: usize, t: RTerm) -> TokenStream {
        self.term_with(ri, t, &|v| {
            let i = self.var(ri, v);
            quote!(#i)
        })
    }

    /// [`Self::term`] with each variable written as `var` says.
    fn term_with(&self, ri: usize, t: RTerm, var: &dyn Fn(usize) -> TokenStream) -> TokenStream {
        let rule: &RRule = &self.p.rules[ri];
        match t {
            RTerm::Var(v) => var(v),
            RTerm::Const(c) => {
                let ty = ident(&self.names.types[self.p.constants[c].ty]);
                let k = ident(&self.names.constants[c]);
                quote!(#ty::#k.0)
            }
            RTerm::Int(i) => {
                let l = Literal::i64_suffixed(i);
                quote!(#l)
            }
            RTerm::Str(i) => {
                let id = Literal::u32_unsuffixed(self.string_sym[i]);
                quote!(Sym(#id))
            }
            RTerm::Arith(i) => {
                let (op, a, b) = rule.ariths[i];
                let (a, b) = (self.term_with(ri, a, var), self.term_with(ri, b, var));
                let f = match op {
                    crate::ir::ArithOp::Add => quote!(wrapping_add),
                    crate::ir::ArithOp::Sub => quote!(wrapping_sub),
                    crate::ir::ArithOp::Mul => quote!(wrapping_mul),
                };
                quote!(i64::#f(#a, #b))
            }
        }
    }

    /// The head tuple `(case, args..)` of rule `ri`.
    fn head_tuple(&self, ri: usize) -> TokenStream {
        let args = self.p.rules[ri].head.args.iter().map(|a| self.term(ri, *a));
        quote!((case, #(#args,)*))
    }

    /// Splits `stmts` into functions `<prefix>_<k>` taking `params`; returns them, to be called
    /// in order, and their paths. Each is called once, so LLVM would inline it into its caller
    /// and undo the split: they are `#[inline(never)]`, as the strata's functions are.
    fn chunked(&self, prefix: &str, params: TokenStream, stmts: Vec<TokenStream>) -> (TokenStream, Vec<TokenStream>) {
        let mut items = TokenStream::new();
        let mut calls = Vec::new();
        for (k, part) in stmts.chunks(CHUNK).enumerate() {
            let name = ident(&ModuleNames::chunk(prefix, k));
            items.extend(quote! {
                #[inline(never)]
                fn #name(#params) {
                    #(#part)*
                }
            });
            calls.push(quote!(self::#name));
        }
        (items, calls)
    }
}
