//! `clir schema PACKAGE`: what a package's cases may say (its relations with their labels,
//! kinds, arguments and types, its constants and capabilities), as a table or as the JSON the
//! service's `/v1/packages/{name}/schema` answers. A package file is compiled as `clir run`
//! compiles it, and its binary says its schema.

use super::package_arg::{PackageArg, PackageRef};
use super::{note, print_lines, stdout_failed, CANNOT_RUN, OK};
use clap::Args;
use serde_json::{json, Value};

/// Options of `clir schema`.
#[derive(Args, Debug)]
pub struct SchemaArgs {
    #[command(flatten)]
    pub package: PackageArg,
    /// The JSON the service answers, instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Prints the schema; exit 2 when the package cannot be read, built or run.
pub fn run(args: &SchemaArgs) -> u8 {
    let schema = match args.package.resolve() {
        PackageRef::Compiled(name) => match super::run::compiled_package(name) {
            Ok(pkg) => pkg.schema().to_json(name, None),
            Err(msg) => {
                note("schema", msg);
                return CANNOT_RUN;
            }
        },
        PackageRef::File(path) => match of_file(&path) {
            Ok(schema) => schema,
            Err(code) => return code,
        },
    };
    let lines = if args.json { vec![schema.to_string()] } else { table(&schema) };
    match print_lines(lines) {
        Ok(()) => OK,
        Err(e) => stdout_failed("schema", &e),
    }
}

/// The schema of a package file, as its compiled binary (`--schema`) writes it.
fn of_file(path: &std::path::Path) -> Result<Value, u8> {
    let built = super::run::build(path, "schema")?;
    let out = std::process::Command::new(&built.binary)
        .arg("--schema")
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| {
            note("schema", format_args!("cannot run {}: {e}", built.binary.display()));
            CANNOT_RUN
        })?;
    if !out.status.success() {
        return Err(super::run::child_status("schema", &built.binary, out.status));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| {
        note("schema", format_args!("{} wrote no schema: {e}", built.binary.display()));
        CANNOT_RUN
    })
}

/// The schema as a table, from its JSON ([`clir::Schema::to_json`]): a relation a line (name,
/// kind, arguments with their types, what a judgment needs) with its label under it, then each
/// type's constants and a case line of the package.
fn table(schema: &Value) -> Vec<String> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    let list = |v: &Value, key: &str| v.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut lines = vec![format!("{} {} ({})", text(schema, "name"), text(schema, "version"), text(schema, "seal"))];
    match (text(schema, "inForce"), text(schema, "until")) {
        (from, until) if from.is_empty() && until.is_empty() => {}
        (from, until) if until.is_empty() => lines.push(format!("in force from {from} (cases may say \"as_of\")")),
        (from, until) if from.is_empty() => lines.push(format!("in force until {until} (cases may say \"as_of\")")),
        (from, until) => lines.push(format!("in force from {from} until {until} (cases may say \"as_of\")")),
    }
    lines.push(String::new());
    let relations = list(schema, "relations");
    let width = relations.iter().map(|r| text(r, "name").len()).max().unwrap_or(0).max("relation".len());
    lines.push(format!("{:width$}  {:13}  arguments", "relation", "kind"));
    for r in &relations {
        let params = list(r, "params");
        let args: Vec<String> = params.iter().map(|q| format!("{}: {}", text(q, "name"), text(q, "type"))).collect();
        let cap = text(r, "capability");
        let needs = if cap.is_empty() { String::new() } else { format!("  (input only with --grant {cap})") };
        lines.push(format!("{:width$}  {:13}  {}{needs}", text(r, "name"), text(r, "kind"), args.join(", ")));
        let label = text(r, "label");
        if !label.is_empty() {
            lines.push(format!("{:width$}  {label}", ""));
        }
    }
    let constants = list(schema, "constants");
    let mut types: Vec<String> = Vec::new();
    for c in &constants {
        if !types.contains(&text(c, "type")) {
            types.push(text(c, "type"));
        }
    }
    if !types.is_empty() {
        lines.push(String::new());
        lines.push("constants (written by name in cases):".to_string());
        for ty in types {
            let names: Vec<String> =
                constants.iter().filter(|c| text(c, "type") == ty).map(|c| text(c, "name")).collect();
            lines.push(format!("  {ty}: {}", names.join(", ")));
        }
    }
    if let Some(r) = relations.iter().find(|r| text(r, "kind") == "empirical") {
        let args: Vec<Value> = list(r, "params")
            .iter()
            .map(|q| {
                if q.get("integer") == Some(&Value::Bool(true)) {
                    json!(1)
                } else {
                    json!(format!("{}1", text(q, "name")))
                }
            })
            .collect();
        let line = json!({"case": "c1", "facts": {text(r, "name"): [args]}});
        lines.push(String::new());
        lines.push(format!("a case line (`~{}` for an explicit negative): {line}", text(r, "name")));
    }
    lines
}
