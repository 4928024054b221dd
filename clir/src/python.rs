//! A compiled package as a Python extension module (feature `python`): what `clir wheel`
//! builds around the generated module, for any package, driven by its [`Schema`] alone.
//!
//! The module offers `rule(lines)` (JSON Lines in, `clir rule`'s ruling lines out),
//! `rule_arrow(table)` (a pyarrow `Table` or `RecordBatch` in, one out, schema
//! `output_schema()`), a typed case builder `Case`, and `__seal__`; docs/PYTHON.md documents
//! them. Both paths read cases and write rulings with the JSON Lines reader and writer of
//! [`crate::jsonl`] through [`crate::runner::rule_stream`], so a ruling through Python or Arrow
//! is `clir rule`'s by construction; the GIL is released while cases are read and ruled.

use crate::jsonl::Options;
use crate::runner::{rule_stream, RunOptions, MAX_THREADS};
use crate::schema::{RelationKind, Schema};
use crate::Package;
use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Schema as ArrowSchema};
use pyo3::exceptions::{PyAttributeError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyIterator, PyList, PyString, PyTuple};
use serde_json::Value;
use std::sync::OnceLock;

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

/// The address of an FFI struct, as pyarrow's `_export_to_c` and `_import_from_c` take it.
fn addr<T>(p: *mut T) -> usize {
    p as usize
}

/// The pyarrow schema of `rule_arrow`'s output: `case` (of type `case_type`, by default
/// `pyarrow.string()`), `concluded` and `definite` (a struct with a list-of-struct field per
/// institutional relation and sign), `contradictions`, `warnings`, `why_not`, `explanations`
/// (with `explain=True`) and `error`.
/// With `flat=True`, the flat layout instead: per case a row of its own (`relation` null: its
/// `contradictions`, `warnings`, `error`), then a row per concluded tuple (`relation`,
/// `definite`, arguments `e0..`/`n0..`).
#[pyfunction]
#[pyo3(signature = (case_type=None, explain=false, flat=false))]
fn output_schema<'py>(
    py: Python<'py>,
    case_type: Option<&Bound<'py, PyAny>>,
    explain: bool,
    flat: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let case = match case_type {
        Some(t) => import_type(t)?,
        None => DataType::Utf8,
    };
    let schema = package()?.schema();
    if flat {
        if explain {
            return Err(PyValueError::new_err("explain: the flat layout has no explanations; use the nested one"));
        }
        return export_schema(py, &crate::arrow::flat_output_schema(schema, flat_case(case)));
    }
    export_schema(py, &crate::arrow::output_schema(schema, case, explain))
}

/// The `case` type of the flat output for a `case` of type `t` (strings as `string`, integers
/// as `int64`).
fn flat_case(t: DataType) -> DataType {
    if t.is_integer() {
        DataType::Int64
    } else if t == DataType::Null {
        t
    } else {
        DataType::Utf8
    }
}

/// The pyarrow schema of the tables `rule_arrow` reads: `case` (of type `case_type`, by default
/// `pyarrow.string()`), per empirical and judgment relation and sign (`name`, `~name`) a list of
/// structs with a field per parameter, `why_not` (list of strings) and `as_of` (string). Every
/// column but `case` may be left out.
/// With `flat=True`, the flat layout instead: one row a fact, `case`, `relation` (`name`,
/// `~name`), and per argument position `j` `e{j}` (an entity) and `n{j}` (an Integer); a case's
/// rows consecutive.
#[pyfunction]
#[pyo3(signature = (case_type=None, flat=false))]
fn input_schema<'py>(
    py: Python<'py>,
    case_type: Option<&Bound<'py, PyAny>>,
    flat: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let case = match case_type {
        Some(t) => import_type(t)?,
        None => DataType::Utf8,
    };
    let schema = package()?.schema();
    if flat {
        return export_schema(py, &crate::arrow::flat_input_schema(schema, case));
    }
    export_schema(py, &crate::arrow::input_schema(schema, case))
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

/// A pyarrow `RecordBatch` as an Arrow record batch, its buffers shared (no copy) and checked
/// (offsets in bounds, strings UTF-8) before anything reads them.
fn import_batch(b: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    let mut array = Box::new(FFI_ArrowArray::empty());
    let mut schema = Box::new(FFI_ArrowSchema::empty());
    b.call_method1("_export_to_c", (addr(&mut *array), addr(&mut *schema)))?;
    // SAFETY: pyarrow has just exported a valid array and its schema into these structs.
    let data = unsafe { from_ffi(*array, &schema) }.map_err(|e| PyValueError::new_err(format!("table: {e}")))?;
    checked(&data).map_err(|e| PyValueError::new_err(format!("table: not valid Arrow data: {e}")))?;
    if !matches!(data.data_type(), DataType::Struct(_)) {
        return Err(PyTypeError::new_err("table: expected a pyarrow Table or RecordBatch"));
    }
    Ok(RecordBatch::from(StructArray::from(data)))
}

/// Checks `data` and its children as `validate_full` does (buffers, offsets in bounds, UTF-8,
/// dictionary keys), except that a null where the schema says a field is not nullable is left
/// to the reader, which gives its row an error as a `null` in a case line gets.
fn checked(data: &arrow_data::ArrayData) -> Result<(), arrow_schema::ArrowError> {
    data.validate()?;
    let quick = match data.data_type() {
        DataType::Utf8 => offsets_checked::<i32>(data, true),
        DataType::LargeUtf8 => offsets_checked::<i64>(data, true),
        DataType::List(_) => offsets_checked::<i32>(data, false),
        DataType::LargeList(_) => offsets_checked::<i64>(data, false),
        _ => false,
    };
    // What the quick check does not vouch for (another type, or a buffer it cannot read as
    // offsets) is checked by Arrow's own, which also says what is wrong.
    if !quick {
        data.validate_values()?;
    }
    data.child_data().iter().try_for_each(checked)
}

/// Whether the offsets of `data` (a string array when `utf8`, else a list array whose `validate`
/// passed) are all in bounds and never decreasing, and, for strings, the values are UTF-8 cut at
/// character boundaries: `validate_values`' checks, in one pass over the offsets and one over
/// the bytes (that check's iterator costs more than the rest of reading a batch). `false`
/// when any is not so, or the offsets cannot be read as such here: the caller then runs
/// `validate_values`.
fn offsets_checked<O: arrow_buffer::ArrowNativeType + TryInto<usize>>(
    data: &arrow_data::ArrayData,
    utf8: bool,
) -> bool {
    let limit = if utf8 {
        match data.buffers().get(1) {
            Some(b) => b.len(),
            None => return false,
        }
    } else {
        match data.child_data().first() {
            Some(c) => c.len(),
            None => return false,
        }
    };
    let Some(buffer) = data.buffers().first() else { return false };
    if data.is_empty() && buffer.is_empty() {
        return true;
    }
    // SAFETY: any bit pattern is a valid integer of these types; misaligned parts are refused.
    let (head, all, _) = unsafe { buffer.as_slice().align_to::<O>() };
    if !head.is_empty() {
        return false;
    }
    let Some(offsets) = all.get(data.offset()..data.offset() + data.len() + 1) else { return false };
    // In bounds and never decreasing: the first at least 0, each at least the one before, the
    // last at most `limit` (a loop the compiler vectorizes).
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else { return false };
    let (Ok(first), Ok(last)): (Result<usize, _>, Result<usize, _>) = ((*first).try_into(), (*last).try_into()) else {
        return false;
    };
    let decreasing = offsets.windows(2).fold(false, |bad, w| bad | (w[1] < w[0]));
    if decreasing || last > limit {
        return false;
    }
    if !utf8 {
        return true;
    }
    let values = &data.buffers()[1].as_slice()[..limit];
    // Every position of ASCII text is a character boundary; other text is checked whole, then
    // each offset (its `try_into` cannot fail: between `first` and `last`).
    if values[first..last].is_ascii() {
        return true;
    }
    std::str::from_utf8(values).is_ok()
        && offsets.iter().all(|o| (*o).try_into().is_ok_and(|n: usize| n == values.len() || (values[n] as i8) >= -0x40))
}

/// An Arrow record batch as a pyarrow `RecordBatch`.
fn export_batch<'py>(py: Python<'py>, b: RecordBatch) -> PyResult<Bound<'py, PyAny>> {
    let data = StructArray::from(b).into_data();
    let (array, schema) = to_ffi(&data).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let (mut array, mut schema) = (Box::new(array), Box::new(schema));
    pyarrow(py)?.getattr("RecordBatch")?.call_method1("_import_from_c", (addr(&mut *array), addr(&mut *schema)))
}

/// The record batches of a pyarrow `Table` or `RecordBatch`, and whether it is a table.
fn import_table(pa: &Bound<'_, PyModule>, table: &Bound<'_, PyAny>) -> PyResult<(Vec<RecordBatch>, bool)> {
    if table.is_instance(&pa.getattr("Table")?)? {
        let list = table.call_method0("to_batches")?;
        let batches = list.try_iter()?.map(|b| import_batch(&b?)).collect::<PyResult<_>>()?;
        Ok((batches, true))
    } else if table.is_instance(&pa.getattr("RecordBatch")?)? {
        Ok((vec![import_batch(table)?], false))
    } else {
        Err(PyTypeError::new_err("table: expected a pyarrow Table or RecordBatch"))
    }
}

/// Rules the cases of an Arrow table: `table` is a `pyarrow.Table` or `RecordBatch` with a
/// column `case` (string or integer), and per empirical or judgment relation and sign a column
/// named as the case line's key (`name`, `~name`), each a list of structs whose fields are
/// named by the relation's parameters (strings for entities, integers for Integers); optional
/// `why_not` (list of strings) and `as_of` (string). Returns one row per input row, in order,
/// of schema `output_schema(case type, explain)`: a `Table` for a `Table`, a `RecordBatch` for a
/// `RecordBatch`. A row that cannot be ruled has its `error` (naming the row as `line N`). A
/// table in the flat layout (`input_schema(flat=True)`, a `relation` column of strings) gives
/// the flat output (`output_schema(flat=True)`); a case's rows must be in one batch.
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
    let (batches, is_table) = import_table(&pa, table)?;
    let threads = opts.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let flat = batches.first().is_some_and(crate::arrow::is_flat);
    if flat && explain {
        return Err(PyValueError::new_err("explain: the flat layout has no explanations; use the nested one"));
    }
    let ruled = py.allow_threads(|| match flat {
        true => crate::arrow::rule_flat(pkg, &batches, &opts.options, threads),
        false => crate::arrow::rule_batches(pkg, &batches, &opts.options, threads),
    });
    let ruled = ruled.map_err(PyValueError::new_err)?;
    let out_schema = match ruled.first() {
        Some(b) => b.schema(),
        None => {
            let case = if is_table {
                let field = table.getattr("schema")?.call_method1("field", ("case",))?;
                import_type(&field.getattr("type")?)?
            } else {
                DataType::Utf8
            };
            std::sync::Arc::new(crate::arrow::output_schema(schema, case, explain))
        }
    };
    let pschema = export_schema(py, &out_schema)?;
    let batches = ruled.into_iter().map(|b| export_batch(py, b)).collect::<PyResult<Vec<_>>>()?;
    let table_of = |batches: Vec<Bound<'py, PyAny>>| {
        pa.getattr("Table")?.call_method1("from_batches", (PyList::new(py, batches)?, &pschema))
    };
    if is_table {
        table_of(batches)
    } else if batches.len() == 1 {
        Ok(batches.into_iter().next().expect("one batch"))
    } else {
        // Ruled in pieces on several threads: one batch again.
        let combined = table_of(batches)?.call_method0("combine_chunks")?.call_method0("to_batches")?;
        match combined.len()? {
            0 => pa.getattr("RecordBatch")?.call_method1("from_pylist", (PyList::empty(py), &pschema)),
            _ => combined.get_item(0),
        }
    }
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
