//! `clir schema PACKAGE`: what a compiled-in package's cases may say (its relations, their
//! kinds, arguments and types, its constants and capabilities), as a table or as the JSON the
//! service's `/v1/packages/{name}/schema` answers.

use super::{note, print_lines, stdout_failed, CANNOT_RUN, OK};
use clap::Args;
use clir::schema::RelationKind;
use clir::Package;
use serde_json::{json, Value};

/// Options of `clir schema`.
#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// The compiled-in package (a name of law.toml).
    #[arg(value_name = "PACKAGE")]
    pub package: String,
    /// The JSON the service answers, instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Prints the schema; exit 2 when the package is not compiled in.
pub fn run(args: &SchemaArgs) -> u8 {
    let pkg = match super::run::compiled_package(&args.package) {
        Ok(pkg) => pkg,
        Err(msg) => {
            note("schema", msg);
            return CANNOT_RUN;
        }
    };
    let lines =
        if args.json { vec![schema_json(&args.package, pkg, None).to_string()] } else { table(&args.package, pkg) };
    match print_lines(lines) {
        Ok(()) => OK,
        Err(e) => stdout_failed("schema", &e),
    }
}

fn kind(k: RelationKind) -> &'static str {
    match k {
        RelationKind::Empirical => "empirical",
        RelationKind::Judgment => "judgment",
        RelationKind::Institutional => "institutional",
    }
}

/// The schema as a table: a relation a line (name, kind, arguments with their types, what a
/// judgment needs), then each type's constants and a case line of the package.
fn table(name: &str, pkg: &dyn Package) -> Vec<String> {
    let schema = pkg.schema();
    let mut lines = vec![format!("{name} {} ({})", schema.version, schema.seal)];
    match (schema.in_force, schema.until) {
        (Some(from), Some(until)) => {
            lines.push(format!("in force from {from} until {until} (cases may say \"as_of\")"))
        }
        (Some(from), None) => lines.push(format!("in force from {from} (cases may say \"as_of\")")),
        (None, Some(until)) => lines.push(format!("in force until {until} (cases may say \"as_of\")")),
        (None, None) => {}
    }
    lines.push(String::new());
    let width = schema.relations.iter().map(|r| r.name.len()).max().unwrap_or(0).max("relation".len());
    lines.push(format!("{:width$}  {:13}  arguments", "relation", "kind"));
    for r in schema.relations {
        let args: Vec<String> = r.params.iter().map(|q| format!("{}: {}", q.name, q.ty)).collect();
        let needs = r.capability.map_or(String::new(), |c| format!("  (input only with --grant {c})"));
        lines.push(format!("{:width$}  {:13}  {}{needs}", r.name, kind(r.kind), args.join(", ")));
    }
    let mut types: Vec<&str> = Vec::new();
    for c in schema.constants {
        if !types.contains(&c.ty) {
            types.push(c.ty);
        }
    }
    if !types.is_empty() {
        lines.push(String::new());
        lines.push("constants (written by name in cases):".to_string());
        for ty in types {
            let names: Vec<&str> = schema.constants.iter().filter(|c| c.ty == ty).map(|c| c.name).collect();
            lines.push(format!("  {ty}: {}", names.join(", ")));
        }
    }
    if let Some(r) = schema.relations.iter().find(|r| r.kind == RelationKind::Empirical) {
        let args: Vec<Value> =
            r.params.iter().map(|q| if q.integer { json!(1) } else { json!(format!("{}1", q.name)) }).collect();
        let line = json!({"case": "c1", "facts": {r.name: [args]}});
        lines.push(String::new());
        lines.push(format!("a case line (`~{}` for an explicit negative): {line}", r.name));
    }
    lines
}

/// The package's relations, constants and rules, as the review page reads them (the service
/// gives the semanticHash its law.lock pins; `clir schema --json` has none).
pub fn schema_json(name: &str, pkg: &dyn Package, semantic_hash: Option<&str>) -> Value {
    let schema = pkg.schema();
    let relations: Vec<Value> = schema
        .relations
        .iter()
        .map(|r| {
            let kind = kind(r.kind);
            let params: Vec<Value> =
                r.params.iter().map(|q| json!({"name": q.name, "type": q.ty, "integer": q.integer})).collect();
            json!({"name": r.name, "kind": kind, "params": params, "capability": r.capability})
        })
        .collect();
    let constants: Vec<Value> = schema.constants.iter().map(|c| json!({"name": c.name, "type": c.ty})).collect();
    let rules: Vec<Value> = schema
        .rules
        .iter()
        .map(|r| {
            let articles: Vec<Value> = r
                .anchors
                .iter()
                .map(|&f| {
                    let f = &schema.fragments[f as usize];
                    json!({"locator": f.locator, "citation": clir::citation(r.label, f.text)})
                })
                .collect();
            let head = schema.relations.get(r.head as usize).map_or("", |h| h.name);
            let head = if r.negative { format!("~{head}") } else { head.to_string() };
            json!({"id": r.id, "label": r.label, "strength": r.strength, "articles": articles, "head": head})
        })
        .collect();
    json!({
        "name": name,
        "version": schema.version,
        "seal": schema.seal,
        "inForce": schema.in_force,
        "until": schema.until,
        "semanticHash": semantic_hash,
        "relations": relations,
        "constants": constants,
        "rules": rules,
    })
}
