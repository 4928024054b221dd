//! Rulings through Arrow record batches (`clir::arrow`, what the wheel's `rule_arrow` calls) are
//! `clir rule`'s: on fide.laws.chess, every random and demo package, random cases (some asking
//! why not, some with explanations), compared case by case by case id; and hostile batches
//! (wrong types, nulls, 10^6 facts in one case) give an error for the call or for the row, never
//! a panic.

// Not every helper of the shared module is used here.
#[allow(dead_code)]
mod support;

use clir::arrow::arrow_array::{
    Array, ArrayRef, BooleanArray, Int64Array, ListArray, RecordBatch, StringArray, StructArray,
};
use clir::arrow::arrow_buffer::{OffsetBuffer, ScalarBuffer};
use clir::arrow::arrow_schema::{DataType, Field, Fields, Schema as ArrowSchema};
use clir::arrow::{input_schema, rule_batches};
use clir::jsonl::{rule_chunk, Catalog, Options};
use clir::{Package, RelationKind};
use clir_codegen::ir::Document;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Case lines (JSON) as one batch in the input layout: every input column of the package, a
/// null list where a case gives no key; strings and Int64 as `input_schema` says.
fn to_batch(pkg: &dyn Package, cases: &[Value]) -> RecordBatch {
    let schema = Arc::new(input_schema(pkg.schema(), DataType::Utf8));
    let mut columns: Vec<ArrayRef> = Vec::new();
    for field in schema.fields() {
        let name = field.name().as_str();
        let facts = matches!(field.data_type(), DataType::List(f) if matches!(f.data_type(), DataType::Struct(_)));
        let col: ArrayRef = match name {
            _ if facts => {
                let tuples: Vec<Option<Vec<Value>>> =
                    cases.iter().map(|c| c["facts"].get(name).and_then(Value::as_array).cloned()).collect();
                list_of(field, tuples, |items: Vec<Value>, item: &DataType| {
                    let DataType::Struct(fields) = item else { panic!("a list of structs") };
                    let cols: Vec<ArrayRef> = fields
                        .iter()
                        .enumerate()
                        .map(|(k, f)| -> ArrayRef {
                            if f.data_type() == &DataType::Int64 {
                                Arc::new(Int64Array::from_iter(items.iter().map(|t| t[k].as_i64())))
                            } else {
                                Arc::new(StringArray::from_iter(
                                    items.iter().map(|t| t[k].as_str().map(str::to_string)),
                                ))
                            }
                        })
                        .collect();
                    Arc::new(StructArray::new(fields.clone(), cols, None))
                })
            }
            "case" => Arc::new(StringArray::from_iter(cases.iter().map(|c| c["case"].as_str().map(str::to_string)))),
            "as_of" => Arc::new(StringArray::from_iter(cases.iter().map(|c| c["as_of"].as_str().map(str::to_string)))),
            "why_not" => {
                let lists = cases.iter().map(|c| {
                    c["why_not"]
                        .as_array()
                        .map(|l| l.iter().map(|s| s.as_str().map(str::to_string)).collect::<Vec<_>>())
                });
                list_of(field, lists.collect(), |values: Vec<Option<String>>, _| Arc::new(StringArray::from(values)))
            }
            other => panic!("an unexpected column `{other}`"),
        };
        columns.push(col);
    }
    RecordBatch::try_new(schema, columns).expect("a batch in the input layout")
}

/// List offsets.
fn offs(v: Vec<i32>) -> OffsetBuffer<i32> {
    OffsetBuffer::new(ScalarBuffer::from(v))
}

/// A list column of `rows` (a null list for `None`), its items made by `items`.
fn list_of<T>(field: &Field, rows: Vec<Option<Vec<T>>>, items: impl Fn(Vec<T>, &DataType) -> ArrayRef) -> ArrayRef {
    let DataType::List(item) = field.data_type() else { panic!("a list column") };
    let mut offsets = vec![0i32];
    let mut valid = Vec::new();
    let mut values = Vec::new();
    for r in rows {
        valid.push(r.is_some());
        values.extend(r.into_iter().flatten());
        offsets.push(values.len() as i32);
    }
    let values = items(values, item.data_type());
    // Items of the random cases are never null: a non-nullable field where the schema says so.
    let item = Arc::new(Field::new("item", item.data_type().clone(), item.is_nullable()));
    Arc::new(ListArray::new(item, offs(offsets), values, Some(valid.into())))
}

/// An output row as the ruling line it stands for (docs/FORMAT.md).
fn row_json(batch: &RecordBatch, row: usize) -> Value {
    let case = batch.column_by_name("case").unwrap();
    let case = case.as_any().downcast_ref::<StringArray>().map_or(Value::Null, |c| json!(c.value(row)));
    let text = |name: &str| -> Option<String> {
        let c = batch.column_by_name(name)?.as_any().downcast_ref::<StringArray>()?;
        c.is_valid(row).then(|| c.value(row).to_string())
    };
    if let Some(error) = text("error") {
        return json!({"case": case, "error": error});
    }
    let mut line = Map::new();
    line.insert("case".into(), case);
    for layer in ["concluded", "definite"] {
        let s = batch.column_by_name(layer).unwrap().as_any().downcast_ref::<StructArray>().unwrap();
        let mut object = Map::new();
        for (f, col) in s.fields().iter().zip(s.columns()) {
            let list = col.as_any().downcast_ref::<ListArray>().unwrap();
            let items = list.value(row);
            let items = items.as_any().downcast_ref::<StructArray>().unwrap();
            if items.is_empty() {
                continue;
            }
            let tuples: Vec<Value> = (0..items.len())
                .map(|i| {
                    Value::Array(
                        items
                            .columns()
                            .iter()
                            .map(|c| match c.as_any().downcast_ref::<Int64Array>() {
                                Some(n) => json!(n.value(i)),
                                None => json!(c.as_any().downcast_ref::<StringArray>().unwrap().value(i)),
                            })
                            .collect(),
                    )
                })
                .collect();
            object.insert(f.name().clone(), Value::Array(tuples));
        }
        line.insert(layer.into(), Value::Object(object));
    }
    for name in ["contradictions", "warnings"] {
        let list = batch.column_by_name(name).unwrap().as_any().downcast_ref::<ListArray>().unwrap();
        let items = list.value(row);
        let items = items.as_any().downcast_ref::<StringArray>().unwrap();
        let items: Vec<Value> = (0..items.len()).map(|i| json!(items.value(i))).collect();
        if name == "contradictions" || !items.is_empty() {
            line.insert(name.into(), Value::Array(items));
        }
    }
    for name in ["why_not", "explanations"] {
        if let Some(t) = text(name) {
            line.insert(name.into(), serde_json::from_str(&t).expect("JSON text"));
        }
    }
    Value::Object(line)
}

/// Rules `cases` through JSON Lines and through Arrow (with `threads`), and returns the
/// disagreements, case by case id; counts in `other_proofs` the rulings whose proofs chose
/// other premises, all else equal.
fn disagreements(
    name: &str,
    pkg: &dyn Package,
    cases: &[Value],
    opts: &Options,
    threads: usize,
    other_proofs: &mut usize,
) -> Vec<String> {
    let cat = Catalog::of(pkg);
    let input = to_batch(pkg, cases);
    // The keys of `facts` in column order: the first error of a case is the first in the
    // order the case gives its facts.
    let order: Vec<&str> = input.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
    let lines: Vec<(usize, String)> =
        cases.iter().enumerate().map(|(i, c)| (i + 1, line_in_order(c, &order))).collect();
    // Two batches, as a table's batches are; the JSON Lines ruled in the same two batches
    // (an explanation is one of the shortest derivations, and which one, when several are, may
    // depend on the cases ruled with it: the same in both paths for the same batches).
    let mid = input.num_rows() / 2;
    let (mut want, _) = rule_chunk(pkg, &cat, &lines[..mid], opts);
    want.extend(rule_chunk(pkg, &cat, &lines[mid..], opts).0);
    let batches = [input.slice(0, mid), input.slice(mid, input.num_rows() - mid)];
    let got = rule_batches(pkg, &batches, opts, threads).expect("the batches read");
    let got: Vec<Value> = got.iter().flat_map(|b| (0..b.num_rows()).map(move |r| row_json(b, r))).collect();
    let mut out = Vec::new();
    assert_eq!(got.len(), want.len(), "{name}: one output row per case");
    for ((g, w), (_, line)) in got.iter().zip(&want).zip(&lines) {
        let mut w: Value = serde_json::from_str(w).expect("a ruling line");
        assert_eq!(g["case"], w["case"], "{name}: rows in input order");
        let mut g = g.clone();
        if g != w {
            // The JSON reader interns the names of a line its fast path gives up on (one asking
            // why not, one with an escaped string, a name close to a constant, ...) in another
            // order (the fast path has read some facts before the full reader reads the line
            // again, asked literals first): where several derivations are equally short, a proof
            // may choose another one. Such a ruling is counted; anything else is a failure.
            for v in [&mut g, &mut w] {
                for key in ["why_not", "explanations"] {
                    if let Some(x) = v.get_mut(key) {
                        strip_premises(x);
                    }
                }
            }
            if g == w {
                *other_proofs += 1;
            }
        }
        let g = &g;
        if g != &w {
            let keys: Vec<&String> = g.as_object().unwrap().keys().chain(w.as_object().unwrap().keys()).collect();
            let differ: Vec<String> = keys
                .into_iter()
                .filter(|k| g.get(k.as_str()) != w.get(k.as_str()))
                .map(|k| {
                    if let (Some(Value::Object(a)), Some(Value::Object(b))) = (g.get(k.as_str()), w.get(k.as_str())) {
                        if let Some(l) = a.keys().chain(b.keys()).find(|l| a.get(l.as_str()) != b.get(l.as_str())) {
                            return format!(
                                "  {k}.{l}: arrow {} / jsonl {}",
                                a.get(l.as_str()).map_or("-".into(), |v| v.to_string()),
                                b.get(l.as_str()).map_or("-".into(), |v| v.to_string())
                            );
                        }
                    }
                    let cut =
                        |v: Option<&Value>| v.map_or("-".to_string(), |v| v.to_string().chars().take(400).collect());
                    format!("  {k}: arrow {} / jsonl {}", cut(g.get(k.as_str())), cut(w.get(k.as_str())))
                })
                .collect();
            out.push(format!("{name}, case {} (line {line}):\n{}", w["case"], differ.join("\n")));
        }
    }
    out
}

/// `v` without the premises of its proofs.
fn strip_premises(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("premises");
            m.values_mut().for_each(strip_premises);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_premises),
        _ => {}
    }
}

/// The case line of `case` with the keys of its `facts` in `order`.
fn line_in_order(case: &Value, order: &[&str]) -> String {
    let facts = case["facts"].as_object().unwrap();
    let mut keys: Vec<&String> = facts.keys().collect();
    keys.sort_by_key(|k| order.iter().position(|o| o == k));
    let facts: Vec<String> = keys.iter().map(|k| format!("{}:{}", json!(k), facts[k.as_str()])).collect();
    let mut line = format!("{{\"case\":{},\"facts\":{{{}}}", case["case"], facts.join(","));
    for key in ["why_not", "as_of"] {
        if let Some(v) = case.get(key) {
            line.push_str(&format!(",{}:{v}", json!(key)));
        }
    }
    line.push('}');
    line
}

/// The cases of a package, numbered uniquely, each third asking why not about the literal its
/// ruling concludes first (or a literal of the package's first institutional relation).
fn cases_of(pkg: &dyn Package, doc: &Document, seed: u64, seeds: u64) -> Vec<Value> {
    let mut cases = support::random_cases(seed, doc, seeds);
    let (_, ruled) = support::rule(pkg, &cases, &Options { grants: support::grants(pkg), ..Default::default() });
    let institutional = pkg.schema().relations.iter().find(|r| r.kind == RelationKind::Institutional);
    for (i, (case, ruling)) in cases.iter_mut().zip(&ruled).enumerate() {
        case["case"] = json!(format!("c{i}"));
        if i % 3 != 0 {
            continue;
        }
        let ruling: Value = serde_json::from_str(ruling).unwrap();
        let concluded =
            ruling["concluded"].as_object().and_then(|o| o.iter().next().map(|(k, v)| (k.clone(), v[0].clone())));
        let literal = match (concluded, institutional) {
            (Some((key, Value::Array(args))), _) => {
                let args: Vec<String> = args.iter().map(|a| a.as_str().map_or(a.to_string(), str::to_string)).collect();
                Some(format!("{key}({})", args.join(",")))
            }
            (_, Some(r)) => {
                let args: Vec<&str> = r.params.iter().map(|p| if p.integer { "0" } else { "nobody" }).collect();
                Some(format!("{}({})", r.name, args.join(",")))
            }
            _ => None,
        };
        if let Some(l) = literal {
            case["why_not"] = json!([l]);
        }
    }
    cases
}

#[test]
fn rulings_through_arrow_are_clir_rules() {
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut other_proofs = 0;
    let fide_doc = Document::parse(clir_random::FIDE.0).expect("parses");
    let mut packages: Vec<(String, &dyn Package, Vec<Value>)> = Vec::new();
    packages.push(("fide.laws.chess".into(), clir_random::FIDE.1, cases_of(clir_random::FIDE.1, &fide_doc, 7, 40)));
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        packages.push((format!("random package {seed}"), pkg, cases_of(pkg, &doc, seed, 3)));
    }
    for &(name, bytes, pkg) in clir_random::DEMOS {
        let doc = Document::parse(bytes).expect("parses");
        packages.push((name.to_string(), pkg, cases_of(pkg, &doc, 1, 3)));
    }
    for (k, (name, pkg, cases)) in packages.iter().enumerate() {
        let grants = support::grants(*pkg);
        // Without grants (judgment facts refused, row by row), with them, with explanations and
        // strict constants; on one thread and on three.
        let options = [
            Options::default(),
            Options { grants: grants.clone(), ..Default::default() },
            Options { grants, explain: k % 2 == 0, strict_constants: k % 3 == 0, ..Default::default() },
        ];
        for (i, opts) in options.iter().enumerate() {
            failures.extend(disagreements(name, *pkg, cases, opts, 1 + 2 * (i % 2), &mut other_proofs));
            compared += cases.len();
        }
    }
    eprintln!("compared {compared} rulings over {} packages; {other_proofs} chose other premises", packages.len());
    assert!(other_proofs * 20 < compared, "{other_proofs} of {compared} rulings chose other premises");
    assert!(compared > 1000, "too few rulings compared: {compared}");
    assert!(
        failures.is_empty(),
        "{} disagreements, the first:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

/// A batch of `rows` in a one-column-per-key layout whose column `name` is `col`.
fn batch_with(case: ArrayRef, name: &str, col: ArrayRef) -> RecordBatch {
    let schema = ArrowSchema::new(vec![
        Field::new("case", case.data_type().clone(), true),
        Field::new(name, col.data_type().clone(), true),
    ]);
    RecordBatch::try_new(Arc::new(schema), vec![case, col]).expect("a batch")
}

/// fide.laws.chess's `player_of(game, who, colour)`-like first input relation with its fields.
fn first_input(pkg: &dyn Package) -> &'static clir::RelationInfo {
    pkg.schema()
        .relations
        .iter()
        .find(|r| r.kind == RelationKind::Empirical && r.params.len() >= 2)
        .expect("an input relation")
}

#[test]
fn hostile_batches_give_an_error_for_the_call_or_the_row() {
    let pkg = clir_random::FIDE.1;
    let info = first_input(pkg);
    let opts = Options::default();
    // A column of the wrong type: an error for the call, naming the column.
    let case: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
    let wrong: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    let err = rule_batches(pkg, &[batch_with(case.clone(), info.name, wrong)], &opts, 1).unwrap_err();
    assert!(err.contains(&format!("column `{}`", info.name)) && err.contains("list of structs"), "{err}");
    // A struct field of the wrong type, a relation the package lacks, a `case` of booleans.
    let fields: Fields = info.params.iter().map(|p| Field::new(p.name, DataType::Boolean, true)).collect();
    let cols: Vec<ArrayRef> =
        info.params.iter().map(|_| Arc::new(BooleanArray::from(vec![true, false])) as ArrayRef).collect();
    let items = StructArray::new(fields.clone(), cols, None);
    let list: ArrayRef = Arc::new(ListArray::new(
        Arc::new(Field::new("item", DataType::Struct(fields), true)),
        offs(vec![0, 1, 2]),
        Arc::new(items),
        None,
    ));
    let err = rule_batches(pkg, &[batch_with(case.clone(), info.name, list.clone())], &opts, 1).unwrap_err();
    assert!(err.contains("must be a string type") || err.contains("must be an integer type"), "{err}");
    let err = rule_batches(pkg, &[batch_with(case.clone(), "no_such_relation", list)], &opts, 1).unwrap_err();
    assert!(err.contains("no relation `no_such_relation`"), "{err}");
    let bools: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
    let err = rule_batches(pkg, &[batch_with(bools, "why_not", case.clone())], &opts, 1).unwrap_err();
    assert!(err.contains("column `case`"), "{err}");
    // Nulls: a null tuple, a null argument, a null case, a null literal asked: errors for
    // their rows (as a `null` in a case line is), the other rows ruled.
    let names = |v: Vec<Option<&str>>| -> ArrayRef { Arc::new(StringArray::from(v)) };
    let strs = |p: &clir::ParamInfo, v: Vec<Option<&str>>| -> ArrayRef {
        if p.integer {
            Arc::new(Int64Array::from(v.iter().map(|s| s.map(|_| 1)).collect::<Vec<_>>()))
        } else {
            names(v)
        }
    };
    let fields: Fields = info
        .params
        .iter()
        .map(|p| Field::new(p.name, if p.integer { DataType::Int64 } else { DataType::Utf8 }, true))
        .collect();
    // Rows: a good tuple; a null argument; a null tuple.
    let cols: Vec<ArrayRef> = info
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| strs(p, vec![Some("g"), if k == 0 { None } else { Some("g") }, Some("g")]))
        .collect();
    let items = StructArray::new(fields.clone(), cols, Some(vec![true, true, false].into()));
    let list: ArrayRef = Arc::new(ListArray::new(
        Arc::new(Field::new("item", DataType::Struct(fields), true)),
        offs(vec![0, 1, 2, 3]),
        Arc::new(items),
        None,
    ));
    let case = names(vec![Some("good"), Some("null argument"), None]);
    let out = rule_batches(pkg, &[batch_with(case, info.name, list)], &opts, 1).expect("rows read");
    let rows: Vec<Value> = (0..3).map(|r| row_json(&out[0], r)).collect();
    assert!(rows[0].get("error").is_none(), "{}", rows[0]);
    let arg = info.params[0].name;
    assert!(
        rows[1]["error"].as_str().unwrap().starts_with(&format!("line 2: relation `{}`: argument `{arg}`", info.name)),
        "{}",
        rows[1]
    );
    assert!(rows[1]["error"].as_str().unwrap().contains("got null"), "{}", rows[1]);
    assert!(
        rows[2]["error"].as_str().unwrap().contains("each tuple must be a list of arguments, got null"),
        "{}",
        rows[2]
    );
    let asked = list_of(
        &Field::new("why_not", DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))), true),
        vec![Some(vec![None]), Some(vec![Some("no_such(x)")])],
        |v: Vec<Option<&str>>, _| Arc::new(StringArray::from(v)),
    );
    let out = rule_batches(pkg, &[batch_with(names(vec![Some("a"), Some("b")]), "why_not", asked)], &opts, 1).unwrap();
    assert!(row_json(&out[0], 0)["error"].as_str().unwrap().contains("`why_not`: a null"), "{}", row_json(&out[0], 0));
    assert!(row_json(&out[0], 1)["error"].as_str().unwrap().contains("unknown relation `no_such`"));
}

#[test]
fn a_million_facts_in_one_case_are_ruled() {
    let pkg = clir_random::FIDE.1;
    let info = first_input(pkg);
    const FACTS: usize = 1_000_000;
    let fields: Fields = info
        .params
        .iter()
        .map(|p| Field::new(p.name, if p.integer { DataType::Int64 } else { DataType::Utf8 }, false))
        .collect();
    let cols: Vec<ArrayRef> = info
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| -> ArrayRef {
            if p.integer {
                Arc::new(Int64Array::from_iter_values((0..FACTS as i64).map(|i| i % 7)))
            } else {
                Arc::new(StringArray::from_iter_values(
                    (0..FACTS).map(|i| format!("e{}", if k == 0 { i } else { i % 3 })),
                ))
            }
        })
        .collect();
    let items = StructArray::new(fields.clone(), cols, None);
    let list: ArrayRef = Arc::new(ListArray::new(
        Arc::new(Field::new("item", DataType::Struct(fields), false)),
        offs(vec![0, FACTS as i32, FACTS as i32]),
        Arc::new(items),
        None,
    ));
    let case: ArrayRef = Arc::new(StringArray::from(vec!["big", "small"]));
    let opts = Options { max_case_tuples: Some(clir::jsonl::DEFAULT_MAX_CASE_TUPLES), ..Default::default() };
    let out = rule_batches(pkg, &[batch_with(case, info.name, list)], &opts, 1).expect("the batch reads");
    assert_eq!(out.iter().map(RecordBatch::num_rows).sum::<usize>(), 2);
    let big = row_json(&out[0], 0);
    // Ruled, or past the budget of derived tuples: a ruling or an error for that row alone.
    assert!(
        big.get("concluded").is_some() || big["error"].as_str().is_some_and(|e| e.contains("max-case-tuples")),
        "{big}"
    );
    assert!(row_json(&out[0], 1).get("concluded").is_some());
}

/// Case lines (without `why_not` and `as_of`) as a batch of the flat layout: a row per fact, a
/// row of its own for a case without facts.
fn to_flat_batch(pkg: &dyn Package, cases: &[Value]) -> RecordBatch {
    let schema = Arc::new(clir::arrow::flat_input_schema(pkg.schema(), DataType::Utf8));
    let arity = (schema.fields().len() - 2) / 2;
    let (mut case, mut relation) = (Vec::new(), Vec::new());
    let mut entities: Vec<Vec<Option<String>>> = vec![Vec::new(); arity];
    let mut integers: Vec<Vec<Option<i64>>> = vec![Vec::new(); arity];
    for c in cases {
        let facts = c["facts"].as_object().unwrap();
        let mut rows: Vec<(Option<String>, Vec<Value>)> = Vec::new();
        for (key, tuples) in facts {
            rows.extend(tuples.as_array().unwrap().iter().map(|t| (Some(key.clone()), t.as_array().unwrap().clone())));
        }
        if rows.is_empty() {
            rows.push((None, Vec::new()));
        }
        for (key, args) in rows {
            case.push(c["case"].as_str().map(str::to_string));
            relation.push(key);
            for j in 0..arity {
                let a = args.get(j);
                entities[j].push(a.and_then(Value::as_str).map(str::to_string));
                integers[j].push(a.and_then(Value::as_i64));
            }
        }
    }
    let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from(case)), Arc::new(StringArray::from(relation))];
    columns.extend(entities.into_iter().map(|v| Arc::new(StringArray::from(v)) as ArrayRef));
    columns.extend(integers.into_iter().map(|v| Arc::new(Int64Array::from(v)) as ArrayRef));
    RecordBatch::try_new(schema, columns).expect("a batch in the flat layout")
}

/// The flat output as one ruling line per case (without `why_not`), in order.
fn flat_rulings(batches: &[RecordBatch]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for b in batches {
        let col = |name: &str| b.column_by_name(name).unwrap().clone();
        let (case, relation, error) = (col("case"), col("relation"), col("error"));
        let strs = |a: &ArrayRef, r: usize| {
            let a = a.as_any().downcast_ref::<StringArray>().unwrap();
            a.is_valid(r).then(|| a.value(r).to_string())
        };
        let definite = col("definite");
        let definite = definite.as_any().downcast_ref::<BooleanArray>().unwrap();
        let list = |name: &str, r: usize| -> Vec<Value> {
            let l = col(name);
            let l = l.as_any().downcast_ref::<ListArray>().unwrap();
            let items = l.value(r);
            let items = items.as_any().downcast_ref::<StringArray>().unwrap();
            (0..items.len()).map(|i| json!(items.value(i))).collect()
        };
        for r in 0..b.num_rows() {
            match strs(&relation, r) {
                None => {
                    let c = json!(strs(&case, r));
                    out.push(match strs(&error, r) {
                        Some(e) => json!({"case": c, "error": e}),
                        None => {
                            let mut line = json!({"case": c, "concluded": {}, "definite": {}, "contradictions": list("contradictions", r)});
                            let warnings = list("warnings", r);
                            if !warnings.is_empty() {
                                line["warnings"] = Value::Array(warnings);
                            }
                            line
                        }
                    });
                }
                Some(key) => {
                    let params = (b.num_columns() - 6) / 2;
                    let args: Vec<Value> = (0..params)
                        .filter_map(|j| {
                            let e = col(&format!("e{j}"));
                            let n = col(&format!("n{j}"));
                            let n = n.as_any().downcast_ref::<Int64Array>().unwrap();
                            strs(&e, r).map(Value::from).or_else(|| n.is_valid(r).then(|| json!(n.value(r))))
                        })
                        .collect();
                    let line = out.last_mut().expect("a case's own row first");
                    let layers: &[&str] = if definite.value(r) { &["concluded", "definite"] } else { &["concluded"] };
                    for layer in layers {
                        let listed =
                            line[*layer].as_object_mut().unwrap().entry(key.clone()).or_insert_with(|| json!([]));
                        listed.as_array_mut().unwrap().push(Value::Array(args.clone()));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn rulings_through_the_flat_layout_are_clir_rules() {
    let mut packages: Vec<(String, &dyn Package, Vec<Value>)> = Vec::new();
    let fide_doc = Document::parse(clir_random::FIDE.0).expect("parses");
    packages.push(("fide.laws.chess".into(), clir_random::FIDE.1, support::random_cases(7, &fide_doc, 40)));
    for &(seed, bytes, pkg) in clir_random::PACKAGES {
        let doc = Document::parse(bytes).expect("parses");
        packages.push((format!("random package {seed}"), pkg, support::random_cases(seed, &doc, 3)));
    }
    let (mut compared, mut failures) = (0, Vec::new());
    for (name, pkg, mut cases) in packages {
        for (i, c) in cases.iter_mut().enumerate() {
            c["case"] = json!(format!("c{i}"));
        }
        let opts = Options { grants: support::grants(pkg), ..Default::default() };
        let (_, want) = support::rule(pkg, &cases, &opts);
        let input = to_flat_batch(pkg, &cases);
        let got = flat_rulings(&clir::arrow::rule_flat(pkg, &[input], &opts, 1).expect("the batch reads"));
        assert_eq!(got.len(), want.len(), "{name}: one ruling per case");
        for (g, w) in got.iter().zip(&want) {
            let w: Value = serde_json::from_str(w).unwrap();
            compared += 1;
            if g != &w && failures.len() < 5 {
                failures.push(format!("{name}:\n  flat  {g}\n  jsonl {w}"));
            }
        }
    }
    eprintln!("compared {compared} rulings through the flat layout");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_case_split_across_batches_of_a_call_is_one_case() {
    let pkg = clir_random::FIDE.1;
    let doc = Document::parse(clir_random::FIDE.0).expect("parses");
    let mut cases: Vec<Value> = support::random_cases(3, &doc, 4);
    for (i, c) in cases.iter_mut().enumerate() {
        c["case"] = json!(format!("c{i}"));
    }
    let input = to_flat_batch(pkg, &cases);
    let opts = Options { grants: support::grants(pkg), ..Default::default() };
    let whole = flat_rulings(&clir::arrow::rule_flat(pkg, std::slice::from_ref(&input), &opts, 1).unwrap());
    assert_eq!(whole.len(), cases.len());
    // Cut at every row: wherever the cut falls, inside a case or between two, the same rulings.
    for cut in 1..input.num_rows() {
        let halves = [input.slice(0, cut), input.slice(cut, input.num_rows() - cut)];
        let split = flat_rulings(&clir::arrow::rule_flat(pkg, &halves, &opts, 2).unwrap());
        assert_eq!(split, whole, "cut at row {cut}");
    }
}
