//! A compiled package as a Python extension module (feature `python`): what `clir wheel`
//! builds around the generated module, for any package, driven by its [`Schema`] alone.
//!
//! The module offers `rule(lines)` (JSON Lines in, `clir rule`'s ruling lines out),
//! `rule_arrow(table)` (a pyarrow `Table` or `RecordBatch` in, one out, schema
//! `output_schema()`), a typed case builder `Case`, and `__seal__`; docs/PYTHON.md documents
//! them. Both paths read cases and write rulings with the JSON Lines reader and writer of
//! [`crate::jsonl`] through [`crate::runner::rule_stream`], so a ruling through Python or Arrow
//! is `clir rule`'s by construction; the GIL is released while cases are read and ruled.

use crate::jsonl::{json_str, Options};
use crate::runner::{rule_stream, RunOptions, MAX_THREADS};
use crate::schema::{RelationInfo, RelationKind, Schema};
use crate::Package;
use arrow_array::cast::AsArray;
use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt8Type};
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema as ArrowSchema};
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyIterator, PyList, PyString, PyTuple};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// The package of this extension module (one module, one package: each wheel links its own copy
/// of this crate).
static PACKAGE: OnceLock<&'static dyn Package> = OnceLock::new();

/// The module's name (`clir_fide_laws_chess`), which is also its wheel's distribution name.
static MODULE_NAME: OnceLock<String> = OnceLock::new();

/// pyarrow, which only the Arrow functions need (the wheel's `arrow` extra): when it is not
/// installed, a `ModuleNotFoundError` that says how to install it with the wheel.
fn pyarrow(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("pyarrow").map_err(|e| {
        if !e.is_instance_of::<pyo3::exceptions::PyModuleNotFoundError>(py) {
            return e;
        }
        let name = MODULE_NAME.get().map_or("the wheel", String::as_str);
        let err = pyo3::exceptions::PyModuleNotFoundError::new_err(format!(
            "No module named 'pyarrow': rule_arrow, input_schema and output_schema need pyarrow, the \
             wheel's `arrow` extra (pip install '{name}[arrow]', or pip install pyarrow); rule and \
             Case do not"
        ));
        err.set_cause(py, Some(e));
        err
    })
}

/// The package the module was initialised with.
fn package() -> PyResult<&'static dyn Package> {
    PACKAGE.get().copied().ok_or_else(|| PyRuntimeError::new_err("the module was not initialised with a package"))
}

/// Fills the extension module `m` with the functions and classes of package `pkg` (what the
/// `#[pymodule]` function `clir wheel` generates calls).
pub fn module(m: &Bound<'_, PyModule>, pkg: &'static dyn Package) -> PyResult<()> {
    let _ = PACKAGE.set(pkg);
    // `clir_x.clir_x` when maturin installs the module in a package of the same name.
    let name = m.name()?.to_string();
    let _ = MODULE_NAME.set(name.split('.').next().unwrap_or_default().to_string());
    let schema = pkg.schema();
    m.add_function(wrap_pyfunction!(rule, m)?)?;
    m.add_function(wrap_pyfunction!(rule_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(output_schema, m)?)?;
    m.add_function(wrap_pyfunction!(input_schema, m)?)?;
    m.add_class::<Case>()?;
    m.add_class::<Entity>()?;
    m.add("__seal__", schema.seal)?;
    m.add("__law__", schema.package)?;
    m.add("__version__", schema.version)?;
    m.add("capabilities", schema.capabilities())?;
    let all = [
        "rule",
        "rule_arrow",
        "output_schema",
        "input_schema",
        "Case",
        "Entity",
        "capabilities",
        "__seal__",
        "__law__",
        "__version__",
    ];
    m.add("__all__", all.to_vec())?;
    m.add(
        "__doc__",
        format!("{} {} ({}), compiled to native code by clir.", schema.package, schema.version, schema.seal),
    )?;
    Ok(())
}

/// How a call rules: grants checked against the package first.
fn run_options(
    schema: &Schema,
    grants: Option<Vec<String>>,
    explain: bool,
    strict_constants: bool,
    threads: Option<usize>,
) -> PyResult<RunOptions> {
    let grants = grants.unwrap_or_default();
    schema.check_grants(&grants).map_err(PyValueError::new_err)?;
    if threads == Some(0) || threads.is_some_and(|t| t > MAX_THREADS) {
        return Err(PyValueError::new_err(format!("threads: expected a whole number from 1 to {MAX_THREADS}")));
    }
    Ok(RunOptions {
        options: Options { grants, explain, strict_constants, coverage: None, certify: false, ..Default::default() },
        threads,
        ..RunOptions::default()
    })
}

/// Rules JSON Lines `text` with `pkg` without the GIL: the ruling text, one line a case.
fn rule_text(py: Python<'_>, pkg: &'static dyn Package, text: Vec<u8>, opts: RunOptions) -> PyResult<String> {
    let ruled = py.allow_threads(move || {
        let mut out = Vec::with_capacity(text.len() * 2);
        rule_stream(pkg, &text[..], &mut out, &opts).map(|_| out)
    });
    let out = ruled.map_err(|e| PyRuntimeError::new_err(format!("ruling failed: {e}")))?;
    String::from_utf8(out).map_err(|e| PyRuntimeError::new_err(format!("ruling lines are not UTF-8: {e}")))
}

/// The first error line of `ruled`, as a `ValueError` naming its line.
fn first_error(ruled: &str) -> Option<PyErr> {
    ruled.lines().find_map(|l| {
        let v: Value = serde_json::from_str(l).ok()?;
        let why = v.get("error")?.as_str()?;
        Some(PyValueError::new_err(format!("case {}: {why}", v.get("case").unwrap_or(&Value::Null))))
    })
}

/// Rules cases: `lines` is the whole JSON Lines text (`str` or `bytes`) or an iterable of lines
/// (`str`, `bytes` or `Case`, one case each); returns an iterator over the ruling lines, exactly
/// those `clir rule` writes for the same cases and options, without line breaks (every case is
/// ruled before it returns, with the GIL released). A case that cannot be
/// ruled gets its error line (`raise_errors=True`: a `ValueError` naming its line instead).
#[pyfunction]
#[pyo3(signature = (lines, grants=None, explain=false, strict_constants=false, threads=None, raise_errors=false))]
fn rule<'py>(
    py: Python<'py>,
    lines: &Bound<'py, PyAny>,
    grants: Option<Vec<String>>,
    explain: bool,
    strict_constants: bool,
    threads: Option<usize>,
    raise_errors: bool,
) -> PyResult<Bound<'py, PyIterator>> {
    let pkg = package()?;
    let opts = run_options(pkg.schema(), grants, explain, strict_constants, threads)?;
    let text = input_text(lines)?;
    let ruled = rule_text(py, pkg, text, opts)?;
    if raise_errors {
        if let Some(e) = first_error(&ruled) {
            return Err(e);
        }
    }
    PyList::new(py, ruled.lines().collect::<Vec<&str>>())?.try_iter()
}

/// The bytes of JSON Lines given as one text or as an iterable of lines.
fn input_text(lines: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = lines.downcast::<PyString>() {
        return Ok(s.to_cow()?.into_owned().into_bytes());
    }
    if let Ok(b) = lines.downcast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let mut out = Vec::new();
    let items = lines
        .try_iter()
        .map_err(|_| PyTypeError::new_err("lines: expected a str, bytes, or an iterable of str, bytes or Case"))?;
    for (i, item) in items.enumerate() {
        let item = item?;
        let owned;
        let bytes: &[u8] = if let Ok(s) = item.downcast::<PyString>() {
            owned = s.to_cow()?.into_owned().into_bytes();
            &owned
        } else if let Ok(b) = item.downcast::<PyBytes>() {
            owned = b.as_bytes().to_vec();
            &owned
        } else if let Ok(c) = item.downcast::<Case>() {
            owned = c.borrow().line().into_bytes();
            &owned
        } else {
            let ty = item.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            return Err(PyTypeError::new_err(format!("line {}: expected a str, bytes or Case, got {ty}", i + 1)));
        };
        let line = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.contains(&b'\n') {
            return Err(PyValueError::new_err(format!(
                "line {}: holds a line break; give one case a line, or the whole text as one str",
                i + 1
            )));
        }
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Arrow.

/// The keys of a ruling's `concluded` and `definite`: per institutional relation, `name` and
/// `~name`, in declaration order, with the relation.
fn ruling_keys(schema: &Schema) -> Vec<(String, &'static RelationInfo)> {
    let mut keys = Vec::new();
    for info in schema.relations.iter().filter(|r| r.kind == RelationKind::Institutional) {
        keys.push((info.name.to_string(), info));
        keys.push((format!("~{}", info.name), info));
    }
    keys
}

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

/// The schema `rule_arrow` returns for a `case` column of type `case`.
fn output_arrow_schema(schema: &Schema, case: DataType, explain: bool) -> ArrowSchema {
    let layer: Fields =
        ruling_keys(schema).into_iter().map(|(k, info)| Field::new(k, tuple_list_type(info), false)).collect();
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

/// The address of an FFI struct, as pyarrow's `_export_to_c` and `_import_from_c` take it.
fn addr<T>(p: *mut T) -> usize {
    p as usize
}

/// The pyarrow schema of `rule_arrow`'s output: `case` (of type `case_type`, by default
/// `pyarrow.string()`), `concluded` and `definite` (a struct with a list-of-struct field per
/// institutional relation and sign), `contradictions`, `warnings`, `why_not`, `explanations`
/// (with `explain=True`) and `error`.
#[pyfunction]
#[pyo3(signature = (case_type=None, explain=false))]
fn output_schema<'py>(
    py: Python<'py>,
    case_type: Option<&Bound<'py, PyAny>>,
    explain: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let case = match case_type {
        Some(t) => import_type(t)?,
        None => DataType::Utf8,
    };
    export_schema(py, &output_arrow_schema(package()?.schema(), case, explain))
}

/// The pyarrow schema of the tables `rule_arrow` reads: `case` (of type `case_type`, by default
/// `pyarrow.string()`), per empirical and judgment relation and sign (`name`, `~name`) a list of
/// structs with a field per parameter, `why_not` (list of strings) and `as_of` (string). Every
/// column but `case` may be left out.
#[pyfunction]
#[pyo3(signature = (case_type=None))]
fn input_schema<'py>(py: Python<'py>, case_type: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    let case = match case_type {
        Some(t) => import_type(t)?,
        None => DataType::Utf8,
    };
    let schema = package()?.schema();
    let mut fields = vec![Field::new("case", case, true)];
    for info in schema.relations.iter().filter(|r| r.kind != RelationKind::Institutional) {
        fields.push(Field::new(info.name, tuple_list_type(info), true));
        fields.push(Field::new(format!("~{}", info.name), tuple_list_type(info), true));
    }
    fields.push(Field::new("why_not", DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))), true));
    fields.push(Field::new("as_of", DataType::Utf8, true));
    export_schema(py, &ArrowSchema::new(fields))
}

/// A pyarrow `DataType` as an Arrow type.
fn import_type(t: &Bound<'_, PyAny>) -> PyResult<DataType> {
    let mut ffi = Box::new(FFI_ArrowSchema::empty());
    t.call_method1("_export_to_c", (addr(&mut *ffi),))?;
    DataType::try_from(&*ffi).map_err(|e| PyValueError::new_err(format!("case_type: {e}")))
}

/// An Arrow schema as a pyarrow `Schema`.
fn export_schema<'py>(py: Python<'py>, s: &ArrowSchema) -> PyResult<Bound<'py, PyAny>> {
    let mut ffi = Box::new(FFI_ArrowSchema::try_from(s).map_err(|e| PyRuntimeError::new_err(e.to_string()))?);
    pyarrow(py)?.getattr("Schema")?.call_method1("_import_from_c", (addr(&mut *ffi),))
}

/// A pyarrow `RecordBatch` as an Arrow record batch.
fn import_batch(b: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    let mut array = Box::new(FFI_ArrowArray::empty());
    let mut schema = Box::new(FFI_ArrowSchema::empty());
    b.call_method1("_export_to_c", (addr(&mut *array), addr(&mut *schema)))?;
    // SAFETY: pyarrow has just exported a valid array and its schema into these structs.
    let data = unsafe { from_ffi(*array, &schema) }.map_err(|e| PyValueError::new_err(format!("table: {e}")))?;
    if !matches!(data.data_type(), DataType::Struct(_)) {
        return Err(PyTypeError::new_err("table: expected a pyarrow Table or RecordBatch"));
    }
    Ok(RecordBatch::from(StructArray::from(data)))
}

/// An Arrow record batch as a pyarrow `RecordBatch`.
fn export_batch<'py>(py: Python<'py>, b: RecordBatch) -> PyResult<Bound<'py, PyAny>> {
    let data = StructArray::from(b).into_data();
    let (array, schema) = to_ffi(&data).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let (mut array, mut schema) = (Box::new(array), Box::new(schema));
    pyarrow(py)?.getattr("RecordBatch")?.call_method1("_import_from_c", (addr(&mut *array), addr(&mut *schema)))
}

/// Rules the cases of an Arrow table: `table` is a `pyarrow.Table` or `RecordBatch` with a
/// column `case` (string or integer), and per empirical or judgment relation and sign a column
/// named as the case line's key (`name`, `~name`), each a list of structs whose fields are
/// named by the relation's parameters (strings for entities, integers for Integers); optional
/// `why_not` (list of strings) and `as_of` (string). Returns one row per input row, in order,
/// of schema `output_schema(case type, explain)`: a `Table` for a `Table`, a `RecordBatch` for a
/// `RecordBatch`. A row that cannot be ruled has its `error` (naming the row as `line N`).
#[pyfunction]
#[pyo3(signature = (table, grants=None, explain=false, strict_constants=false, threads=None))]
fn rule_arrow<'py>(
    py: Python<'py>,
    table: &Bound<'py, PyAny>,
    grants: Option<Vec<String>>,
    explain: bool,
    strict_constants: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let pkg = package()?;
    let schema = pkg.schema();
    let opts = run_options(schema, grants, explain, strict_constants, threads)?;
    let pa = pyarrow(py)?;
    let is_table = table.is_instance(&pa.getattr("Table")?)?;
    let batches: Vec<RecordBatch> = if is_table {
        let list = table.call_method0("to_batches")?;
        list.try_iter()?.map(|b| import_batch(&b?)).collect::<PyResult<_>>()?
    } else if table.is_instance(&pa.getattr("RecordBatch")?)? {
        vec![import_batch(table)?]
    } else {
        return Err(PyTypeError::new_err("table: expected a pyarrow Table or RecordBatch"));
    };
    let case_type = match batches.first() {
        Some(b) => case_column(b)?.data_type().clone(),
        None if is_table => {
            let field = table.getattr("schema")?.call_method1("field", ("case",))?;
            import_type(&field.getattr("type")?)?
        }
        None => DataType::Utf8,
    };
    let out_schema = Arc::new(output_arrow_schema(schema, case_type, explain));
    // Every batch's rows as case lines, ruled in one run, then split back by batch.
    let mut readers = Vec::with_capacity(batches.len());
    for b in &batches {
        readers.push(CaseColumns::of(schema, b)?);
    }
    let text = py.allow_threads(|| {
        let mut text = String::new();
        for (r, b) in readers.iter().zip(&batches) {
            for row in 0..b.num_rows() {
                r.line(row, &mut text);
            }
        }
        text
    });
    let ruled = rule_text(py, pkg, text.into_bytes(), opts)?;
    let built = py.allow_threads(|| {
        let mut lines = ruled.lines();
        let mut out = Vec::with_capacity(batches.len());
        for b in &batches {
            let rows: Vec<&str> = lines.by_ref().take(b.num_rows()).collect();
            out.push(ruling_batch(
                schema,
                &out_schema,
                case_column(b).expect("checked above").clone(),
                &rows,
                explain,
            )?);
        }
        Ok::<_, String>(out)
    });
    let built = built.map_err(PyRuntimeError::new_err)?;
    if is_table {
        let batches = built.into_iter().map(|b| export_batch(py, b)).collect::<PyResult<Vec<_>>>()?;
        let pschema = export_schema(py, &out_schema)?;
        pa.getattr("Table")?.call_method1("from_batches", (PyList::new(py, batches)?, pschema))
    } else {
        export_batch(py, built.into_iter().next().expect("one batch in, one out"))
    }
}

/// The `case` column of a batch.
fn case_column(b: &RecordBatch) -> PyResult<&ArrayRef> {
    let col = b.column_by_name("case").ok_or_else(|| PyValueError::new_err("table: no `case` column"))?;
    if !is_string(col.data_type()) && !is_integer(col.data_type()) && col.data_type() != &DataType::Null {
        return Err(PyValueError::new_err(format!(
            "table: column `case` is {}; expected strings or integers",
            col.data_type()
        )));
    }
    Ok(col)
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn is_integer(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
    )
}

/// Writes the value at `row` of a string or integer column as JSON (`null` for a null).
fn scalar_json(col: &dyn Array, row: usize, out: &mut String) {
    if col.is_null(row) {
        out.push_str("null");
        return;
    }
    use std::fmt::Write as _;
    let _ = match col.data_type() {
        DataType::Utf8 => {
            json_str(out, col.as_string::<i32>().value(row));
            Ok(())
        }
        DataType::LargeUtf8 => {
            json_str(out, col.as_string::<i64>().value(row));
            Ok(())
        }
        DataType::Utf8View => {
            json_str(out, col.as_string_view().value(row));
            Ok(())
        }
        DataType::Int8 => write!(out, "{}", col.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => write!(out, "{}", col.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => write!(out, "{}", col.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => write!(out, "{}", col.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => write!(out, "{}", col.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => write!(out, "{}", col.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => write!(out, "{}", col.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => write!(out, "{}", col.as_primitive::<arrow_array::types::UInt64Type>().value(row)),
        _ => {
            out.push_str("null");
            Ok(())
        }
    };
}

/// A list column read row by row: its offsets and its items.
enum List<'a> {
    Small(&'a arrow_array::GenericListArray<i32>),
    Large(&'a arrow_array::GenericListArray<i64>),
}

impl<'a> List<'a> {
    fn of(col: &'a ArrayRef) -> Option<List<'a>> {
        match col.data_type() {
            DataType::List(_) => Some(List::Small(col.as_list::<i32>())),
            DataType::LargeList(_) => Some(List::Large(col.as_list::<i64>())),
            _ => None,
        }
    }

    fn item_type(&self) -> &DataType {
        match self {
            List::Small(l) => l.value_type_ref(),
            List::Large(l) => l.value_type_ref(),
        }
    }

    fn values(&self) -> &'a ArrayRef {
        match self {
            List::Small(l) => l.values(),
            List::Large(l) => l.values(),
        }
    }

    /// The item range of `row`, `None` for a null list.
    fn range(&self, row: usize) -> Option<std::ops::Range<usize>> {
        match self {
            List::Small(l) if l.is_valid(row) => {
                let o = l.value_offsets();
                Some(o[row] as usize..o[row + 1] as usize)
            }
            List::Large(l) if l.is_valid(row) => {
                let o = l.value_offsets();
                Some(o[row] as usize..o[row + 1] as usize)
            }
            _ => None,
        }
    }
}

/// Trait helper: a list array's item type without cloning it.
trait ValueTypeRef {
    fn value_type_ref(&self) -> &DataType;
}

impl<O: arrow_array::OffsetSizeTrait> ValueTypeRef for arrow_array::GenericListArray<O> {
    fn value_type_ref(&self) -> &DataType {
        match self.data_type() {
            DataType::List(f) | DataType::LargeList(f) => f.data_type(),
            t => t,
        }
    }
}

/// The columns of a batch a case line is written from.
struct CaseColumns<'a> {
    case: &'a ArrayRef,
    /// Per relation column: the case line's key (JSON), its list, and its structs' fields in
    /// parameter order.
    facts: Vec<(String, List<'a>, &'a StructArray, Vec<&'a ArrayRef>)>,
    why_not: Option<(List<'a>, &'a ArrayRef)>,
    as_of: Option<&'a ArrayRef>,
}

impl<'a> CaseColumns<'a> {
    /// Checks every column of `b` against the package and the layout of docs/PYTHON.md.
    fn of(schema: &Schema, b: &'a RecordBatch) -> PyResult<CaseColumns<'a>> {
        let mut cols = CaseColumns { case: case_column(b)?, facts: Vec::new(), why_not: None, as_of: None };
        let bad = |name: &str, what: String| PyValueError::new_err(format!("table: column `{name}`: {what}"));
        for (field, col) in b.schema_ref().fields().iter().zip(b.columns()) {
            let name = field.name().as_str();
            match name {
                "case" => continue,
                "as_of" if is_string(col.data_type()) => cols.as_of = Some(col),
                "why_not" => match List::of(col) {
                    Some(l) if is_string(l.item_type()) => {
                        let values = l.values();
                        cols.why_not = Some((l, values));
                    }
                    _ => return Err(bad(name, format!("expected a list of strings, got {}", col.data_type()))),
                },
                _ => {
                    let relation = name.strip_prefix('~').unwrap_or(name);
                    let Some(info) = schema.relations.iter().find(|r| r.name == relation) else {
                        let hint = crate::suggest::did_you_mean(relation, schema.relations.iter().map(|r| r.name));
                        return Err(bad(name, format!("no relation `{relation}` in {}{hint}", schema.package)));
                    };
                    if info.kind == RelationKind::Institutional {
                        return Err(bad(name, format!("relation `{relation}` is institutional: it cannot be input")));
                    }
                    let list = List::of(col);
                    let items = list.as_ref().map(|l| l.values().as_struct_opt());
                    let (Some(list), Some(Some(items))) = (list, items) else {
                        return Err(bad(name, format!("expected a list of structs, got {}", col.data_type())));
                    };
                    let mut params = Vec::new();
                    for p in info.params {
                        let Some(c) = items.column_by_name(p.name) else {
                            return Err(bad(name, format!("the structs have no field `{}`", p.name)));
                        };
                        let fits = if p.integer { is_integer(c.data_type()) } else { is_string(c.data_type()) };
                        if !fits {
                            let want = if p.integer { "an integer type" } else { "a string type" };
                            return Err(bad(
                                name,
                                format!("field `{}` ({}) must be {want}, got {}", p.name, p.ty, c.data_type()),
                            ));
                        }
                        params.push(c);
                    }
                    if items.num_columns() != info.params.len() {
                        let names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
                        return Err(bad(name, format!("the structs must have the fields {} only", names.join(", "))));
                    }
                    let mut key = String::new();
                    json_str(&mut key, name);
                    cols.facts.push((key, list, items, params));
                }
            }
        }
        Ok(cols)
    }

    /// Writes the case line of `row`, with its line break.
    fn line(&self, row: usize, out: &mut String) {
        out.push_str("{\"case\":");
        scalar_json(self.case.as_ref(), row, out);
        out.push_str(",\"facts\":{");
        let mut first = true;
        for (key, list, items, params) in &self.facts {
            let Some(range) = list.range(row) else { continue };
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(key);
            out.push_str(":[");
            for (n, i) in range.enumerate() {
                if n > 0 {
                    out.push(',');
                }
                if items.is_null(i) {
                    out.push_str("null");
                    continue;
                }
                out.push('[');
                for (k, c) in params.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    scalar_json(c.as_ref(), i, out);
                }
                out.push(']');
            }
            out.push(']');
        }
        out.push('}');
        if let Some((list, values)) = &self.why_not {
            if let Some(range) = list.range(row) {
                out.push_str(",\"why_not\":[");
                for (n, i) in range.enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    scalar_json(values.as_ref(), i, out);
                }
                out.push(']');
            }
        }
        if let Some(as_of) = self.as_of {
            if as_of.is_valid(row) {
                out.push_str(",\"as_of\":");
                scalar_json(as_of.as_ref(), row, out);
            }
        }
        out.push_str("}\n");
    }
}

/// One relation and sign of a ruling layer being built: list offsets and a column per parameter.
struct TupleColumns {
    offsets: Vec<i32>,
    /// Tuples so far.
    len: i32,
    columns: Vec<Col>,
}

enum Col {
    Str(arrow_array::builder::StringBuilder),
    Int(Vec<i64>),
}

impl TupleColumns {
    fn new(info: &RelationInfo) -> TupleColumns {
        let columns = info
            .params
            .iter()
            .map(|p| if p.integer { Col::Int(Vec::new()) } else { Col::Str(Default::default()) })
            .collect();
        TupleColumns { offsets: vec![0], len: 0, columns }
    }

    /// Adds tuples to the row being read.
    fn add(&mut self, tuples: &[Vec<RulingArg<'_>>]) -> Result<(), String> {
        for args in tuples {
            if args.len() != self.columns.len() {
                return Err("a ruling tuple has the wrong arity".into());
            }
            for (a, c) in args.iter().zip(&mut self.columns) {
                match (c, a) {
                    (Col::Str(b), RulingArg::Str(s)) => b.append_value(s),
                    (Col::Int(v), RulingArg::Int(x)) => v.push(*x),
                    _ => return Err("a ruling argument is not of its column's type".into()),
                }
            }
            self.len += 1;
        }
        Ok(())
    }

    /// Ends the row being read.
    fn end_row(&mut self) {
        self.offsets.push(self.len);
    }

    fn finish(self, ty: &DataType) -> Result<ArrayRef, String> {
        let DataType::List(item) = ty else { return Err("not a list type".into()) };
        let DataType::Struct(fields) = item.data_type() else { return Err("not a struct type".into()) };
        let columns: Vec<ArrayRef> = self
            .columns
            .into_iter()
            .map(|c| match c {
                Col::Str(mut b) => Arc::new(b.finish()) as ArrayRef,
                Col::Int(v) => Arc::new(arrow_array::Int64Array::from(v)) as ArrayRef,
            })
            .collect();
        let len = *self.offsets.last().unwrap_or(&0) as usize;
        let items = if fields.is_empty() {
            StructArray::new_empty_fields(len, None)
        } else {
            StructArray::try_new(fields.clone(), columns, None).map_err(|e| e.to_string())?
        };
        let list = ListArray::try_new(item.clone(), OffsetBuffer::new(self.offsets.into()), Arc::new(items), None)
            .map_err(|e| e.to_string())?;
        Ok(Arc::new(list))
    }
}

/// A list of strings column being built.
#[derive(Default)]
struct Strings {
    offsets: Vec<i32>,
    values: arrow_array::builder::StringBuilder,
}

impl Strings {
    fn add(&mut self, list: &[String]) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        for s in list {
            self.values.append_value(s);
        }
        let last = *self.offsets.last().unwrap_or(&0);
        self.offsets.push(last + list.len() as i32);
    }

    fn finish(mut self, rows: usize) -> ArrayRef {
        if self.offsets.is_empty() {
            self.offsets = vec![0; rows + 1];
        }
        let item = Arc::new(Field::new("item", DataType::Utf8, false));
        Arc::new(ListArray::new(item, OffsetBuffer::new(self.offsets.into()), Arc::new(self.values.finish()), None))
    }
}

/// What `rule_arrow` reads of a ruling line (the `case` is the input's column), borrowed from
/// the line where it can be.
#[derive(serde::Deserialize)]
struct RulingLine<'a> {
    #[serde(borrow, default)]
    error: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    concluded: RulingLayer<'a>,
    #[serde(borrow, default)]
    definite: RulingLayer<'a>,
    #[serde(default)]
    contradictions: Vec<String>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(borrow, default)]
    why_not: Option<&'a RawValue>,
    #[serde(borrow, default)]
    explanations: Option<&'a RawValue>,
}

/// A ruling's `concluded` or `definite`: per key, its tuples, in the line's order.
#[derive(Default)]
struct RulingLayer<'a>(Vec<(Cow<'a, str>, Vec<Vec<RulingArg<'a>>>)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for RulingLayer<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = RulingLayer<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of relations to tuples")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                // A key read as an argument is: borrowed unless it has escapes.
                while let Some(k) = m.next_key::<RulingArg<'a>>()? {
                    let RulingArg::Str(k) = k else {
                        return Err(serde::de::Error::custom("a ruling key is not a string"));
                    };
                    out.push((k, m.next_value()?));
                }
                Ok(RulingLayer(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// An argument of a ruling tuple: an entity name or an Integer.
enum RulingArg<'a> {
    Str(Cow<'a, str>),
    Int(i64),
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for RulingArg<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = RulingArg<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an entity name or an Integer")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(RulingArg::Str(Cow::Borrowed(v)))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(RulingArg::Str(Cow::Owned(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(RulingArg::Str(Cow::Owned(v.to_string())))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(RulingArg::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                i64::try_from(v).map(RulingArg::Int).map_err(|_| E::custom("an Integer out of range"))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// The record batch of ruling lines `lines` (one per row of `case`), of schema `out`.
fn ruling_batch(
    schema: &Schema,
    out: &Arc<ArrowSchema>,
    case: ArrayRef,
    lines: &[&str],
    explain: bool,
) -> Result<RecordBatch, String> {
    if lines.len() != case.len() {
        return Err(format!("{} rows were ruled into {} lines", case.len(), lines.len()));
    }
    let keys = ruling_keys(schema);
    let mut layers: [Vec<TupleColumns>; 2] = [
        keys.iter().map(|(_, i)| TupleColumns::new(i)).collect(),
        keys.iter().map(|(_, i)| TupleColumns::new(i)).collect(),
    ];
    let (mut contradictions, mut warnings) = (Strings::default(), Strings::default());
    let mut why_not = arrow_array::builder::StringBuilder::new();
    let mut explanations = arrow_array::builder::StringBuilder::new();
    let mut error = arrow_array::builder::StringBuilder::new();
    let mut valid = Vec::with_capacity(lines.len());
    let index: std::collections::HashMap<&str, usize> =
        keys.iter().enumerate().map(|(i, (k, _))| (k.as_str(), i)).collect();
    for line in lines {
        let r: RulingLine<'_> = serde_json::from_str(line).map_err(|e| format!("a ruling line is not read: {e}"))?;
        valid.push(r.error.is_none());
        error.append_option(r.error.as_deref());
        for (layer, found) in layers.iter_mut().zip([&r.concluded, &r.definite]) {
            for (key, tuples) in &found.0 {
                let i = *index.get(key.as_ref()).ok_or_else(|| format!("a ruling names `{key}`"))?;
                layer[i].add(tuples)?;
            }
            layer.iter_mut().for_each(TupleColumns::end_row);
        }
        contradictions.add(&r.contradictions);
        warnings.add(&r.warnings);
        why_not.append_option(r.why_not.map(RawValue::get));
        if explain {
            explanations.append_option(r.explanations.map(RawValue::get));
        }
    }
    let nulls = NullBuffer::from(valid);
    let mut columns: Vec<ArrayRef> = vec![case];
    for (layer, field) in layers.into_iter().zip(["concluded", "definite"]) {
        let DataType::Struct(fields) = out.field_with_name(field).map_err(|e| e.to_string())?.data_type() else {
            return Err("not a struct".into());
        };
        let arrays = layer
            .into_iter()
            .zip(fields.iter())
            .map(|(cols, f)| cols.finish(f.data_type()))
            .collect::<Result<Vec<_>, _>>()?;
        let layer = if fields.is_empty() {
            StructArray::new_empty_fields(lines.len(), Some(nulls.clone()))
        } else {
            StructArray::try_new(fields.clone(), arrays, Some(nulls.clone())).map_err(|e| e.to_string())?
        };
        columns.push(Arc::new(layer));
    }
    columns.push(contradictions.finish(lines.len()));
    columns.push(warnings.finish(lines.len()));
    columns.push(Arc::new(why_not.finish()));
    if explain {
        columns.push(Arc::new(explanations.finish()));
    }
    columns.push(Arc::new(error.finish()) as ArrayRef);
    RecordBatch::try_new(out.clone(), columns).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------------
// The typed case builder.

/// An entity of one of the package's types (`Case().game("g1")`), as a fact's argument.
#[pyclass(frozen, module = "clir")]
struct Entity {
    ty: &'static str,
    name: String,
}

#[pymethods]
impl Entity {
    /// The entity's type.
    #[getter]
    fn r#type(&self) -> &'static str {
        self.ty
    }

    /// The entity's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __repr__(&self) -> String {
        format!("{}({:?})", self.ty, self.name)
    }

    fn __str__(&self) -> &str {
        &self.name
    }
}

/// A case built fact by fact, checked against the package's relations and types as it is built:
/// `Case("c1").checkmate_delivered(g, w)` (one method per empirical and judgment relation, and
/// `not_` + its name for the strong negation; entities from `case.game("g1")`, one method per
/// entity type, or plain strings; Integers as `int`), `why_not(literal)`, `as_of(date)`. `rule`
/// takes `Case`s among its lines; `line()` is the case line.
#[pyclass(module = "clir")]
struct Case {
    case: Value,
    /// Per key of `facts`, in first use: its tuples.
    facts: Vec<(String, Vec<Value>)>,
    why_not: Vec<String>,
    as_of: Option<String>,
}

/// A method of a [`Case`] found by name: a relation (or its negation) or an entity type.
#[pyclass(frozen, module = "clir")]
struct Method {
    case: Py<Case>,
    name: String,
    target: Target,
}

enum Target {
    Relation(usize, bool),
    Type(&'static str),
}

/// The entity types of a package: every non-Integer parameter type and constant type.
fn entity_types(schema: &Schema) -> Vec<&'static str> {
    let mut types: Vec<&'static str> = Vec::new();
    let params = schema.relations.iter().flat_map(|r| r.params.iter()).filter(|p| !p.integer).map(|p| p.ty);
    for t in params.chain(schema.constants.iter().map(|c| c.ty)) {
        if !types.contains(&t) {
            types.push(t);
        }
    }
    types
}

#[pymethods]
impl Case {
    /// A new case named `case` (a string or an integer).
    #[new]
    fn new(case: &Bound<'_, PyAny>) -> PyResult<Case> {
        let case = if case.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err("case: expected a str or an int, got bool"));
        } else if let Ok(s) = case.extract::<String>() {
            Value::String(s)
        } else if let Ok(i) = case.extract::<i64>() {
            Value::from(i)
        } else {
            return Err(PyTypeError::new_err("case: expected a str or an int"));
        };
        Ok(Case { case, facts: Vec::new(), why_not: Vec::new(), as_of: None })
    }

    /// Asks why `literal` (`name(a,b)`) is or is not concluded; returns the case.
    fn why_not(slf: Bound<'_, Self>, literal: String) -> Bound<'_, Self> {
        slf.borrow_mut().why_not.push(literal);
        slf
    }

    /// Rules the case as of `date` (`YYYY-MM-DD`); returns the case.
    fn as_of(slf: Bound<'_, Self>, date: String) -> PyResult<Bound<'_, Self>> {
        if !crate::jsonl::is_iso_date(&date) {
            return Err(PyValueError::new_err(format!("as_of: a date written YYYY-MM-DD, got `{date}`")));
        }
        slf.borrow_mut().as_of = Some(date);
        Ok(slf)
    }

    /// The case line (JSON).
    fn line(&self) -> String {
        let mut facts = serde_json::Map::new();
        for (k, tuples) in &self.facts {
            facts.insert(k.clone(), Value::Array(tuples.clone()));
        }
        let mut line = serde_json::Map::new();
        line.insert("case".into(), self.case.clone());
        line.insert("facts".into(), Value::Object(facts));
        if !self.why_not.is_empty() {
            line.insert("why_not".into(), Value::from(self.why_not.clone()));
        }
        if let Some(d) = &self.as_of {
            line.insert("as_of".into(), Value::from(d.clone()));
        }
        Value::Object(line).to_string()
    }

    fn __repr__(&self) -> String {
        format!("Case({})", self.line())
    }

    /// A relation's method (`name`, `not_name`) or an entity type's (`game`).
    fn __getattr__(slf: Bound<'_, Self>, name: String) -> PyResult<Method> {
        let schema = package()?.schema();
        let input =
            |n: &str| schema.relations.iter().position(|r| r.name == n && r.kind != RelationKind::Institutional);
        let target = if let Some(rel) = input(&name) {
            Target::Relation(rel, false)
        } else if let Some(rel) = name.strip_prefix("not_").and_then(input) {
            Target::Relation(rel, true)
        } else if let Some(t) = entity_types(schema).into_iter().find(|t| crate::schema::type_method(t) == name) {
            Target::Type(t)
        } else {
            let mut names: Vec<String> = Vec::new();
            for r in schema.relations.iter().filter(|r| r.kind != RelationKind::Institutional) {
                names.push(r.name.to_string());
                names.push(format!("not_{}", r.name));
            }
            names.extend(entity_types(schema).into_iter().map(crate::schema::type_method));
            let hint = crate::suggest::did_you_mean(&name, names.iter().map(String::as_str));
            return Err(PyAttributeError::new_err(format!(
                "Case has no method `{name}`{hint}: {} has no such input relation or entity type",
                schema.package
            )));
        };
        Ok(Method { case: slf.unbind(), name, target })
    }
}

#[pymethods]
impl Method {
    /// Adds the fact (returning the case) or makes the entity (returning it).
    #[pyo3(signature = (*args))]
    fn __call__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
        let schema = package()?.schema();
        match self.target {
            Target::Type(ty) => {
                let name: String = match args.len() {
                    1 => args.get_item(0)?.extract().map_err(|_| {
                        PyTypeError::new_err(format!("{}(name): the name of a {ty} is a str", self.name))
                    })?,
                    n => return Err(PyTypeError::new_err(format!("{}(name) takes 1 argument, got {n}", self.name))),
                };
                Ok(Entity { ty, name }.into_pyobject(py)?.into_any().unbind())
            }
            Target::Relation(rel, negative) => {
                let info = &schema.relations[rel];
                if args.len() != info.params.len() {
                    let sig: Vec<String> = info.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect();
                    return Err(PyTypeError::new_err(format!(
                        "{}({}) takes {} arguments, got {}",
                        self.name,
                        sig.join(", "),
                        info.params.len(),
                        args.len()
                    )));
                }
                let mut tuple = Vec::with_capacity(args.len());
                for (a, p) in args.iter().zip(info.params) {
                    let wrong = |got: String| {
                        PyTypeError::new_err(format!("{}: argument `{}` is {}, got {got}", self.name, p.name, what(p)))
                    };
                    if p.integer {
                        if a.is_instance_of::<PyBool>() {
                            return Err(wrong("bool".into()));
                        }
                        tuple.push(Value::from(a.extract::<i64>().map_err(|_| wrong(type_name(&a)))?));
                    } else if let Ok(e) = a.downcast::<Entity>() {
                        let e = e.get();
                        if e.ty != p.ty {
                            return Err(wrong(format!("a {} ({:?})", e.ty, e.name)));
                        }
                        tuple.push(Value::from(e.name.clone()));
                    } else if let Ok(s) = a.downcast::<PyString>() {
                        tuple.push(Value::from(s.to_cow()?.into_owned()));
                    } else {
                        return Err(wrong(type_name(&a)));
                    }
                }
                let key = if negative { format!("~{}", info.name) } else { info.name.to_string() };
                let case = self.case.bind(py);
                {
                    let mut c = case.borrow_mut();
                    match c.facts.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, tuples)) => tuples.push(Value::Array(tuple)),
                        None => c.facts.push((key, vec![Value::Array(tuple)])),
                    }
                }
                Ok(case.clone().into_any().unbind())
            }
        }
    }
}

/// What an argument of parameter `p` must be, for messages.
fn what(p: &crate::schema::ParamInfo) -> String {
    if p.integer {
        "an Integer (int)".into()
    } else {
        format!("a {} (an entity of that type, or a str)", p.ty)
    }
}

/// The Python type name of `a`.
fn type_name(a: &Bound<'_, PyAny>) -> String {
    a.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}
