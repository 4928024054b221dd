//! Cases in and rulings out as Arrow record batches (feature `arrow`), with no JSON in between.
//!
//! A batch in the input layout ([`input_schema`], docs/PYTHON.md: one row a case, a list of
//! structs per relation and sign) is read column by column into the same intermediate form a
//! case line is parsed into (`jsonl`'s `Read`: names borrowed from the Arrow buffers), which
//! the case line's own validation adds to a [`Batch`] (every check and message of `clir rule`:
//! arity, types, constants, grants, `as_of`, why-not); the batch is evaluated, and each case's
//! conclusions are written from the [`crate::Output`]'s rows into the output layout
//! ([`output_schema`]), tuples in the order a ruling line lists them, `why_not` and
//! `explanations` as the JSON text a ruling line holds. The rulings are `clir rule`'s: the tests
//! of `clir-random` (`tests/arrow_agrees.rs`) compare them on random packages and cases.
//!
//! Most rows take a fast path that reads them straight into the batch and gives any row it
//! cannot vouch for (a null, a judgment not granted, a name close to a constant, `why_not`,
//! `as_of`) to the full path above, leaving the batch as it was (DECISIONS 94).
//!
//! [`rule_flat`] reads and writes the flat layouts ([`flat_input_schema`],
//! [`flat_output_schema`]: one row a fact, a case a run of rows) through the same full path
//! (DECISIONS 95).

use crate::batch::{literal_string, slot, Batch};
use crate::jsonl::{by_case, over_budget, push_json, tuple_order, why_not_entries, Adder, Arg, Catalog, Options, Read};
use crate::schema::{ParamInfo, RelationInfo, RelationKind, Schema};
use crate::value::{CaseId, Sym};
use crate::Package;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{
    Array, ArrayRef, GenericListArray, Int64Array, ListArray, OffsetSizeTrait, PrimitiveArray, RecordBatch,
    StringArray, StructArray,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema as ArrowSchema};
use serde_json::Value;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub use arrow_array;
pub use arrow_buffer;
pub use arrow_schema;

/// Cases per evaluated [`Batch`], as `clir rule` batches them.
const BATCH_CASES: usize = 512;

/// A relation's tuples as Arrow: a list of structs, one field per parameter (`Utf8` for an
/// entity, `Int64` for an Integer).
fn tuple_list_type(info: &RelationInfo) -> DataType {
    let fields: Fields = info
        .params
        .iter()
        .map(|p| Field::new(p.name, if p.integer { DataType::Int64 } else { DataType::Utf8 }, false))
        .collect();
    DataType::List(Arc::new(Field::new("item", DataType::Struct(fields), false)))
}

/// The keys of a ruling's `concluded` and `definite`: per institutional relation, `name` and
/// `~name`, in declaration order, with the relation's index.
fn ruling_keys(schema: &Schema) -> Vec<(String, usize)> {
    let mut keys = Vec::new();
    for (rel, info) in schema.relations.iter().enumerate().filter(|(_, r)| r.kind == RelationKind::Institutional) {
        keys.push((info.name.to_string(), rel));
        keys.push((format!("~{}", info.name), rel));
    }
    keys
}

/// The layout [`rule_batches`] reads, with a `case` column of type `case`: per empirical and
/// judgment relation and sign (`name`, `~name`) a list of structs with a field per parameter,
/// `why_not` (list of strings) and `as_of` (string). Every column but `case` may be left out.
pub fn input_schema(schema: &Schema, case: DataType) -> ArrowSchema {
    let mut fields = vec![Field::new("case", case, true)];
    for info in schema.relations.iter().filter(|r| r.kind != RelationKind::Institutional) {
        fields.push(Field::new(info.name, tuple_list_type(info), true));
        fields.push(Field::new(format!("~{}", info.name), tuple_list_type(info), true));
    }
    fields.push(Field::new("why_not", DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))), true));
    fields.push(Field::new("as_of", DataType::Utf8, true));
    ArrowSchema::new(fields)
}

/// The layout [`rule_batches`] writes for a `case` column of type `case`: `case`, `concluded`
/// and `definite` (a struct with a list-of-struct field per institutional relation and sign),
/// `contradictions`, `warnings`, `why_not`, `explanations` (with `explain`) and `error`.
pub fn output_schema(schema: &Schema, case: DataType, explain: bool) -> ArrowSchema {
    let layer: Fields = ruling_keys(schema)
        .into_iter()
        .map(|(k, rel)| Field::new(k, tuple_list_type(&schema.relations[rel]), false))
        .collect();
    let strings = DataType::List(Arc::new(Field::new("item", DataType::Utf8, false)));
    let mut fields = vec![
        Field::new("case", case, true),
        Field::new("concluded", DataType::Struct(layer.clone()), true),
        Field::new("definite", DataType::Struct(layer), true),
        Field::new("contradictions", strings.clone(), true),
        Field::new("warnings", strings, true),
        Field::new("why_not", DataType::Utf8, true),
    ];
    if explain {
        fields.push(Field::new("explanations", DataType::Utf8, true));
    }
    fields.push(Field::new("error", DataType::Utf8, true));
    ArrowSchema::new(fields)
}

// ---------------------------------------------------------------------------------------------
// Reading columns.

/// Whether `t` is a type the readers take for strings.
fn is_string(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(k, v) => {
            k.is_integer() && matches!(**v, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        }
        _ => false,
    }
}

/// Whether `t` is a type the readers take for Integers.
fn is_integer(t: &DataType) -> bool {
    t.is_integer()
}

/// A string column of any of Arrow's string types (dictionary-encoded too), read by index.
enum Strs<'a> {
    Utf8(&'a StringArray),
    Large(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
    /// Per row its key into `values` (`usize::MAX` for a null key).
    Dict(Vec<usize>, Box<Strs<'a>>),
}

impl<'a> Strs<'a> {
    /// The column `col`, when it is of a string type.
    fn of(col: &'a dyn Array) -> Option<Strs<'a>> {
        Some(match col.data_type() {
            DataType::Utf8 => Strs::Utf8(col.as_string::<i32>()),
            DataType::LargeUtf8 => Strs::Large(col.as_string::<i64>()),
            DataType::Utf8View => Strs::View(col.as_string_view()),
            DataType::Dictionary(..) => {
                let dict = col.as_any_dictionary_opt()?;
                let values = Strs::of(dict.values().as_ref())?;
                let keys = dict.normalized_keys();
                let keys = (0..col.len()).map(|i| if dict.keys().is_null(i) { usize::MAX } else { keys[i] }).collect();
                Strs::Dict(keys, Box::new(values))
            }
            _ => return None,
        })
    }

    /// The number of rows.
    fn len(&self) -> usize {
        match self {
            Strs::Utf8(a) => a.len(),
            Strs::Large(a) => a.len(),
            Strs::View(a) => a.len(),
            Strs::Dict(keys, _) => keys.len(),
        }
    }

    /// The string at `i`, `None` for a null.
    fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strs::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strs::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strs::View(a) => a.is_valid(i).then(|| a.value(i)),
            Strs::Dict(keys, values) => match keys.get(i) {
                Some(&k) if k != usize::MAX => values.get(k),
                _ => None,
            },
        }
    }
}

/// An integer column of any of Arrow's integer types, read by index.
enum Ints<'a> {
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a PrimitiveArray<Int32Type>),
    I64(&'a PrimitiveArray<Int64Type>),
    U8(&'a PrimitiveArray<UInt8Type>),
    U16(&'a PrimitiveArray<UInt16Type>),
    U32(&'a PrimitiveArray<UInt32Type>),
    U64(&'a PrimitiveArray<UInt64Type>),
}

impl<'a> Ints<'a> {
    fn of(col: &'a dyn Array) -> Option<Ints<'a>> {
        Some(match col.data_type() {
            DataType::Int8 => Ints::I8(col.as_primitive()),
            DataType::Int16 => Ints::I16(col.as_primitive()),
            DataType::Int32 => Ints::I32(col.as_primitive()),
            DataType::Int64 => Ints::I64(col.as_primitive()),
            DataType::UInt8 => Ints::U8(col.as_primitive()),
            DataType::UInt16 => Ints::U16(col.as_primitive()),
            DataType::UInt32 => Ints::U32(col.as_primitive()),
            DataType::UInt64 => Ints::U64(col.as_primitive()),
            _ => return None,
        })
    }

    /// The argument at `i`: an Integer, a null, or an unsigned value past `i64` (kept as JSON,
    /// which the validation refuses as a line's is refused).
    fn arg(&self, i: usize) -> Arg<'a> {
        macro_rules! get {
            ($a:expr) => {
                if $a.is_valid(i) {
                    Arg::Int($a.value(i) as i64)
                } else {
                    Arg::Other(Value::Null)
                }
            };
        }
        match self {
            Ints::I8(a) => get!(a),
            Ints::I16(a) => get!(a),
            Ints::I32(a) => get!(a),
            Ints::I64(a) => get!(a),
            Ints::U8(a) => get!(a),
            Ints::U16(a) => get!(a),
            Ints::U32(a) => get!(a),
            Ints::U64(a) if a.is_valid(i) => {
                let v = a.value(i);
                i64::try_from(v).map(Arg::Int).unwrap_or_else(|_| Arg::Other(Value::from(v)))
            }
            Ints::U64(_) => Arg::Other(Value::Null),
        }
    }
}

/// A column of a parameter: strings for an entity, integers for an Integer.
enum ArgColumn<'a> {
    Str(Strs<'a>),
    Int(Ints<'a>),
}

impl<'a> ArgColumn<'a> {
    fn arg(&self, i: usize) -> Arg<'a> {
        match self {
            ArgColumn::Str(s) => s.get(i).map_or(Arg::Other(Value::Null), |s| Arg::Str(Cow::Borrowed(s))),
            ArgColumn::Int(n) => n.arg(i),
        }
    }
}

/// A list column (`List` or `LargeList`), read row by row.
enum Lists<'a> {
    Small(&'a GenericListArray<i32>),
    Large(&'a GenericListArray<i64>),
}

impl<'a> Lists<'a> {
    fn of(col: &'a dyn Array) -> Option<Lists<'a>> {
        match col.data_type() {
            DataType::List(_) => Some(Lists::Small(col.as_list::<i32>())),
            DataType::LargeList(_) => Some(Lists::Large(col.as_list::<i64>())),
            _ => None,
        }
    }

    fn values(&self) -> &'a ArrayRef {
        match self {
            Lists::Small(l) => l.values(),
            Lists::Large(l) => l.values(),
        }
    }

    /// Whether every list of the column is null (a column no row gives).
    fn all_null(&self) -> bool {
        match self {
            Lists::Small(l) => l.null_count() == l.len(),
            Lists::Large(l) => l.null_count() == l.len(),
        }
    }

    /// The item range of `row`, `None` for a null list.
    fn range(&self, row: usize) -> Option<Range<usize>> {
        fn of<O: OffsetSizeTrait>(l: &GenericListArray<O>, row: usize) -> Option<Range<usize>> {
            let o = l.value_offsets();
            l.is_valid(row).then(|| o[row].as_usize()..o[row + 1].as_usize())
        }
        match self {
            Lists::Small(l) => of(l, row),
            Lists::Large(l) => of(l, row),
        }
    }
}

/// The input columns of a relation and sign.
struct FactColumn<'a> {
    /// The case line's key (`name`, `~name`).
    key: &'a str,
    /// The relation and its sign.
    rel: usize,
    negative: bool,
    list: Lists<'a>,
    items: &'a StructArray,
    /// In parameter order.
    params: Vec<ArgColumn<'a>>,
}

/// The columns of a batch in the input layout, checked against the package.
struct CaseColumns<'a> {
    facts: Vec<FactColumn<'a>>,
    why_not: Option<(Lists<'a>, Strs<'a>)>,
    as_of: Option<Strs<'a>>,
}

/// Whether `t` may be a `case` column: strings, integers or nulls.
fn is_case_type(t: &DataType) -> bool {
    is_string(t) || is_integer(t) || t == &DataType::Null
}

/// The `case` column of a batch, checked.
fn case_column(b: &RecordBatch) -> Result<&ArrayRef, String> {
    let named = |(f, _): &(&Arc<Field>, &ArrayRef)| f.name() == "case";
    let mut cases = b.schema_ref().fields().iter().zip(b.columns()).filter(named).map(|(_, c)| c);
    let col = cases.find(|c| !holds_facts(c.as_ref())).ok_or("table: no `case` column")?;
    if !is_case_type(col.data_type()) {
        return Err(format!("table: column `case` is {}; expected strings or integers", col.data_type()));
    }
    Ok(col)
}

/// The columns of a relation's arguments in `items`, checked against `info`.
fn param_columns<'a>(
    info: &RelationInfo,
    items: &'a StructArray,
    bad: &dyn Fn(String) -> String,
) -> Result<Vec<ArgColumn<'a>>, String> {
    let mut params = Vec::with_capacity(info.params.len());
    for p in info.params {
        let c = items.column_by_name(p.name).ok_or_else(|| bad(format!("the structs have no field `{}`", p.name)))?;
        params.push(arg_column(p, c.as_ref()).ok_or_else(|| {
            let want = if p.integer { "an integer type" } else { "a string type" };
            bad(format!("field `{}` ({}) must be {want}, got {}", p.name, p.ty, c.data_type()))
        })?);
    }
    if items.num_columns() != info.params.len() {
        let names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
        return Err(bad(format!("the structs must have the fields {} only", names.join(", "))));
    }
    Ok(params)
}

/// The column of parameter `p`, when it is of a type `p` takes.
fn arg_column<'a>(p: &ParamInfo, c: &'a dyn Array) -> Option<ArgColumn<'a>> {
    if p.integer {
        Ints::of(c).map(ArgColumn::Int)
    } else {
        Strs::of(c).map(ArgColumn::Str)
    }
}

/// The relation of an input column's name (`name`, `~name`), when it is an input relation.
fn input_relation<'s>(schema: &'s Schema, name: &str) -> Result<(usize, &'s RelationInfo), String> {
    let relation = name.strip_prefix('~').unwrap_or(name);
    let Some((rel, info)) = schema.relations.iter().enumerate().find(|(_, r)| r.name == relation) else {
        let hint = crate::suggest::did_you_mean(relation, schema.relations.iter().map(|r| r.name));
        return Err(format!("no relation `{relation}` in {}{hint}", schema.package));
    };
    if info.kind == RelationKind::Institutional {
        return Err(format!("relation `{relation}` is institutional: it cannot be input"));
    }
    Ok((rel, info))
}

/// Whether column `col` holds a relation's facts (a list of structs) rather than one of the
/// layout's own columns: a package may name a relation `case`, `why_not` or `as_of`.
fn holds_facts(col: &dyn Array) -> bool {
    Lists::of(col).is_some_and(|l| l.values().as_struct_opt().is_some())
}

impl<'a> CaseColumns<'a> {
    /// Checks every column of `b` against the package and the layout of docs/PYTHON.md.
    fn of(schema: &Schema, b: &'a RecordBatch) -> Result<CaseColumns<'a>, String> {
        case_column(b)?;
        let mut cols = CaseColumns { facts: Vec::new(), why_not: None, as_of: None };
        let mut seen: Vec<(&str, bool)> = Vec::new();
        for (field, col) in b.schema_ref().fields().iter().zip(b.columns()) {
            let name = field.name().as_str();
            let bad = |what: String| format!("table: column `{name}`: {what}");
            let facts = holds_facts(col.as_ref());
            if seen.contains(&(name, facts)) {
                return Err(bad("appears more than once".into()));
            }
            seen.push((name, facts));
            match name {
                "case" if !facts => continue,
                "as_of" if !facts => {
                    let s = Strs::of(col.as_ref())
                        .ok_or_else(|| bad(format!("expected strings, got {}", col.data_type())))?;
                    cols.as_of = Some(s);
                }
                "why_not" if !facts => {
                    let list = Lists::of(col.as_ref());
                    let items = list.as_ref().and_then(|l| Strs::of(l.values().as_ref()));
                    let (Some(list), Some(items)) = (list, items) else {
                        return Err(bad(format!("expected a list of strings, got {}", col.data_type())));
                    };
                    cols.why_not = Some((list, items));
                }
                _ => {
                    let (rel, info) = input_relation(schema, name).map_err(bad)?;
                    let list = Lists::of(col.as_ref());
                    let items = list.as_ref().and_then(|l| l.values().as_struct_opt());
                    let (Some(list), Some(items)) = (list, items) else {
                        return Err(bad(format!("expected a list of structs, got {}", col.data_type())));
                    };
                    let params = param_columns(info, items, &bad)?;
                    if !list.all_null() {
                        let negative = name.starts_with('~');
                        cols.facts.push(FactColumn { key: name, rel, negative, list, items, params });
                    }
                }
            }
        }
        Ok(cols)
    }

    /// Reads row `row` into `read`: `Err` for what a case line's parser would refuse (a null
    /// literal in `why_not`, an `as_of` that is no date, too many literals asked).
    fn read(&self, row: usize, read: &mut Read<'a>) -> Result<(), String> {
        read.clear();
        if let Some(as_of) = &self.as_of {
            if let Some(date) = as_of.get(row) {
                read.set_as_of(date)?;
            }
        }
        for f in &self.facts {
            let Some(range) = f.list.range(row) else { continue };
            read.start_key(f.key);
            for i in range {
                if f.items.is_null(i) {
                    read.push_tuple(None);
                } else {
                    let mut args = f.params.iter().map(|c| c.arg(i));
                    read.push_tuple(Some(&mut args));
                }
            }
        }
        if let Some((list, items)) = &self.why_not {
            for i in list.range(row).into_iter().flatten() {
                let literal = items.get(i).ok_or("`why_not`: a null where a literal (a string) stands")?;
                read.push_why_not(literal)?;
            }
        }
        Ok(())
    }
}

/// A list column as the fast path reads it: its offsets and, when some list is null, its
/// validity, looked up without a match on the column's type a row.
struct FastList<'a> {
    offsets: FastOffsets<'a>,
    nulls: Option<&'a NullBuffer>,
}

enum FastOffsets<'a> {
    Small(&'a [i32]),
    Large(&'a [i64]),
}

impl<'a> FastList<'a> {
    fn of(list: &Lists<'a>) -> Self {
        match *list {
            Lists::Small(l) => FastList {
                offsets: FastOffsets::Small(l.value_offsets()),
                nulls: l.nulls().filter(|n| n.null_count() > 0),
            },
            Lists::Large(l) => FastList {
                offsets: FastOffsets::Large(l.value_offsets()),
                nulls: l.nulls().filter(|n| n.null_count() > 0),
            },
        }
    }

    /// The item range of `row`, `None` for a null list.
    #[inline(always)]
    fn range(&self, row: usize) -> Option<Range<usize>> {
        if self.nulls.is_some_and(|n| n.is_null(row)) {
            return None;
        }
        Some(match self.offsets {
            FastOffsets::Small(o) => o[row] as usize..o[row + 1] as usize,
            FastOffsets::Large(o) => o[row] as usize..o[row + 1] as usize,
        })
    }
}

/// A parameter's column as the fast path reads it: the common types without nulls directly,
/// any other through its [`ArgColumn`].
enum FastArg<'a> {
    Utf8(&'a StringArray),
    Large(&'a arrow_array::LargeStringArray),
    Int64(&'a [i64]),
    /// The column's [`ArgColumn`] in its [`FactColumn`].
    Other,
}

impl<'a> FastArg<'a> {
    fn of(c: &ArgColumn<'a>) -> Self {
        match *c {
            ArgColumn::Str(Strs::Utf8(a)) if a.null_count() == 0 => FastArg::Utf8(a),
            ArgColumn::Str(Strs::Large(a)) if a.null_count() == 0 => FastArg::Large(a),
            ArgColumn::Int(Ints::I64(a)) if a.null_count() == 0 => FastArg::Int64(a.values()),
            _ => FastArg::Other,
        }
    }
}

/// How a fact column is read by the fast path, worked out once a call.
struct FastColumn<'c, 'a> {
    slot: usize,
    /// Whether the call may give facts of the relation (empirical, or a judgment granted).
    accepted: bool,
    list: FastList<'a>,
    /// The validity of the tuples, when some tuple is null.
    items_nulls: Option<&'a NullBuffer>,
    /// Per parameter, its column and the constants of its type.
    params: Vec<(FastArg<'a>, &'c [(&'static str, u32)])>,
}

/// The fast path of reading a row: what it reads is what the case line's validation reads
/// ([`Adder::add`]), and it gives up (leaving the batch as it was) on anything else: a fact of a
/// relation the call is not granted, a null, an unsigned value past `i64`, a name close to a
/// declared constant (a warning), any name not declared under `strict_constants`, `why_not`,
/// `as_of`, more facts than a case may give. Those rows are read again by the full path.
///
/// Each column's buffers are looked up once a call, not once a row; a name is interned first
/// and its id compared with the ids of its type's constants (a batch's interner numbers the
/// constants as the catalog does; checked once a call, else names are compared as text).
struct Fast<'c, 'a> {
    columns: Vec<FastColumn<'c, 'a>>,
    strict: bool,
    /// Whether the ids of constants in a batch's interner are the catalog's.
    ids_agree: bool,
    /// `why_not`, when some row of it is not null.
    why_not: Option<FastList<'a>>,
    /// Whether some row has an `as_of`.
    as_of: bool,
    /// Slots this case added rows to, with their length before it (to take them back).
    touched: Vec<(usize, usize)>,
    /// The ids of the current batch's short names.
    names: NameCache,
}

impl<'c, 'a> Fast<'c, 'a> {
    fn new(cat: &'c Catalog, cols: &CaseColumns<'a>, opts: &Options) -> Self {
        let schema = cat.schema();
        let columns = cols
            .facts
            .iter()
            .map(|f| {
                let info = &schema.relations[f.rel];
                let accepted = match info.kind {
                    RelationKind::Judgment => opts.grants.iter().any(|g| g == info.capability.unwrap_or("")),
                    _ => true,
                };
                let params =
                    f.params.iter().enumerate().map(|(p, c)| (FastArg::of(c), cat.param_constants(f.rel, p))).collect();
                FastColumn {
                    slot: slot(f.rel, f.negative),
                    accepted,
                    list: FastList::of(&f.list),
                    items_nulls: f.items.nulls().filter(|n| n.null_count() > 0),
                    params,
                }
            })
            .collect();
        let interner = Batch::new(schema).interner;
        let ids_agree = interner.len() == schema.constants.len()
            && schema.constants.iter().enumerate().all(|(i, c)| interner.name(Sym(i as u32)) == c.name);
        let why_not = cols.why_not.as_ref().filter(|(l, _)| !l.all_null()).map(|(l, _)| FastList::of(l));
        let as_of = cols.as_of.as_ref().is_some_and(|a| (0..a.len()).any(|i| a.get(i).is_some()));
        let names = NameCache::new();
        Fast { columns, strict: opts.strict_constants, ids_agree, why_not, as_of, touched: Vec::new(), names }
    }

    /// Starts a new batch (a new interner: the names' ids known so far are forgotten).
    fn new_batch(&mut self) {
        self.names.clear();
    }

    /// Adds row `row` of `cols` to `batch`: its case id, or `None` (the batch as it was).
    fn add(&mut self, cols: &CaseColumns<'a>, row: usize, batch: &mut Batch) -> Option<u32> {
        if self.as_of && cols.as_of.as_ref().is_some_and(|a| a.get(row).is_some()) {
            return None;
        }
        if self.why_not.as_ref().is_some_and(|l| l.range(row).is_some_and(|r| !r.is_empty())) {
            return None;
        }
        let case = batch.add_case();
        self.touched.clear();
        if self.facts(cols, row, batch, case).is_none() {
            for &(s, len) in &self.touched {
                batch.facts[s].truncate(len);
            }
            batch.cases -= 1;
            return None;
        }
        Some(case.0)
    }

    fn facts(&mut self, cols: &CaseColumns<'a>, row: usize, batch: &mut Batch, case: CaseId) -> Option<()> {
        let Fast { columns, strict, ids_agree, touched, names, .. } = self;
        let (strict, ids_agree) = (*strict, *ids_agree);
        let Batch { facts, interner, .. } = batch;
        let mut names = Names { interner, cache: names };
        let interner = &mut names;
        let mut count = 0;
        for (k, fast) in columns.iter().enumerate() {
            let Some(range) = fast.list.range(row) else { continue };
            if !fast.accepted {
                return None;
            }
            count += range.len();
            if count > crate::jsonl::MAX_FACTS_PER_CASE {
                return None;
            }
            let rows = &mut facts[fast.slot];
            touched.push((fast.slot, rows.len()));
            rows.reserve(range.len() * (fast.params.len() + 1));
            for i in range {
                if fast.items_nulls.is_some_and(|n| n.is_null(i)) {
                    return None;
                }
                rows.push(case.0 as i64);
                for (j, (c, constants)) in fast.params.iter().enumerate() {
                    let v = match c {
                        FastArg::Int64(v) => *v.get(i)?,
                        FastArg::Utf8(a) => name_id(a.value(i), constants, interner, strict, ids_agree)?,
                        FastArg::Large(a) => name_id(a.value(i), constants, interner, strict, ids_agree)?,
                        FastArg::Other => match &cols.facts[k].params[j] {
                            ArgColumn::Int(n) => match n.arg(i) {
                                Arg::Int(v) => v,
                                _ => return None,
                            },
                            ArgColumn::Str(s) => name_id(s.get(i)?, constants, interner, strict, ids_agree)?,
                        },
                    };
                    rows.push(v);
                }
            }
        }
        Some(())
    }
}

/// The value of entity `name` at a parameter whose type has `constants`, as the case line's
/// validation gives it: the constant's id, or the name's, or `None` when the full path must
/// read the row (a name close to a constant, or any other under `strict`).
#[inline(always)]
fn name_id(
    name: &str,
    constants: &[(&'static str, u32)],
    interner: &mut Names<'_>,
    strict: bool,
    ids_agree: bool,
) -> Option<i64> {
    if !ids_agree {
        if let Some(&(_, c)) = constants.iter().find(|(c, _)| *c == name) {
            return Some(c as i64);
        }
    }
    let id = if ids_agree || constants.is_empty() { Some(interner.intern(name)) } else { None };
    if let Some(id) = id {
        if constants.iter().any(|&(_, c)| c == id) {
            return Some(id as i64);
        }
    }
    if !constants.is_empty() && (strict || crate::suggest::closest(name, constants.iter().map(|(c, _)| *c)).is_some()) {
        return None;
    }
    Some(id.unwrap_or_else(|| interner.intern(name)) as i64)
}

/// A batch's interner with a cache of the ids of its short names in front.
struct Names<'b> {
    interner: &'b mut crate::value::Interner,
    cache: &'b mut NameCache,
}

impl Names<'_> {
    /// The id of `name` in the interner, new or existing.
    #[inline(always)]
    fn intern(&mut self, name: &str) -> u32 {
        match NameCache::key(name.as_bytes()) {
            Some(key) => match self.cache.get(key) {
                Some(id) => id,
                None => self.miss(name, key),
            },
            None => self.interner.intern(name).0,
        }
    }

    /// The id of a short name the cache does not hold yet.
    #[inline(never)]
    fn miss(&mut self, name: &str, key: (u64, u64, u32)) -> u32 {
        let id = self.interner.intern(name).0;
        self.cache.insert(key, id);
        id
    }
}

/// The ids of names of at most 16 bytes, found by the bytes themselves (their length, the first
/// and last 8 bytes, which hold all of them): a look-up hashes two words and compares three,
/// where the interner hashes the name and compares it as text. A table of fixed size, cleared
/// a batch; a name it has no room for goes to the interner alone.
struct NameCache {
    slots: Vec<(u64, u64, u32, u32)>,
    used: usize,
}

/// [`NameCache`]'s slots (a power of two) and how many it fills at most.
const NAME_SLOTS: usize = 4096;
const NAME_FILL: usize = NAME_SLOTS / 2;

impl NameCache {
    fn new() -> Self {
        NameCache { slots: vec![(0, 0, u32::MAX, 0); NAME_SLOTS], used: 0 }
    }

    fn clear(&mut self) {
        if self.used > 0 {
            self.slots.iter_mut().for_each(|s| *s = (0, 0, u32::MAX, 0));
            self.used = 0;
        }
    }

    /// The key of a name of at most 16 bytes: its length and two words that hold every byte.
    #[inline(always)]
    fn key(b: &[u8]) -> Option<(u64, u64, u32)> {
        let n = b.len();
        let word = |s: &[u8]| -> u64 {
            let mut w = [0u8; 8];
            w[..s.len()].copy_from_slice(s);
            u64::from_le_bytes(w)
        };
        let (lo, hi) = match n {
            0 => (0, 0),
            1..=3 => (b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16, 0),
            4..=7 => (word(&b[..4]), word(&b[n - 4..])),
            8..=16 => (word(&b[..8]), word(&b[n - 8..])),
            _ => return None,
        };
        Some((lo, hi, n as u32))
    }

    #[inline(always)]
    fn slot(&self, (lo, hi, n): (u64, u64, u32)) -> usize {
        let h = (lo ^ hi.rotate_left(29) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> 52) as usize & (NAME_SLOTS - 1)
    }

    #[inline(always)]
    fn get(&self, key: (u64, u64, u32)) -> Option<u32> {
        let mut at = self.slot(key);
        loop {
            let (lo, hi, n, id) = self.slots[at];
            if n == u32::MAX {
                return None;
            }
            if (lo, hi, n) == key {
                return Some(id);
            }
            at = (at + 1) & (NAME_SLOTS - 1);
        }
    }

    fn insert(&mut self, key: (u64, u64, u32), id: u32) {
        if self.used >= NAME_FILL {
            return;
        }
        let mut at = self.slot(key);
        while self.slots[at].2 != u32::MAX {
            at = (at + 1) & (NAME_SLOTS - 1);
        }
        self.slots[at] = (key.0, key.1, key.2, id);
        self.used += 1;
    }
}

// ---------------------------------------------------------------------------------------------
// Writing columns.

/// A string column being built, with `i32` offsets checked rather than overflowed.
#[derive(Default)]
struct StrCol {
    bytes: Vec<u8>,
    offsets: Vec<i32>,
    nulls: Vec<bool>,
    any_null: bool,
}

impl StrCol {
    /// Empty, with room for the offsets of `rows` rows.
    fn with_rows(rows: usize) -> Self {
        StrCol { offsets: Vec::with_capacity(rows + 1), nulls: Vec::with_capacity(rows), ..StrCol::default() }
    }

    fn push(&mut self, s: &str) -> Result<(), String> {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.bytes.extend_from_slice(s.as_bytes());
        let end = i32::try_from(self.bytes.len()).map_err(|_| too_large())?;
        self.offsets.push(end);
        self.nulls.push(true);
        Ok(())
    }

    fn push_null(&mut self) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.offsets.push(*self.offsets.last().unwrap_or(&0));
        self.nulls.push(false);
        self.any_null = true;
    }

    fn push_option(&mut self, s: Option<&str>) -> Result<(), String> {
        match s {
            Some(s) => self.push(s),
            None => {
                self.push_null();
                Ok(())
            }
        }
    }

    fn len(&self) -> usize {
        self.nulls.len()
    }

    fn finish(mut self) -> ArrayRef {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let nulls = self.any_null.then(|| NullBuffer::from(self.nulls));
        let offsets = OffsetBuffer::new(ScalarBuffer::from(self.offsets));
        // SAFETY: the offsets start at 0, never decrease and end at `bytes.len()`, and every
        // value pushed was a `&str`, so each range is UTF-8.
        Arc::new(unsafe { StringArray::new_unchecked(offsets, Buffer::from_vec(self.bytes), nulls) })
    }
}

/// Why a piece of output cannot be written.
fn too_large() -> String {
    "the rulings of a batch hold more than 2 GiB of text: give rule_arrow smaller batches".to_string()
}

/// A list offsets column being built.
struct Offsets(Vec<i32>);

impl Offsets {
    fn new() -> Self {
        Offsets(vec![0])
    }

    fn end_row(&mut self, len: usize) -> Result<(), String> {
        self.0.push(i32::try_from(len).map_err(|_| too_large())?);
        Ok(())
    }

    /// Ends `rows` rows that add nothing, the list being `len` long.
    fn repeat(&mut self, rows: usize, len: usize) -> Result<(), String> {
        let len = i32::try_from(len).map_err(|_| too_large())?;
        self.0.resize(self.0.len() + rows, len);
        Ok(())
    }

    fn finish(self) -> OffsetBuffer<i32> {
        debug_assert!(self.0.first() == Some(&0) && self.0.windows(2).all(|w| w[0] <= w[1]));
        // SAFETY: the offsets start at 0 (`new`) and never decrease: each row ends at the
        // length of the list so far, which only grows (`end_row`, `repeat`), and at least 0
        // (`i32::try_from` of a `usize`).
        unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(self.0)) }
    }
}

/// A list of strings column being built.
struct StrList {
    offsets: Offsets,
    values: StrCol,
}

impl StrList {
    fn new() -> Self {
        StrList { offsets: Offsets::new(), values: StrCol::default() }
    }

    /// Empty, with room for the offsets of `rows` rows.
    fn with_rows(rows: usize) -> Self {
        let mut list = StrList::new();
        list.offsets.0.reserve(rows);
        list
    }

    fn push<S: AsRef<str>>(&mut self, items: &[S]) -> Result<(), String> {
        for s in items {
            self.values.push(s.as_ref())?;
        }
        self.offsets.end_row(self.values.len())
    }

    /// Ends a row that is null (its validity is the caller's, in `finish_with`).
    fn push_null_row(&mut self) -> Result<(), String> {
        self.offsets.end_row(self.values.len())
    }

    fn finish(self) -> ArrayRef {
        self.finish_with(None)
    }

    fn finish_with(self, nulls: Option<NullBuffer>) -> ArrayRef {
        let item = Arc::new(Field::new("item", DataType::Utf8, false));
        Arc::new(ListArray::new(item, self.offsets.finish(), self.values.finish(), nulls))
    }
}

/// A column of a relation's parameter being built.
enum OutArg {
    Str(NameCol),
    Int(Vec<i64>),
}

/// A string column without nulls being built (the names of a parameter's tuples): offsets
/// written as they come, their size checked once, when the column is finished.
struct NameCol {
    bytes: Vec<u8>,
    offsets: Vec<i32>,
}

impl NameCol {
    fn new() -> Self {
        NameCol { bytes: Vec::new(), offsets: vec![0] }
    }

    /// Pushes the name of id `v` in `names` (the batch's names by id; `<unknown>` past them,
    /// as the interner says), copied from `padded` when it is short: its 16 bytes at once, then
    /// cut to its length (a copy of known size, not a call of `memcpy` a name).
    #[inline]
    fn push_name(&mut self, names: &[&str], padded: &[([u8; 16], u8)], v: i64) {
        match padded.get(v as usize) {
            Some((bytes, n)) if *n as usize <= 16 => {
                self.bytes.extend_from_slice(bytes);
                self.bytes.truncate(self.bytes.len() - 16 + *n as usize);
            }
            _ => self.bytes.extend_from_slice(names.get(v as usize).copied().unwrap_or("<unknown>").as_bytes()),
        }
        // Past `i32::MAX` the offset is wrong, and `finish` refuses the column.
        self.offsets.push(self.bytes.len() as i32);
    }

    fn finish(self) -> Result<ArrayRef, String> {
        if i32::try_from(self.bytes.len()).is_err() {
            return Err(too_large());
        }
        // SAFETY: the offsets start at 0, never decrease (each is the length of the bytes so
        // far, at most `i32::MAX`: checked above) and end at `bytes.len()`, and every value
        // pushed was a `&str`, so each range is UTF-8.
        let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(self.offsets)) };
        Ok(Arc::new(unsafe { StringArray::new_unchecked(offsets, Buffer::from_vec(self.bytes), None) }))
    }
}

/// One relation and sign of `concluded` or `definite` being built.
struct TupleColumns {
    offsets: Offsets,
    len: usize,
    columns: Vec<OutArg>,
}

impl TupleColumns {
    /// Empty, with room for the offsets of `rows` rows.
    fn new(info: &RelationInfo, rows: usize) -> Self {
        let columns = info
            .params
            .iter()
            .map(|p| if p.integer { OutArg::Int(Vec::new()) } else { OutArg::Str(NameCol::new()) })
            .collect();
        let mut offsets = Offsets::new();
        offsets.0.reserve(rows);
        TupleColumns { offsets, len: 0, columns }
    }

    fn finish(self, ty: &DataType) -> Result<ArrayRef, String> {
        let (DataType::List(item), Some(DataType::Struct(fields))) =
            (ty, if let DataType::List(f) = ty { Some(f.data_type()) } else { None })
        else {
            return Err("an output column of an unexpected type".into());
        };
        let columns: Vec<ArrayRef> = self
            .columns
            .into_iter()
            .map(|c| match c {
                OutArg::Str(s) => s.finish(),
                OutArg::Int(v) => Ok(Arc::new(Int64Array::from(v)) as ArrayRef),
            })
            .collect::<Result<_, _>>()?;
        let items = if fields.is_empty() {
            StructArray::new_empty_fields(self.len, None)
        } else {
            StructArray::try_new(fields.clone(), columns, None).map_err(|e| e.to_string())?
        };
        let list = ListArray::try_new(item.clone(), self.offsets.finish(), Arc::new(items), None)
            .map_err(|e| e.to_string())?;
        Ok(Arc::new(list))
    }
}

/// The output columns of one piece of rows, being built.
struct RulingColumns {
    /// Per layer (concluded, definite), per ruling key in output order.
    layers: [Vec<TupleColumns>; 2],
    /// The rows of the piece, to size its columns after its first batch.
    rows: usize,
    valid: Vec<bool>,
    contradictions: StrList,
    warnings: StrList,
    why_not: StrCol,
    explanations: Option<StrCol>,
    error: StrCol,
}

/// A row of a piece as read: its case's id in the batch with the ranges of its warnings and
/// asked literals, or the message of its error.
enum Slot {
    Case { id: u32, warnings: Range<usize>, asked: Option<Range<usize>> },
    Error(String),
}

impl RulingColumns {
    fn new(schema: &Schema, keys: &[(String, usize)], explain: bool, rows: usize) -> Self {
        let layer = || keys.iter().map(|&(_, rel)| TupleColumns::new(&schema.relations[rel], rows)).collect();
        RulingColumns {
            layers: [layer(), layer()],
            rows,
            valid: Vec::with_capacity(rows),
            contradictions: StrList::with_rows(rows),
            warnings: StrList::with_rows(rows),
            why_not: StrCol::with_rows(rows),
            explanations: explain.then(|| StrCol::with_rows(rows)),
            error: StrCol::with_rows(rows),
        }
    }

    /// A row that gets no ruling, with its error (`line N: ...`).
    fn error_row(&mut self, error: &str) -> Result<(), String> {
        self.valid.push(false);
        self.contradictions.push::<&str>(&[])?;
        self.warnings.push::<&str>(&[])?;
        self.why_not.push_null();
        if let Some(e) = &mut self.explanations {
            e.push_null();
        }
        self.error.push(error)
    }

    fn finish(self, schema: &Arc<ArrowSchema>, case: ArrayRef) -> Result<RecordBatch, String> {
        let nulls = NullBuffer::from(self.valid);
        let mut columns: Vec<ArrayRef> = vec![case];
        for (layer, field) in self.layers.into_iter().zip(["concluded", "definite"]) {
            let DataType::Struct(fields) = schema.field_with_name(field).map_err(|e| e.to_string())?.data_type() else {
                return Err("an output column of an unexpected type".into());
            };
            let arrays = layer
                .into_iter()
                .zip(fields.iter())
                .map(|(t, f)| t.finish(f.data_type()))
                .collect::<Result<Vec<_>, _>>()?;
            let layer = if fields.is_empty() {
                StructArray::new_empty_fields(nulls.len(), Some(nulls.clone()))
            } else {
                StructArray::try_new(fields.clone(), arrays, Some(nulls.clone())).map_err(|e| e.to_string())?
            };
            columns.push(Arc::new(layer));
        }
        columns.push(self.contradictions.finish());
        columns.push(self.warnings.finish());
        columns.push(self.why_not.finish());
        if let Some(e) = self.explanations {
            columns.push(e.finish());
        }
        columns.push(self.error.finish());
        RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())
    }
}

/// What a call rules with, shared by its threads.
struct Ruler<'p> {
    pkg: &'p dyn Package,
    cat: Catalog,
    opts: &'p Options,
    /// The ruling keys in output order: the key and its relation.
    keys: Vec<(String, usize)>,
    out: Arc<ArrowSchema>,
}

impl Ruler<'_> {
    /// Evaluates `batch` and appends the rows of `slots` (numbered from `first_no`) to `cols`:
    /// the per-row columns row by row, then each relation's tuples column by column.
    fn write(&self, batch: &Batch, slots: &[Slot], first_no: usize, cols: &mut RulingColumns) -> Result<(), String> {
        let schema = self.cat.schema();
        let mut output = if batch.cases > 0 { self.pkg.evaluate(batch) } else { crate::Output::default() };
        output.sort_instances();
        fn rows(v: &[Vec<i64>], s: usize) -> &[i64] {
            v.get(s).map_or(&[][..], |r| &r[..])
        }
        // Per row: the id of its case when it is ruled (not an error row, not past its budget).
        let ruled: Vec<Option<u32>> = slots
            .iter()
            .map(|s| match s {
                Slot::Case { id, .. } if output.over_budget.binary_search(&CaseId(*id)).is_err() => Some(*id),
                _ => None,
            })
            .collect();
        let contradictions: Vec<Cow<'_, [i64]>> = schema
            .relations
            .iter()
            .enumerate()
            .map(|(r, info)| by_case(rows(&output.contradictions, r), info.params.len() + 1))
            .collect();
        let mut contradicted = vec![0usize; contradictions.len()];
        // The relations with contradictions in this batch (mostly none).
        let contradicting: Vec<usize> = (0..contradictions.len()).filter(|&r| !contradictions[r].is_empty()).collect();
        let mut literals = Vec::<String>::new();
        for (n, (s, id)) in slots.iter().zip(&ruled).enumerate() {
            let no = first_no + n;
            let (id, warnings, asked) = match (s, id) {
                (Slot::Error(msg), _) => {
                    cols.error_row(&error_text(no, msg))?;
                    continue;
                }
                (Slot::Case { .. }, None) => {
                    let msg = over_budget(self.opts.max_case_tuples.unwrap_or(u64::MAX));
                    cols.error_row(&error_text(no, &msg))?;
                    continue;
                }
                (Slot::Case { warnings, asked, .. }, Some(id)) => (*id, warnings, asked),
            };
            cols.valid.push(true);
            literals.clear();
            for &r in &contradicting {
                let (rows, info) = (&contradictions[r], &schema.relations[r]);
                let stride = info.params.len() + 1;
                let run = case_run(rows, stride, contradicted[r], id);
                contradicted[r] = run.end;
                for row in rows[run].chunks_exact(stride) {
                    literals.push(literal_string(info, &batch.interner, &row[1..]));
                }
            }
            literals.sort();
            cols.contradictions.push(&literals)?;
            let noted: Vec<&str> = batch.warnings[warnings.clone()].iter().map(|(_, w)| w.as_str()).collect();
            cols.warnings.push(&noted)?;
            let ex = if self.opts.explain || asked.is_some() {
                crate::explain::explain_case(schema, batch, &output, id)
            } else {
                serde_json::Map::new()
            };
            match asked {
                Some(range) => {
                    let mut text = String::new();
                    push_json(&mut text, &why_not_entries(schema, batch, &output, range.clone(), &ex));
                    cols.why_not.push(&text)?;
                }
                None => cols.why_not.push_null(),
            }
            if let Some(e) = &mut cols.explanations {
                let mut text = String::new();
                push_json(&mut text, &ex);
                e.push(&text)?;
            }
            cols.error.push_null();
        }
        // Each relation and sign of each layer, a column at a time: its offsets for every row,
        // its tuples for the rows whose cases concluded some. `row_of`: per case id, its row in
        // `slots` (`usize::MAX` for a case past its budget).
        let mut row_of = vec![usize::MAX; batch.cases as usize];
        for (n, id) in ruled.iter().enumerate() {
            if let Some(id) = id {
                row_of[*id as usize] = n;
            }
        }
        let mut tuples = Vec::new();
        // The batch's names by id, looked up once a name rather than once a tuple, and their
        // places in byte order (which orders tuples as a ruling line does).
        let names: Vec<&str> = (0..batch.interner.len()).map(|i| batch.interner.name(Sym(i as u32))).collect();
        let padded: Vec<([u8; 16], u8)> = names
            .iter()
            .map(|n| {
                let mut bytes = [0u8; 16];
                match bytes.get_mut(..n.len()) {
                    Some(to) => {
                        to.copy_from_slice(n.as_bytes());
                        (bytes, n.len() as u8)
                    }
                    None => (bytes, u8::MAX),
                }
            })
            .collect();
        let mut by_name: Vec<u32> = (0..names.len() as u32).collect();
        by_name.sort_unstable_by_key(|&i| names[i as usize]);
        let mut rank = vec![0u32; names.len()];
        for (r, &i) in by_name.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        for (k, &(ref key, rel)) in self.keys.iter().enumerate() {
            let s = slot(rel, key.starts_with('~'));
            let params = schema.relations[rel].params;
            let stride = params.len() + 1;
            for (layer, found) in [&output.concluded, &output.definite].into_iter().enumerate() {
                let rows = by_case(rows(found, s), stride);
                let t = &mut cols.layers[layer][k];
                // The offsets of this batch's rows start after `first` (the list's start, and
                // the rows of the batches before).
                let first = t.offsets.0.len();
                if rows.is_empty() {
                    t.offsets.repeat(ruled.len(), t.len)?;
                    continue;
                }
                // Room for the tuples at once: after the piece's first batch, for as many a row
                // in the whole piece (what it holds past that grows as a `Vec` does).
                let piece = first == 1;
                let count = match piece {
                    true => (rows.len() / stride) * cols.rows.div_ceil(ruled.len().max(1)) * 9 / 8,
                    false => rows.len() / stride,
                };
                for c in &mut t.columns {
                    match c {
                        OutArg::Int(col) => col.reserve(count),
                        OutArg::Str(col) => {
                            // Names' length: a guess for the first batch, then theirs so far.
                            let average = match piece {
                                true => 12,
                                false => col.bytes.len() / col.offsets.len().max(1) + 1,
                            };
                            col.offsets.reserve(count);
                            col.bytes.reserve(count * average);
                        }
                    }
                }
                // Each run of rows is one case's: the rows before its row add nothing.
                let mut start = 0;
                while start < rows.len() {
                    let id = rows[start];
                    let mut end = start;
                    while end < rows.len() && rows[end] == id {
                        end += stride;
                    }
                    let run = start..end;
                    start = end;
                    let Some(&at) = row_of.get(id as usize).filter(|&&at| at != usize::MAX) else { continue };
                    t.offsets.repeat(at.checked_sub(t.offsets.0.len() - first).ok_or(OUT_OF_ORDER)?, t.len)?;
                    ruling_order(&rank, params, &rows, stride, run, &mut tuples);
                    for &a in &tuples {
                        for (c, v) in t.columns.iter_mut().zip(&rows[a..a + stride - 1]) {
                            match c {
                                OutArg::Int(col) => col.push(*v),
                                OutArg::Str(col) => col.push_name(&names, &padded, *v),
                            }
                        }
                    }
                    t.len += tuples.len();
                    t.offsets.end_row(t.len)?;
                }
                t.offsets.repeat(ruled.len().checked_sub(t.offsets.0.len() - first).ok_or(OUT_OF_ORDER)?, t.len)?;
            }
        }
        Ok(())
    }
}

/// The offsets of the arguments of the rows at `range` of `rows` (rows of `stride` values,
/// their case first, of a relation of `params`) into `tuples`, in the order a ruling lists
/// them (`jsonl`'s `tuple_order`): element-wise, Integers numerically, entity names by their
/// bytes (`rank`: per id of the batch's names, its place in byte order). One tuple, the most
/// common, is not sorted.
fn ruling_order(
    rank: &[u32],
    params: &[ParamInfo],
    rows: &[i64],
    stride: usize,
    range: Range<usize>,
    tuples: &mut Vec<usize>,
) {
    let arity = stride - 1;
    tuples.clear();
    tuples.extend(range.step_by(stride.max(1)).map(|t| t + 1));
    if tuples.len() > 1 {
        // An id past the names (none is) after them all, as `<unknown>` would not be.
        let place = |v: i64| rank.get(v as usize).copied().unwrap_or(u32::MAX);
        tuples.sort_by(|&a, &b| {
            for ((x, y), p) in rows[a..a + arity].iter().zip(&rows[b..b + arity]).zip(params) {
                let o = if p.integer || x == y { x.cmp(y) } else { place(*x).cmp(&place(*y)) };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
    }
}

/// Why a batch's conclusions cannot be written (a bug: the rows of an output are in case
/// order, and cases in row order).
const OUT_OF_ORDER: &str = "the conclusions of a batch are not in the order of its cases";

/// The error of the row numbered `no` from 1, as an error line's `error` gives it.
fn error_text(no: usize, msg: &str) -> String {
    format!("line {no}: {msg}")
}

/// The rows of case `id` in `rows` (rows of `stride` values, their case first, in case order),
/// looked for from offset `at`: rows of earlier cases (a case past its budget, ruled as an
/// error row) are passed over.
fn case_run(rows: &[i64], stride: usize, mut at: usize, id: u32) -> Range<usize> {
    let id = id as i64;
    while at < rows.len() && rows[at] < id {
        at += stride;
    }
    let from = at;
    while at < rows.len() && rows[at] == id {
        at += stride;
    }
    from..at
}

/// A piece of a call's rows: a batch and a range of its rows, ruled into one output batch.
struct Piece {
    batch: usize,
    rows: Range<usize>,
    /// The number of its first row from 1, across the call.
    first_no: usize,
}

/// Splits the rows of `batches` into pieces: one per batch for one thread, else about four per
/// thread, each a whole number of evaluated batches.
fn pieces(lens: &[usize], threads: usize) -> Vec<Piece> {
    let total: usize = lens.iter().sum();
    let size =
        if threads <= 1 { usize::MAX } else { (total / (threads * 4)).div_ceil(BATCH_CASES).max(1) * BATCH_CASES };
    let mut out = Vec::new();
    let mut no = 1;
    for (b, &len) in lens.iter().enumerate() {
        let mut from = 0;
        while from < len {
            let to = len.min(from.saturating_add(size));
            out.push(Piece { batch: b, rows: from..to, first_no: no + from });
            from = to;
        }
        no += len;
    }
    out
}

/// Runs `work` for each of `n` items on up to `threads` scoped threads (the calling thread
/// alone for one), collecting the results in item order.
fn parallel<T: Send>(
    n: usize,
    threads: usize,
    work: impl Fn(usize) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let threads = threads.clamp(1, n.max(1));
    if threads == 1 {
        return (0..n).map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<T, String>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = work(i);
                *results[i].lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .unwrap_or_else(|| Err("a ruler thread stopped".into()))
        })
        .collect()
}

/// Rules the cases of `batches` (each in the layout of [`input_schema`], one row a case) with
/// `pkg` on up to `threads` threads: output batches in the layout of [`output_schema`] (for
/// the first batch's `case` type), whose rows, in order, are one per input row. A row that
/// cannot be ruled has its `error` (`line N: ...`, N the row's number from 1 across the
/// batches), as its case line's error line has. `Err` is for the call: a column the package
/// cannot read (naming it), batches of different `case` types, or output past Arrow's 2 GiB
/// of text in one batch.
pub fn rule_batches(
    pkg: &dyn Package,
    batches: &[RecordBatch],
    opts: &Options,
    threads: usize,
) -> Result<Vec<RecordBatch>, String> {
    let schema = pkg.schema();
    let case_type = match batches.first() {
        Some(b) => case_column(b)?.data_type().clone(),
        None => DataType::Utf8,
    };
    let mut columns = Vec::with_capacity(batches.len());
    for b in batches {
        let cols = CaseColumns::of(schema, b)?;
        if case_column(b)?.data_type() != &case_type {
            return Err(format!(
                "table: column `case` is {} in one batch and {case_type} in another",
                case_column(b)?.data_type()
            ));
        }
        columns.push(cols);
    }
    let ruler = Ruler {
        pkg,
        cat: Catalog::of(pkg),
        opts,
        keys: ruling_keys(schema),
        out: Arc::new(output_schema(schema, case_type, opts.explain)),
    };
    let lens: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    let pieces = pieces(&lens, threads);
    parallel(pieces.len(), threads, |i| {
        let p = &pieces[i];
        let cols = &columns[p.batch];
        let mut out = RulingColumns::new(schema, &ruler.keys, opts.explain, p.rows.len());
        let mut read = Read::default();
        let mut adder = Adder::default();
        let mut fast = Fast::new(&ruler.cat, cols, opts);
        // The facts' rows of the batch before, emptied: their room is kept for the next.
        let mut spare: Vec<Vec<i64>> = Vec::new();
        let mut from = p.rows.start;
        while from < p.rows.end {
            let to = p.rows.end.min(from + BATCH_CASES);
            let mut batch = new_batch(&ruler.cat, opts);
            if spare.len() == batch.facts.len() {
                batch.facts = std::mem::take(&mut spare);
            }
            adder.new_batch();
            fast.new_batch();
            let mut slots = Vec::with_capacity(to - from);
            for row in from..to {
                let slot = match fast.add(cols, row, &mut batch) {
                    Some(id) => Slot::Case { id, warnings: 0..0, asked: None },
                    None => read_case(cols, row, &mut read, &mut adder, &ruler.cat, &mut batch, opts),
                };
                slots.push(slot);
            }
            ruler.write(&batch, &slots, p.first_no + (from - p.rows.start), &mut out)?;
            spare = std::mem::take(&mut batch.facts);
            spare.iter_mut().for_each(Vec::clear);
            from = to;
        }
        let case = case_column(&batches[p.batch])?.slice(p.rows.start, p.rows.len());
        out.finish(&ruler.out, case)
    })
}

/// An empty batch for a call's options.
fn new_batch(cat: &Catalog, opts: &Options) -> Batch {
    let mut batch = Batch::new(cat.schema());
    batch.explain = opts.explain || opts.coverage.is_some() || opts.certify;
    batch.max_case_tuples = opts.max_case_tuples;
    batch
}

/// Reads row `row` of `cols` and adds its case to `batch`: its slot.
fn read_case<'a>(
    cols: &CaseColumns<'a>,
    row: usize,
    read: &mut Read<'a>,
    adder: &mut Adder<'a>,
    cat: &Catalog,
    batch: &mut Batch,
    opts: &Options,
) -> Slot {
    if let Err(msg) = cols.read(row, read) {
        return Slot::Error(msg);
    }
    add_read(read, adder, cat, batch, opts)
}

/// Adds a case read into `read` to `batch`: its slot.
fn add_read<'a>(read: &Read<'a>, adder: &mut Adder<'a>, cat: &Catalog, batch: &mut Batch, opts: &Options) -> Slot {
    let (warned, asked) = (batch.warnings.len(), batch.why_not.len());
    match adder.add(cat, batch, read, opts) {
        Ok(id) => Slot::Case {
            id,
            warnings: warned..batch.warnings.len(),
            asked: (batch.why_not.len() > asked).then_some(asked..batch.why_not.len()),
        },
        Err(msg) => Slot::Error(msg),
    }
}

// ---------------------------------------------------------------------------------------------
// The flat layout: one row a fact.

/// The most arguments of the relations `input` (or, when false, institutional) selects.
fn max_arity(schema: &Schema, input: bool) -> usize {
    let of_kind = |r: &&RelationInfo| (r.kind != RelationKind::Institutional) == input;
    schema.relations.iter().filter(of_kind).map(|r| r.params.len()).max().unwrap_or(0)
}

/// The argument columns of the flat layouts: `e0..` (entities) and `n0..` (Integers), `arity` each.
fn argument_fields(arity: usize) -> Vec<Field> {
    let entities = (0..arity).map(|j| Field::new(format!("e{j}"), DataType::Utf8, true));
    entities.chain((0..arity).map(|j| Field::new(format!("n{j}"), DataType::Int64, true))).collect()
}

/// The flat layout [`rule_flat`] reads, one row a fact: `case`, `relation` (the case line's key,
/// `name` or `~name`; null for a row that only names its case), and per argument position `j`
/// `e{j}` (an entity's name) and `n{j}` (an Integer), a relation's parameter `j` read from the
/// one of its type. A case's rows are consecutive.
pub fn flat_input_schema(schema: &Schema, case: DataType) -> ArrowSchema {
    let mut fields = vec![Field::new("case", case, true), Field::new("relation", DataType::Utf8, true)];
    fields.extend(argument_fields(max_arity(schema, true)));
    ArrowSchema::new(fields)
}

/// The flat layout [`rule_flat`] writes: per case, first a row of its own (`relation` null) with
/// its `contradictions`, `warnings` and `error`, then one row per concluded tuple: `relation`
/// (`name` or `~name`), `definite`, and its arguments in `e{j}` or `n{j}` as in the input.
pub fn flat_output_schema(schema: &Schema, case: DataType) -> ArrowSchema {
    let strings = DataType::List(Arc::new(Field::new("item", DataType::Utf8, false)));
    let mut fields = vec![
        Field::new("case", case, true),
        Field::new("relation", DataType::Utf8, true),
        Field::new("definite", DataType::Boolean, true),
    ];
    fields.extend(argument_fields(max_arity(schema, false)));
    fields.push(Field::new("contradictions", strings.clone(), true));
    fields.push(Field::new("warnings", strings, true));
    fields.push(Field::new("error", DataType::Utf8, true));
    ArrowSchema::new(fields)
}

/// A `case` column read as a key, to tell where one case's rows end.
#[derive(PartialEq)]
enum CaseKey<'a> {
    Str(&'a str),
    Int(i64),
    Other(String),
    Null,
}

/// The `case` value of row `row` of `col`.
fn case_key<'a>(col: &'a ArgColumnOrNull<'a>, row: usize) -> CaseKey<'a> {
    match col {
        ArgColumnOrNull::Str(s) => s.get(row).map_or(CaseKey::Null, CaseKey::Str),
        ArgColumnOrNull::Int(n) => match n.arg(row) {
            Arg::Int(v) => CaseKey::Int(v),
            Arg::Other(Value::Null) => CaseKey::Null,
            Arg::Other(v) => CaseKey::Other(v.to_string()),
            Arg::Str(s) => CaseKey::Other(s.to_string()),
        },
        ArgColumnOrNull::Null => CaseKey::Null,
    }
}

/// A `case` column: strings, integers, or all null.
enum ArgColumnOrNull<'a> {
    Str(Strs<'a>),
    Int(Ints<'a>),
    Null,
}

/// The columns of a batch in the flat input layout.
struct FlatColumns<'a> {
    case: ArgColumnOrNull<'a>,
    relation: Option<Strs<'a>>,
    entities: Vec<Option<Strs<'a>>>,
    integers: Vec<Option<Ints<'a>>>,
    rows: usize,
}

impl<'a> FlatColumns<'a> {
    fn of(b: &'a RecordBatch) -> Result<FlatColumns<'a>, String> {
        let col = case_column(b)?;
        let case = if let Some(s) = Strs::of(col.as_ref()) {
            ArgColumnOrNull::Str(s)
        } else if let Some(n) = Ints::of(col.as_ref()) {
            ArgColumnOrNull::Int(n)
        } else {
            ArgColumnOrNull::Null
        };
        let mut cols =
            FlatColumns { case, relation: None, entities: Vec::new(), integers: Vec::new(), rows: b.num_rows() };
        let mut seen: Vec<&str> = Vec::new();
        for (field, col) in b.schema_ref().fields().iter().zip(b.columns()) {
            let name = field.name().as_str();
            let bad = |what: &str| format!("table: column `{name}`: {what}, got {}", col.data_type());
            if seen.contains(&name) {
                return Err(format!("table: column `{name}`: appears more than once"));
            }
            seen.push(name);
            let position =
                |prefix: char| name.strip_prefix(prefix).and_then(|j| j.parse::<usize>().ok()).filter(|&j| j < 1024);
            match name {
                "case" => {}
                "relation" => cols.relation = Some(Strs::of(col.as_ref()).ok_or_else(|| bad("expected strings"))?),
                _ if position('e').is_some() => {
                    let j = position('e').unwrap_or(0);
                    cols.entities.resize_with(cols.entities.len().max(j + 1), || None);
                    cols.entities[j] = Some(Strs::of(col.as_ref()).ok_or_else(|| bad("expected strings"))?);
                }
                _ if position('n').is_some() => {
                    let j = position('n').unwrap_or(0);
                    cols.integers.resize_with(cols.integers.len().max(j + 1), || None);
                    cols.integers[j] = Some(Ints::of(col.as_ref()).ok_or_else(|| bad("expected integers"))?);
                }
                _ => {
                    return Err(format!(
                        "table: column `{name}`: not a column of the flat layout (case, relation, e0.., n0..)"
                    ))
                }
            }
        }
        if cols.relation.is_none() {
            return Err("table: no `relation` column".into());
        }
        Ok(cols)
    }

    /// The runs of rows of one case each, in order.
    fn cases(&self) -> Vec<Range<usize>> {
        let mut runs = Vec::new();
        let mut from = 0;
        for row in 1..=self.rows {
            if row == self.rows || case_key(&self.case, row) != case_key(&self.case, from) {
                runs.push(from..row);
                from = row;
            }
        }
        runs
    }

    /// Adds the facts of rows `run` to the case being read into `read`.
    fn read(&self, schema: &Schema, keys: &crate::value::FastMap<&str, usize>, run: Range<usize>, read: &mut Read<'a>) {
        let Some(relation) = &self.relation else { return };
        let mut current: Option<&str> = None;
        for row in run {
            let Some(key) = relation.get(row) else { continue };
            if current != Some(key) {
                read.start_key(key);
                current = Some(key);
            }
            // The relation's parameters, when the package has it (else no argument: the
            // validation refuses the key with its message).
            let params = keys.get(key).map_or(&[][..], |&rel| schema.relations[rel].params);
            let mut args = params.iter().enumerate().map(|(j, p)| {
                if p.integer {
                    self.integers.get(j).and_then(Option::as_ref).map_or(Arg::Other(Value::Null), |n| n.arg(row))
                } else {
                    let s = self.entities.get(j).and_then(Option::as_ref).and_then(|s| s.get(row));
                    s.map_or(Arg::Other(Value::Null), |s| Arg::Str(Cow::Borrowed(s)))
                }
            });
            read.push_tuple(Some(&mut args));
        }
    }
}

/// The flat output columns of a piece, being built.
struct FlatOut {
    /// Per output row, the input row (batch, row) its case is named by.
    case_rows: Vec<(usize, usize)>,
    relation: StrCol,
    definite: Vec<Option<bool>>,
    entities: Vec<StrCol>,
    integers: Vec<Vec<Option<i64>>>,
    contradictions: StrList,
    contradicted: Vec<bool>,
    warnings: StrList,
    error: StrCol,
}

impl FlatOut {
    fn new(arity: usize) -> Self {
        FlatOut {
            case_rows: Vec::new(),
            relation: StrCol::default(),
            definite: Vec::new(),
            entities: (0..arity).map(|_| StrCol::default()).collect(),
            integers: vec![Vec::new(); arity],
            contradictions: StrList::new(),
            contradicted: Vec::new(),
            warnings: StrList::new(),
            error: StrCol::default(),
        }
    }

    /// A case's own row, taking its `case` from input row `case_row`.
    fn own_row(
        &mut self,
        case_row: (usize, usize),
        contradictions: &[String],
        warnings: &[&str],
        error: Option<&str>,
    ) -> Result<(), String> {
        self.case_rows.push(case_row);
        self.relation.push_null();
        self.definite.push(None);
        self.entities.iter_mut().for_each(StrCol::push_null);
        self.integers.iter_mut().for_each(|c| c.push(None));
        self.contradictions.push(contradictions)?;
        self.contradicted.push(true);
        self.warnings.push(warnings)?;
        match error {
            Some(e) => self.error.push(e),
            None => {
                self.error.push_null();
                Ok(())
            }
        }
    }
}

impl FlatOut {
    fn finish(self, schema: &Arc<ArrowSchema>, input: &[FlatColumns<'_>]) -> Result<RecordBatch, String> {
        let mut columns: Vec<ArrayRef> = vec![case_values(input, &self.case_rows)?, self.relation.finish()];
        columns.push(Arc::new(arrow_array::BooleanArray::from(self.definite)));
        columns.extend(self.entities.into_iter().map(StrCol::finish));
        columns.extend(self.integers.into_iter().map(|v| Arc::new(Int64Array::from(v)) as ArrayRef));
        let own = NullBuffer::from(self.contradicted);
        columns.push(self.contradictions.finish_with(Some(own.clone())));
        columns.push(self.warnings.finish_with(Some(own)));
        columns.push(self.error.finish());
        RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())
    }
}

/// The `case` column of `rows` (batch, row) of `columns`, as the flat output holds it (strings
/// as `Utf8`, integers as `Int64`).
fn case_values(columns: &[FlatColumns<'_>], rows: &[(usize, usize)]) -> Result<ArrayRef, String> {
    let Some(first) = columns.first() else { return Ok(Arc::new(arrow_array::NullArray::new(rows.len()))) };
    Ok(match &first.case {
        ArgColumnOrNull::Str(_) => {
            let mut out = StrCol::default();
            for &(b, r) in rows {
                match &columns[b].case {
                    ArgColumnOrNull::Str(s) => out.push_option(s.get(r))?,
                    _ => out.push_null(),
                }
            }
            out.finish()
        }
        ArgColumnOrNull::Int(_) => Arc::new(Int64Array::from_iter(rows.iter().map(|&(b, r)| match &columns[b].case {
            ArgColumnOrNull::Int(n) => match n.arg(r) {
                Arg::Int(v) => Some(v),
                _ => None,
            },
            _ => None,
        }))),
        ArgColumnOrNull::Null => Arc::new(arrow_array::NullArray::new(rows.len())),
    })
}

/// The `case` type of the flat output for an input `case` column of type `t`.
fn flat_case_type(t: &DataType) -> DataType {
    if is_string(t) {
        DataType::Utf8
    } else if is_integer(t) {
        DataType::Int64
    } else {
        DataType::Null
    }
}

impl Ruler<'_> {
    /// Evaluates `batch` and appends the flat rows of `slots` (the case of slot `k` named by
    /// input row `case_rows[k]`, numbered `first_no + k`) to `out`.
    fn write_flat(
        &self,
        batch: &Batch,
        slots: &[Slot],
        case_rows: &[(usize, usize)],
        first_no: usize,
        out: &mut FlatOut,
    ) -> Result<(), String> {
        let schema = self.cat.schema();
        let mut output = if batch.cases > 0 { self.pkg.evaluate(batch) } else { crate::Output::default() };
        output.sort_instances();
        fn rows(v: &[Vec<i64>], s: usize) -> &[i64] {
            v.get(s).map_or(&[][..], |r| &r[..])
        }
        let layers: Vec<[Cow<'_, [i64]>; 2]> = self
            .keys
            .iter()
            .map(|(key, rel)| {
                let (s, stride) = (slot(*rel, key.starts_with('~')), schema.relations[*rel].params.len() + 1);
                [by_case(rows(&output.concluded, s), stride), by_case(rows(&output.definite, s), stride)]
            })
            .collect();
        let mut at = vec![[0usize; 2]; layers.len()];
        let contradictions: Vec<Cow<'_, [i64]>> = schema
            .relations
            .iter()
            .enumerate()
            .map(|(r, info)| by_case(rows(&output.contradictions, r), info.params.len() + 1))
            .collect();
        let mut contradicted = vec![0usize; contradictions.len()];
        let (mut tuples, mut literals) = (Vec::new(), Vec::<String>::new());
        for (n, (s, &case_row)) in slots.iter().zip(case_rows).enumerate() {
            let no = first_no + n;
            let (id, warnings) = match s {
                Slot::Error(msg) => {
                    out.own_row(case_row, &[], &[], Some(&error_text(no, msg)))?;
                    continue;
                }
                Slot::Case { id, .. } if output.over_budget.binary_search(&CaseId(*id)).is_ok() => {
                    let msg = over_budget(self.opts.max_case_tuples.unwrap_or(u64::MAX));
                    out.own_row(case_row, &[], &[], Some(&error_text(no, &msg)))?;
                    continue;
                }
                Slot::Case { id, warnings, .. } => (*id, warnings),
            };
            literals.clear();
            for (r, rows) in contradictions.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
                let info = &schema.relations[r];
                let stride = info.params.len() + 1;
                let run = case_run(rows, stride, contradicted[r], id);
                contradicted[r] = run.end;
                for row in rows[run].chunks_exact(stride) {
                    literals.push(literal_string(info, &batch.interner, &row[1..]));
                }
            }
            literals.sort();
            let noted: Vec<&str> = batch.warnings[warnings.clone()].iter().map(|(_, w)| w.as_str()).collect();
            out.own_row(case_row, &literals, &noted, None)?;
            for (k, (key, rel)) in self.keys.iter().enumerate() {
                let params = schema.relations[*rel].params;
                let stride = params.len() + 1;
                let [concluded, definite] = &layers[k];
                let run = case_run(concluded, stride, at[k][0], id);
                at[k][0] = run.end;
                let sure = case_run(definite, stride, at[k][1], id);
                at[k][1] = sure.end;
                if run.is_empty() {
                    continue;
                }
                let definite_rows: Vec<&[i64]> = definite[sure].chunks_exact(stride).map(|r| &r[1..]).collect();
                tuple_order(&self.cat, &batch.interner, params, concluded, stride, run, &mut tuples);
                for &a in &tuples {
                    let args = &concluded[a..a + stride - 1];
                    out.case_rows.push(case_row);
                    out.relation.push(key)?;
                    out.definite.push(Some(definite_rows.binary_search(&args).is_ok()));
                    for (j, e) in out.entities.iter_mut().enumerate() {
                        match params.get(j) {
                            Some(p) if !p.integer => e.push(batch.interner.name(Sym(args[j] as u32)))?,
                            _ => e.push_null(),
                        }
                    }
                    for (j, i) in out.integers.iter_mut().enumerate() {
                        i.push(params.get(j).filter(|p| p.integer).map(|_| args[j]));
                    }
                    out.contradictions.push_null_row()?;
                    out.contradicted.push(false);
                    out.warnings.push_null_row()?;
                    out.error.push_null();
                }
            }
        }
        Ok(())
    }
}

/// Rules the cases of `batches` in the flat layout ([`flat_input_schema`]: one row a fact, a
/// case's rows consecutive) with `pkg` on up to `threads` threads: output batches in the flat
/// output layout ([`flat_output_schema`]), a case's rows in the order of its input rows. A case
/// is a run of rows with the same `case`, which may go on from one batch of the call to the
/// next (a table read from Parquet is cut into batches by rows); across two calls, it would be
/// two cases. `line N` in an error counts cases from 1 across the call.
pub fn rule_flat(
    pkg: &dyn Package,
    batches: &[RecordBatch],
    opts: &Options,
    threads: usize,
) -> Result<Vec<RecordBatch>, String> {
    let schema = pkg.schema();
    let case_type = match batches.first() {
        Some(b) => flat_case_type(case_column(b)?.data_type()),
        None => DataType::Utf8,
    };
    let mut columns = Vec::with_capacity(batches.len());
    for b in batches {
        let cols = FlatColumns::of(b)?;
        if flat_case_type(case_column(b)?.data_type()) != case_type {
            return Err("table: column `case` is of another type in one batch than in another".into());
        }
        columns.push(cols);
    }
    // The call's cases, each the runs of rows it has in one batch or more (a case whose rows go
    // on from one batch to the next is one case).
    let mut cases: Vec<Vec<(usize, Range<usize>)>> = Vec::new();
    let mut last: Option<(usize, usize)> = None;
    for (b, cols) in columns.iter().enumerate() {
        for (k, run) in cols.cases().into_iter().enumerate() {
            let goes_on = k == 0
                && last.is_some_and(|(lb, lr)| {
                    let key = case_key(&columns[lb].case, lr);
                    key != CaseKey::Null && key == case_key(&cols.case, run.start)
                });
            last = Some((b, run.start));
            match cases.last_mut() {
                Some(case) if goes_on => case.push((b, run)),
                _ => cases.push(vec![(b, run)]),
            }
        }
    }
    let ruler = Ruler {
        pkg,
        cat: Catalog::of(pkg),
        opts,
        keys: ruling_keys(schema),
        out: Arc::new(flat_output_schema(schema, case_type)),
    };
    let pieces = pieces(&[cases.len()], threads);
    let arity = max_arity(schema, false);
    // Every relation's keys, so that a fact of an institutional relation gets the case line's
    // message.
    let all_keys: Vec<(String, usize)> = schema
        .relations
        .iter()
        .enumerate()
        .flat_map(|(rel, info)| [(info.name.to_string(), rel), (format!("~{}", info.name), rel)])
        .collect();
    let all_keys: crate::value::FastMap<&str, usize> = all_keys.iter().map(|(k, rel)| (k.as_str(), *rel)).collect();
    parallel(pieces.len(), threads, |i| {
        let p = &pieces[i];
        let mut out = FlatOut::new(arity);
        let mut read = Read::default();
        let mut adder = Adder::default();
        let mut from = p.rows.start;
        while from < p.rows.end {
            let to = p.rows.end.min(from + BATCH_CASES);
            let mut batch = new_batch(&ruler.cat, opts);
            adder.new_batch();
            let mut slots = Vec::with_capacity(to - from);
            let mut case_rows = Vec::with_capacity(to - from);
            for case in &cases[from..to] {
                case_rows.push((case[0].0, case[0].1.start));
                read.clear();
                for (b, run) in case {
                    columns[*b].read(schema, &all_keys, run.clone(), &mut read);
                }
                slots.push(add_read(&read, &mut adder, &ruler.cat, &mut batch, opts));
            }
            ruler.write_flat(&batch, &slots, &case_rows, p.first_no + (from - p.rows.start), &mut out)?;
            from = to;
        }
        out.finish(&ruler.out, &columns)
    })
}

/// Whether `b` is in the flat layout: a `relation` column of strings (in the nested layout, a
/// relation named `relation` has a list column).
pub fn is_flat(b: &RecordBatch) -> bool {
    b.column_by_name("relation").is_some_and(|c| is_string(c.data_type()))
}
