//! `clir analyze PACKAGE`: conflicts, dead rules and idle priorities found before a case does
//! (docs/ANALYZE.md). `clir_codegen::analyze` proposes witness cases; this command rules them
//! with the compiled package (in this process for a compiled-in package, with its binary for a
//! package file, as `clir rule` does) and reports only what the rulings confirm: one JSON line a
//! finding (docs/FORMAT.md "Analysis lines"), or a table.

use super::package_arg::{PackageArg, PackageRef};
use super::{note, print_json_lines, print_lines, stdout_failed, CANNOT_RUN, FAILURE, OK};
use clap::{Args, ValueEnum};
use clir_codegen::analyze::{self, Analysis, Bounds, ConflictKind, DeadProof, Exercised, Finding, IdleProof, Ruled};
use clir_codegen::analyze::{Standing, Value as V};
use clir_codegen::resolve::{Program, RItem};
use clir_codegen::verify::{verify_bytes, VerifyOptions};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::{BufRead, Write};

/// How findings are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object a finding.
    Json,
    /// A table for people.
    Table,
}

/// The kinds of findings `--deny` can make fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    /// Conflicts, strict or defeasible.
    Conflicts,
    /// Rules proven dead.
    Dead,
    /// Rules not found applicable within the bounds.
    Unreached,
    /// Idle priorities.
    Idle,
}

/// Options of `clir analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub package: PackageArg,
    /// `json`: one JSON line a finding; `table`: for people.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Exit 1 when findings of these kinds exist (comma-separated: conflicts, dead, unreached,
    /// idle).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KINDS")]
    pub deny: Vec<Deny>,
    /// Rule applications on a path from a rule's body down to input facts, 1 to 64.
    #[arg(long, value_name = "N", default_value_t = Bounds::default().depth,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// Branches visited per search (a rule, a pair of rules, a priority), 1 to 1000000.
    #[arg(long, value_name = "N", default_value_t = Bounds::default().steps as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub steps: u64,
    /// Complete branches kept per search, each grounded into one or two witness cases, 1 to 100.
    #[arg(long, value_name = "N", default_value_t = Bounds::default().candidates as u64,
          value_parser = clap::value_parser!(u64).range(1..=100))]
    pub candidates: u64,
    /// Pairs of opposite rules searched for a conflict at most, in the package's order; the
    /// summary says how many were left out.
    #[arg(long, value_name = "N", default_value_t = Bounds::default().pairs as u64,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub max_pairs: u64,
}

/// Runs the analysis; exit 1 when `--deny` names a kind found, 2 when the package cannot be
/// read, built or ruled.
pub fn run(args: &AnalyzeArgs) -> u8 {
    let bounds = Bounds {
        depth: args.depth,
        steps: args.steps as usize,
        candidates: args.candidates as usize,
        pairs: args.max_pairs as usize,
        ..Bounds::default()
    };
    let package = args.package.resolve();
    let (doc, ruler) = match &package {
        PackageRef::Compiled(name) => {
            let pkg = match super::run::compiled_package(name) {
                Ok(p) => p,
                Err(msg) => {
                    note("analyze", msg);
                    return CANNOT_RUN;
                }
            };
            let Ok(bytes) = super::package_arg::bytes("analyze", &package) else { return CANNOT_RUN };
            let report = verify_bytes(&bytes, &VerifyOptions::default());
            match report.into_document() {
                Ok(d) => (d, Ruler::InProcess(pkg)),
                Err(e) => {
                    note("analyze", format_args!("{name} does not verify: {e}"));
                    return CANNOT_RUN;
                }
            }
        }
        PackageRef::File(path) => match super::run::build(path, "analyze") {
            Ok(built) => (built.doc, Ruler::Binary(built.binary)),
            Err(code) => return code,
        },
    };
    let program = match clir_codegen::resolve::resolve(&doc) {
        Ok(p) => p,
        Err(errors) => {
            eprint!("{}", errors.render("error", clir_codegen::Source::of(&doc)));
            return CANNOT_RUN;
        }
    };
    let started = std::time::Instant::now();
    let analysis = analyze::analyze(&program, &bounds);
    let grants = grants(&program);
    let lines: Vec<String> =
        analysis.candidates.iter().enumerate().map(|(i, c)| case_line(&program, i, c, true).to_string()).collect();
    let (rulings, coverage) = match ruler.rule(&lines, &grants) {
        Ok(r) => r,
        Err(e) => {
            note("analyze", e);
            return CANNOT_RUN;
        }
    };
    let ruled: Vec<Option<Ruled>> =
        analysis.candidates.iter().zip(&rulings).map(|(c, r)| observed(&program, c, r)).collect();
    let exercised = exercised(&program, &coverage);
    let findings = analyze::confirm(&program, &analysis, &ruled, &exercised);
    let out: Vec<Value> = findings.iter().map(|f| finding_json(&program, &analysis, &grants, f)).collect();
    note(
        "analyze",
        format_args!(
            "{} {}: {} rules, {} pairs searched{}, {} witness cases ruled in {:.2} s; {} findings",
            program.name,
            program.version,
            program.rules.len(),
            analysis.pairs,
            match analysis.pairs_skipped {
                0 => String::new(),
                n => format!(" ({n} more past --max-pairs, not searched)"),
            },
            lines.len(),
            started.elapsed().as_secs_f64(),
            out.len()
        ),
    );
    let printed = match args.format {
        Format::Json => print_json_lines(out.iter().map(Value::to_string)),
        Format::Table => print_lines(table(&out)),
    };
    if let Err(e) = printed {
        return stdout_failed("analyze", &e);
    }
    let denied = out.iter().any(|f| {
        let kind = f["kind"].as_str().unwrap_or_default();
        args.deny.iter().any(|d| match d {
            Deny::Conflicts => kind == "conflict",
            Deny::Dead => kind == "dead",
            Deny::Unreached => kind == "not_found_applicable",
            Deny::Idle => kind == "idle_priority",
        })
    });
    if denied {
        FAILURE
    } else {
        OK
    }
}

/// What rules the witness cases.
enum Ruler {
    /// A package compiled into this clir.
    InProcess(&'static dyn clir::Package),
    /// A package file's binary, built as `clir rule --package FILE` builds it.
    Binary(std::path::PathBuf),
}

impl Ruler {
    /// The ruling line of each case line, in order, and the coverage document of them all.
    fn rule(&self, lines: &[String], grants: &[String]) -> Result<(Vec<Value>, Value), String> {
        if lines.is_empty() {
            return Ok((Vec::new(), Value::Null));
        }
        let (rulings, coverage) = match self {
            Ruler::InProcess(pkg) => {
                let cat = clir::jsonl::Catalog::of(*pkg);
                let coverage = clir::coverage::Coverage::shared(pkg.schema());
                let opts = clir::jsonl::Options {
                    grants: grants.to_vec(),
                    coverage: Some(coverage.clone()),
                    max_case_tuples: Some(clir::jsonl::DEFAULT_MAX_CASE_TUPLES),
                    ..Default::default()
                };
                let mut out = Vec::new();
                for (k, chunk) in lines.chunks(512).enumerate() {
                    let numbered: Vec<(usize, String)> =
                        chunk.iter().enumerate().map(|(i, l)| (k * 512 + i + 1, l.clone())).collect();
                    out.extend(clir::jsonl::rule_chunk(*pkg, &cat, &numbered, &opts).0);
                }
                let doc = coverage.lock().map(|c| c.to_json()).unwrap_or(Value::Null);
                (out, doc)
            }
            Ruler::Binary(binary) => rule_with_binary(binary, lines, grants)?,
        };
        if rulings.len() != lines.len() {
            return Err(format!("{} case lines got {} ruling lines", lines.len(), rulings.len()));
        }
        let rulings = rulings.iter().map(|l| serde_json::from_str(l).unwrap_or(Value::Null)).collect();
        Ok((rulings, coverage))
    }
}

/// Rules `lines` with a package binary (stdin to stdout, coverage to a private temporary file).
fn rule_with_binary(
    binary: &std::path::Path,
    lines: &[String],
    grants: &[String],
) -> Result<(Vec<String>, Value), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let coverage = dir.path().join("coverage.json");
    let mut cmd = std::process::Command::new(binary);
    for g in grants {
        cmd.arg("--grant").arg(g);
    }
    cmd.arg("--coverage").arg(&coverage).arg("--threads").arg("1");
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let out: Vec<String> = std::io::BufReader::new(stdout).lines().map_while(Result::ok).collect();
    let wrote = writer.join().map_err(|_| "the writer of the cases failed".to_string())?;
    let status = child.wait().map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    // Exit 1 means some line was an error line: those are read as rulings that confirm nothing.
    if !status.success() && status.code() != Some(1) {
        return Err(format!("{} failed ({status})", binary.display()));
    }
    wrote.map_err(|e| format!("cannot write the cases to {}: {e}", binary.display()))?;
    let doc = std::fs::read(&coverage).map_err(|e| format!("cannot read the coverage of the cases: {e}"))?;
    let doc = serde_json::from_slice(&doc).map_err(|e| format!("the coverage of the cases is not JSON: {e}"))?;
    Ok((out, doc))
}

/// Every capability the package's judgment relations need: a witness may state their facts.
fn grants(p: &Program) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in &p.relations {
        if let Some(c) = &r.capability {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
    }
    out
}

/// `name(a,b)`, `~name(a,b)` when negative: as why-not answers write their keys
/// ([`clir::why_not::shown_entity`]), so that the answers are found by it.
fn literal_text(p: &Program, rel: usize, negative: bool, args: &[V]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| match a {
            V::Int(i) => i.to_string(),
            V::Name(s) | V::Str(s) => clir::why_not::shown_entity(s).into_owned(),
        })
        .collect();
    let name = p.relations.get(rel).map_or("", |r| r.name.as_str());
    format!("{}{name}({})", if negative { "~" } else { "" }, args.join(","))
}

fn value_json(v: &V) -> Value {
    match v {
        V::Int(i) => json!(i),
        V::Name(s) | V::Str(s) => json!(s),
    }
}

/// The case line of candidate `i`: its facts, and for a pair of rules `why_not` of both signs
/// of its literal (`ask`).
fn case_line(p: &Program, i: usize, c: &analyze::Candidate, ask: bool) -> Value {
    let mut facts = Map::new();
    for f in &c.facts {
        let key = format!("{}{}", if f.negative { "~" } else { "" }, p.relations[f.rel].name);
        let tuple = Value::Array(f.args.iter().map(value_json).collect());
        if let Value::Array(ts) = facts.entry(key).or_insert_with(|| json!([])) {
            ts.push(tuple);
        }
    }
    let mut line = json!({"case": format!("w{}", i + 1), "facts": facts});
    if let (true, Some((rel, args))) = (ask, &c.literal) {
        line["why_not"] = json!([literal_text(p, *rel, false, args), literal_text(p, *rel, true, args)]);
    }
    line
}

/// What candidate `c`'s ruling shows of its literal, `None` for an error line or a candidate
/// without a literal.
fn observed(p: &Program, c: &analyze::Candidate, ruling: &Value) -> Option<Ruled> {
    let (rel, args) = c.literal.as_ref()?;
    let answers = ruling.get("why_not")?;
    let index: HashMap<&str, usize> = p.rules.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
    let mut applicable: Vec<usize> = Vec::new();
    let mut standing = |negative: bool| -> Option<Standing> {
        let answer = answers.get(literal_text(p, *rel, negative, args))?;
        let concluded = answer["concluded"].as_bool()?;
        let mut s = Standing { concluded, supported: concluded, definite: false };
        if concluded {
            let e = &answer["explanation"];
            s.definite = e["definite"].as_bool().unwrap_or(false);
            if let Some(&r) = e["rule"].as_str().and_then(|id| index.get(id)) {
                applicable.push(r);
            }
        }
        for reason in answer["reasons"].as_array().into_iter().flatten() {
            if reason["kind"] == "attacked" {
                s.supported = true;
                for id in [reason["rule"]["id"].as_str(), reason["by"].as_str()].into_iter().flatten() {
                    if let Some(&r) = index.get(id) {
                        applicable.push(r);
                    }
                }
            }
        }
        Some(s)
    };
    let q = standing(false)?;
    let not_q = standing(true)?;
    Some(Ruled { q, not_q, applicable: Some(applicable) })
}

/// Which rules and priorities the rulings exercised, from their coverage document.
fn exercised(p: &Program, coverage: &Value) -> Exercised {
    let count = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
    let mut applied = vec![false; p.rules.len()];
    let mut decided = vec![false; p.superiority.len()];
    for r in coverage["rules"].as_array().into_iter().flatten() {
        if let Some(i) = p.rules.iter().position(|x| Some(x.id.as_str()) == r["rule"].as_str()) {
            applied[i] = count(r, "applicable") + count(r, "definite") > 0;
        }
    }
    for s in coverage["priorities"].as_array().into_iter().flatten() {
        if let Some(i) = p.superiority.iter().position(|x| Some(x.id.as_str()) == s["priority"].as_str()) {
            decided[i] = count(s, "decided") > 0;
        }
    }
    Exercised { applied, decided }
}

/// A rule as a finding names it.
fn rule_json(p: &Program, r: usize) -> Value {
    let rule = &p.rules[r];
    let articles: Vec<&str> =
        rule.anchors.iter().filter_map(|&f| p.fragments.get(f)).map(|f| f.locator.as_str()).collect();
    let strength = match rule.strength {
        clir_codegen::ir::Strength::Strict => "strict",
        clir_codegen::ir::Strength::Defeasible => "defeasible",
        clir_codegen::ir::Strength::Defeater => "defeater",
    };
    json!({"id": rule.id, "label": rule.label, "strength": strength, "articles": articles})
}

/// The bounds, as a finding within them names them.
fn bound_json(a: &Analysis) -> Value {
    json!({"depth": a.bounds.depth, "steps": a.bounds.steps, "candidates": a.bounds.candidates})
}

/// One finding as its JSON line (docs/schemas/analysis.schema.json).
fn finding_json(p: &Program, a: &Analysis, grants: &[String], f: &Finding) -> Value {
    match f {
        Finding::Conflict { kind, pos, neg, witness } => {
            let c = &a.candidates[*witness];
            let (rel, args) = c.literal.clone().unwrap_or_default();
            let (q, nq) = (literal_text(p, rel, false, &args), literal_text(p, rel, true, &args));
            let (kind, says) = match kind {
                ConflictKind::Strict => ("strict", "definite"),
                ConflictKind::Defeasible => ("defeasible", "undecided"),
            };
            let used: Vec<&String> = grants
                .iter()
                .filter(|g| c.facts.iter().any(|f| p.relations[f.rel].capability.as_ref() == Some(*g)))
                .collect();
            json!({
                "kind": "conflict",
                "conflict": kind,
                "literal": q,
                "tuple": args.iter().map(value_json).collect::<Vec<Value>>(),
                "rules": [rule_json(p, *pos), rule_json(p, *neg)],
                "witness": case_line(p, *witness, c, false),
                "grants": used,
                "ruling": {q.clone(): says, nq: says},
            })
        }
        Finding::Dead { rule, proof } => {
            let (name, premise) = match proof {
                DeadProof::False => ("false_item", None),
                DeadProof::Comparisons => ("comparisons_exclude_each_other", None),
                DeadProof::Underivable(i) => ("underivable_premise", Some(*i)),
                DeadProof::EveryUnfoldingFails => ("every_unfolding_fails", None),
            };
            let mut v = json!({"kind": "dead", "rules": [rule_json(p, *rule)], "proof": name});
            if let Some(RItem::Literal(_, l)) = premise.and_then(|i| p.rules[*rule].body.get(i)) {
                let shown = format!("{}{}", if l.negative { "~" } else { "" }, p.relations[l.rel].name);
                v["premise"] = json!(shown);
            }
            v
        }
        Finding::NotFoundApplicable { rule } => {
            json!({"kind": "not_found_applicable", "rules": [rule_json(p, *rule)], "bound": bound_json(a)})
        }
        Finding::IdlePriority { priority, proof } => {
            let s = &p.superiority[*priority];
            let proof = proof.map(|x| match x {
                IdleProof::NotComplementary => "heads_not_complementary",
                IdleProof::HigherDefeater => "higher_is_a_defeater",
                IdleProof::DeadRule(_) => "a_rule_is_dead",
                IdleProof::HeadsNeverMeet => "heads_never_meet",
                IdleProof::NeverTogether => "never_applicable_together",
            });
            let mut v = json!({
                "kind": "idle_priority",
                "priority": {"id": s.id, "label": s.label},
                "rules": [rule_json(p, s.higher), rule_json(p, s.lower)],
            });
            match proof {
                Some(proof) => v["proof"] = json!(proof),
                None => v["bound"] = bound_json(a),
            }
            v
        }
    }
}

/// The findings as a table: kind, rules, and what shows it.
fn table(findings: &[Value]) -> Vec<String> {
    let mut lines = vec![format!("{:21}  {:40}  detail", "finding", "rules")];
    for f in findings {
        let ids: Vec<&str> = f["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| r["id"].as_str().unwrap_or_default())
            .map(|id| id.rsplit_once('#').map_or(id, |(_, local)| local))
            .collect();
        let kind = f["kind"].as_str().unwrap_or_default();
        let detail = match kind {
            "conflict" => format!(
                "{} on {}; witness: {}",
                f["conflict"].as_str().unwrap_or_default(),
                f["literal"].as_str().unwrap_or_default(),
                f["witness"]
            ),
            "dead" => match f["premise"].as_str() {
                Some(premise) => format!("{} ({premise})", f["proof"].as_str().unwrap_or_default()),
                None => f["proof"].as_str().unwrap_or_default().to_string(),
            },
            "idle_priority" => {
                let id = f["priority"]["id"].as_str().unwrap_or_default();
                let proof = f["proof"].as_str().map_or_else(|| format!("within {}", f["bound"]), str::to_string);
                format!("{}: {proof}", id.rsplit_once('#').map_or(id, |(_, l)| l))
            }
            _ => format!("within {}", f["bound"]),
        };
        let sep = if kind == "idle_priority" { " > " } else { ", " };
        lines.push(format!("{kind:21}  {:40}  {detail}", ids.join(sep)));
    }
    lines
}
