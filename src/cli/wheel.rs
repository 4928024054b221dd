//! `clir wheel PACKAGE.lawir.json [--out DIR]` (or `--package NAME` of the law.toml here): the
//! package verified, compiled as `clir run` compiles it, wrapped in a PyO3 extension module
//! (`clir::python`, driven by the package's schema) and built into an abi3 wheel with maturin,
//! in the `clir run` cache (docs/PYTHON.md). With zig (`ziglang` from PyPI beside maturin, or
//! `zig` on the PATH) the wheel is manylinux2014 (glibc 2.17 and newer); without it, maturin
//! tags it for this machine's glibc, and the command says how to get the portable tag.

use super::run::{cache_root, lock_cache, private_dir, verified};
use super::{note, CANNOT_RUN};
use clap::Args;
use clir_codegen::project;
use clir_codegen::verify::Verified;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options of `clir wheel`.
#[derive(Args, Debug)]
pub struct WheelArgs {
    /// A package file, or a package's name: one of the law.toml in `--root` (verified against
    /// its pins in law.lock), else one compiled into this clir.
    #[command(flatten)]
    pub package: super::package_arg::PackageArg,
    /// The crate whose law.toml and law.lock name the package (with `--package`).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// A folder the wheel is copied into (it stays in the cache too).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The version of PyO3 the extension module is built with (the runtime's `python` feature
/// depends on the same).
const PYO3: &str = "0.23";

/// Builds the wheel; prints its path on stdout.
pub fn run(args: &WheelArgs) -> u8 {
    match wheel(args) {
        Ok(path) => match super::print_lines([path.display().to_string()]) {
            Ok(()) => super::OK,
            Err(e) => super::stdout_failed("wheel", &e),
        },
        Err(code) => code,
    }
}

/// The verified package named by `args`, and its seal.
fn package(args: &WheelArgs) -> Result<(Verified, String), u8> {
    let name = args.package.value();
    if super::package_arg::names_a_file(name) {
        return verified(std::path::Path::new(name), "wheel");
    }
    let listed = project::load(&args.root).is_ok_and(|p| p.package(name).is_some());
    if let (false, Some(blob)) = (listed, super::package_arg::blob(name)) {
        let report = clir_codegen::verify::verify_bytes(blob, &Default::default());
        return report.into_document().map(|doc| (doc, clir_codegen::canonical::seal(blob))).map_err(|e| {
            super::write_diagnostics(super::MessageFormat::Human, "error", &e, clir_codegen::Source::default());
            CANNOT_RUN
        });
    }
    let found = project::load(&args.root).and_then(|p| match p.package(name) {
        Some(spec) => project::verify_package(&p, spec).map(|v| {
            let seal = clir_codegen::canonical::seal(&v.bytes);
            (v.document, seal)
        }),
        None => Err(clir_codegen::diag::Diagnostic::new(
            "package",
            "",
            format!("package `{name}` is not listed in {}", args.root.join("law.toml").display()),
        )
        .into()),
    });
    found.map_err(|e| {
        super::write_diagnostics(super::MessageFormat::Human, "error", &e, clir_codegen::Source::default());
        note("wheel", format_args!("package {name} does not verify against law.lock; nothing was built"));
        CANNOT_RUN
    })
}

/// Whether `cmd` (its output discarded) runs and succeeds.
fn works(mut cmd: Command) -> bool {
    cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    cmd.status().is_ok_and(|s| s.success())
}

/// How to run maturin, and the Python it runs in: `maturin` on the PATH (its Python the
/// `python3` beside it, as in a venv, else `$PYTHON` or `python3`), else `$PYTHON -m maturin`.
fn maturin() -> Option<(Command, std::ffi::OsString)> {
    let python = std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into());
    let version = |mut c: Command| {
        c.arg("--version");
        works(c)
    };
    if version(Command::new("maturin")) {
        let beside = std::env::var_os("PATH")
            .and_then(|paths| std::env::split_paths(&paths).find(|d| d.join("maturin").is_file()))
            .map(|d| d.join("python3"))
            .filter(|p| p.is_file());
        return Some((Command::new("maturin"), beside.map_or(python, PathBuf::into_os_string)));
    }
    let module = || {
        let mut m = Command::new(&python);
        m.args(["-m", "maturin"]);
        m
    };
    version(module()).then(|| (module(), python.clone()))
}

/// How maturin finds zig, when it can: the `ziglang` package of PyPI in `python` (or in
/// `$CARGO_ZIGBUILD_PYTHON_PATH`, where maturin looks first), else `zig` on the PATH.
enum Zig {
    /// `python -m ziglang`: maturin is told that Python (`CARGO_ZIGBUILD_PYTHON_PATH`).
    Python(std::ffi::OsString),
    /// `zig` on the PATH.
    Bin,
}

/// zig for a manylinux2014 wheel (Linux only: maturin's `--zig` is for manylinux targets).
fn zig(python: &std::ffi::OsStr) -> Option<Zig> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let pythons = std::env::var_os("CARGO_ZIGBUILD_PYTHON_PATH").into_iter().chain([python.to_owned()]);
    for p in pythons {
        let mut c = Command::new(&p);
        c.args(["-m", "ziglang", "version"]);
        if works(c) {
            return Some(Zig::Python(p));
        }
    }
    let mut c = Command::new("zig");
    c.arg("version");
    works(c).then_some(Zig::Bin)
}

/// The oldest manylinux baseline maturin builds for with zig: glibc 2.17.
const PORTABLE: &str = "manylinux2014";

/// What the platform tag of wheel `name` (`..-cp39-abi3-PLATFORM.whl`) says about where it
/// installs, and, for a tag newer than manylinux2014 built without zig, how to get that one.
fn tag_note(name: &str, zig: bool) -> String {
    let tags = name.strip_suffix(".whl").unwrap_or(name).rsplitn(4, '-').take(3).collect::<Vec<_>>();
    let tag = tags.iter().rev().copied().collect::<Vec<_>>().join("-");
    let platform = tags.first().copied().unwrap_or_default();
    let glibc = platform
        .split('.')
        .filter_map(|t| t.strip_prefix("manylinux_2_"))
        .filter_map(|t| t.split('_').next()?.parse::<u32>().ok())
        .min();
    match glibc {
        Some(m) if m <= 17 => format!(
            "built {name}: tag {tag}, for Linux with glibc 2.{m} or newer (RHEL 8, Ubuntu 20.04, Debian 10 and later)"
        ),
        Some(m) if !zig => format!(
            "built {name}: tag {tag}, for Linux with glibc 2.{m} or newer only: zig was not found, so the \
             wheel is linked against this machine's glibc, and pip refuses it on an older one. For a \
             {PORTABLE} wheel (glibc 2.17: RHEL 8, Ubuntu 20.04), install zig where maturin is \
             (`python3 -m pip install ziglang`) and run clir wheel again"
        ),
        Some(m) => format!("built {name}: tag {tag}, for Linux with glibc 2.{m} or newer"),
        None => format!("built {name}: tag {tag}"),
    }
}

fn wheel(args: &WheelArgs) -> Result<PathBuf, u8> {
    let fail = |msg: String| {
        note("wheel", msg);
        CANNOT_RUN
    };
    let (doc, seal) = package(args)?;
    // The name and version reach the wheel's metadata, pyproject.toml and the stub: a control
    // character there (a line break starts a new metadata field) is refused, not escaped.
    check_package_text(&doc).map_err(fail)?;
    // Refused before the build: a device, a file or a link to one is no folder to copy into.
    if let Some(out) = args.out.as_ref().filter(|out| std::fs::metadata(out).is_ok_and(|m| !m.is_dir())) {
        return Err(fail(format!("--out {} is not a folder; nothing was built", out.display())));
    }
    let Some((mut maturin, python)) = maturin() else {
        return Err(fail(
            "maturin is not installed: install it with `python3 -m pip install maturin ziglang` (in a venv; \
             ziglang makes the wheel manylinux2014, for glibc 2.17 and newer), then run clir wheel again"
                .into(),
        ));
    };
    let compilation = clir_codegen::compile(&doc).map_err(|e| {
        eprint!("{}", e.render("error", clir_codegen::Source::of(&doc)));
        CANNOT_RUN
    })?;
    let source = clir_codegen::emit::emit(&compilation, &seal);
    let root = cache_root().map_err(fail)?;
    private_dir(&root).map_err(fail)?;
    let module = format!("clir_{}", clir_codegen::build::module_name(&doc.package.name));
    let hex = seal.trim_start_matches("sha256:");
    let dir = root.join(format!("wheel-{}-{}", &hex[..32], super::runtime::identity()));
    let lock = lock_cache(&root).map_err(fail)?;
    let runtime = super::runtime::install(&root)
        .map_err(|e| fail(format!("cannot write the runtime into {}: {e}", root.display())))?;
    let stubs = stubs(&compilation.program, &module, &seal);
    write_crate(&dir, &runtime, &module, &doc, &seal, &source, &stubs)
        .map_err(|e| fail(format!("cannot write {}: {e}", dir.display())))?;
    let wheels = dir.join("wheels");
    if let Ok(entries) = std::fs::read_dir(&wheels) {
        for e in entries.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "whl")) {
            let _ = std::fs::remove_file(e.path());
        }
    }
    note(
        "wheel",
        format_args!("building {module} ({} {}) in {}", doc.package.name, doc.package.version, dir.display()),
    );
    maturin.args(["build", "--release", "--quiet", "--manifest-path"]).arg(dir.join("Cargo.toml"));
    maturin.arg("--out").arg(&wheels).env("CARGO_TARGET_DIR", root.join("target"));
    let zig = zig(&python);
    match &zig {
        // glibc 2.17 whatever this machine's: zig links against that version's symbols.
        Some(how) => {
            maturin.args(["--zig", "--compatibility", PORTABLE]);
            if let Zig::Python(p) = how {
                maturin.env("CARGO_ZIGBUILD_PYTHON_PATH", p);
            }
            note("wheel", format_args!("with zig: a {PORTABLE} wheel (glibc 2.17 and newer)"));
        }
        None if cfg!(target_os = "linux") => note(
            "wheel",
            format_args!(
                "zig not found (`python -m ziglang` in {}, or `zig`): the wheel is for this machine's glibc \
                 and newer; `python3 -m pip install ziglang` beside maturin gives a {PORTABLE} wheel",
                std::path::Path::new(&python).display()
            ),
        ),
        None => {}
    }
    // stdout is the wheel's path alone (`pip install "$(clir wheel ...)"`): maturin's own
    // messages (it writes some to stdout even with `--quiet`) go to stderr.
    let status = maturin.stdout(std::io::stderr()).status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(fail(format!("maturin build failed ({s})"))),
        Err(e) => return Err(fail(format!("cannot run maturin: {e}"))),
    }
    drop(lock);
    let built = std::fs::read_dir(&wheels)
        .ok()
        .and_then(|d| d.flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "whl")))
        .ok_or_else(|| fail(format!("maturin wrote no wheel into {}", wheels.display())))?;
    let name = built.file_name().expect("a wheel has a file name").to_string_lossy();
    note("wheel", tag_note(&name, zig.is_some()));
    let Some(out) = &args.out else { return Ok(built) };
    std::fs::create_dir_all(out).map_err(|e| fail(format!("cannot create {}: {e}", out.display())))?;
    let target = out.join(built.file_name().expect("a wheel has a file name"));
    let bytes = std::fs::read(&built).map_err(|e| fail(format!("cannot read {}: {e}", built.display())))?;
    clir::outfile::write_atomically(&target, &bytes)
        .map_err(|e| fail(format!("cannot write {}: {e}", target.display())))?;
    Ok(target)
}

/// The crate of the extension module: the generated module, a `#[pymodule]` calling
/// `clir::python::module`, its pyproject.toml (the seal in the wheel's `Summary`) and stubs.
fn write_crate(
    dir: &Path,
    runtime: &Path,
    module: &str,
    doc: &Verified,
    seal: &str,
    source: &str,
    stubs: &str,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    let clir = runtime.join("clir");
    let name = &doc.package.name;
    let version = &doc.package.version;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{module}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
             [lib]\nname = \"{module}\"\ncrate-type = [\"cdylib\"]\n\n\
             [dependencies]\nclir = {{ path = {:?}, features = [\"python\"] }}\n\
             pyo3 = {{ version = \"{PYO3}\", features = [\"extension-module\", \"abi3-py39\"] }}\n\n\
             [workspace]\n\n[profile.release]\ncodegen-units = 16\n",
            clir.display().to_string()
        ),
    )?;
    if !dir.join("Cargo.lock").exists() {
        std::fs::write(dir.join("Cargo.lock"), super::runtime::lockfile())?;
    }
    let summary = format!("{name} {version} (seal {seal}), compiled to native code by clir");
    std::fs::write(
        dir.join("pyproject.toml"),
        format!(
            "[build-system]\nrequires = [\"maturin>=1.0,<2.0\"]\nbuild-backend = \"maturin\"\n\n\
             [project]\nname = \"{module}\"\nversion = {}\ndescription = {}\nrequires-python = \">=3.9\"\n\
             keywords = [\"clir\", \"law\", {}]\n\n\
             [project.optional-dependencies]\narrow = [\"pyarrow>=14\"]\n\n\
             [tool.maturin]\nmodule-name = \"{module}\"\n",
            toml_str(version),
            toml_str(&summary),
            toml_str(&format!("seal:{seal}"))
        ),
    )?;
    std::fs::write(dir.join("src").join("package.rs"), source)?;
    std::fs::write(
        dir.join("src").join("lib.rs"),
        format!(
            "//! {name} {version} as a Python extension module, built by `clir wheel`.\n\
             #[allow(dead_code)]\nmod package;\n\n\
             /// The module: `clir::python` driven by the package's schema.\n\
             #[pyo3::pymodule]\nfn {module}(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {{\n    \
             clir::python::module(m, &package::Package)\n}}\n",
            name = clir_codegen::text::comment_text(name),
            version = clir_codegen::text::comment_text(version),
        ),
    )?;
    std::fs::write(dir.join(format!("{module}.pyi")), stubs)
}

/// Refuses a package whose name, version or namespace holds a control character (a line
/// break, ESC, NUL, ...), naming the field and the character.
fn check_package_text(doc: &Verified) -> Result<(), String> {
    let p = &doc.package;
    for (field, value) in
        [("package.name", &p.name), ("package.version", &p.version), ("package.namespace", &p.namespace)]
    {
        if let Some(c) = value.chars().find(|c| c.is_control()) {
            return Err(format!(
                "{field} {value:?} holds the control character U+{:04X}: a wheel's name, version and \
                 metadata cannot carry it; nothing was built",
                c as u32
            ));
        }
    }
    Ok(())
}

/// `s` inside a Python `"""` docstring: backslashes and quotes escaped, and every control
/// character (a line break, a NUL, which Python source cannot hold) written as an escape.
fn docstring(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}') => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Python's keywords and the names the stubs cannot give a method (`why_not`, `as_of`, `line`
/// are the case builder's own).
fn is_identifier(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
        "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "why_not", "as_of", "line",
    ];
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// The type stubs (`.pyi`) of the module: the functions, and the case builder's methods for
/// this package's input relations and entity types.
fn stubs(p: &clir_codegen::resolve::Program, module: &str, seal: &str) -> String {
    use clir_codegen::ir::RelationKind;
    use clir_codegen::resolve::Ty;
    let doc = docstring;
    let mut out = format!(
        "\"\"\"{} {} (seal {seal}), compiled to native code by clir: the module `{module}`.\"\"\"\n\n\
         from typing import Iterable, Iterator, List, Optional, Union\n\nimport pyarrow\n\n\
         __seal__: str\n__law__: str\n__version__: str\ncapabilities: List[str]\n\n\
         class Entity:\n    \"\"\"An entity of one of the package's types, made by the case builder.\"\"\"\n\n    \
         @property\n    def type(self) -> str: ...\n    @property\n    def name(self) -> str: ...\n\n\
         class Case:\n    \"\"\"A case built fact by fact, checked against the package as it is built.\"\"\"\n\n    \
         def __init__(self, case: Union[str, int]) -> None: ...\n    \
         def why_not(self, literal: str) -> \"Case\": ...\n    \
         def as_of(self, date: str) -> \"Case\": ...\n    \
         def line(self) -> str: ...\n",
        doc(&p.name),
        doc(&p.version)
    );
    let mut types: Vec<&str> = Vec::new();
    for t in p.relations.iter().flat_map(|r| r.params.iter()).filter_map(|(_, t)| match t {
        Ty::Integer => None,
        t => Some(p.type_name(*t)),
    }) {
        if !types.contains(&t) {
            types.push(t);
        }
    }
    for c in &p.constants {
        let t = p.types[c.ty].name.as_str();
        if !types.contains(&t) {
            types.push(t);
        }
    }
    for t in types {
        let m = clir::schema::type_method(t);
        if is_identifier(&m) {
            out.push_str(&format!(
                "    def {m}(self, name: str) -> Entity:\n        \"\"\"An entity of type {}.\"\"\"\n        ...\n",
                doc(t)
            ));
        }
    }
    for r in p.relations.iter().filter(|r| r.kind != RelationKind::Institutional) {
        let params: Vec<String> = r
            .params
            .iter()
            .enumerate()
            .map(|(i, (n, t))| {
                let ty = if *t == Ty::Integer { "int" } else { "Union[Entity, str]" };
                if is_identifier(n) {
                    format!("{n}: {ty}")
                } else {
                    format!("_{i}: {ty}")
                }
            })
            .collect();
        let sig: Vec<String> = r.params.iter().map(|(n, t)| format!("{n}: {}", p.type_name(*t))).collect();
        let grant = r.capability.as_ref().map_or(String::new(), |c| format!(" (a judgment: rule with grants=[{c:?}])"));
        for (method, what) in [(r.name.clone(), "Adds the fact"), (format!("not_{}", r.name), "Adds the negative fact")]
        {
            if is_identifier(&method) {
                out.push_str(&format!(
                    "    def {method}(self, {}) -> \"Case\":\n        \"\"\"{what} {}({}){}.\"\"\"\n        ...\n",
                    params.join(", "),
                    doc(&r.name),
                    doc(&sig.join(", ")),
                    doc(&grant)
                ));
            }
        }
    }
    out.push_str(
        "\ndef rule(\n    lines: Union[str, bytes, Iterable[Union[str, bytes, Case]]],\n    grants: Optional[List[str]] = None,\n    \
         explain: bool = False,\n    strict_constants: bool = False,\n    threads: Optional[int] = None,\n    \
         raise_errors: bool = False,\n) -> Iterator[str]:\n    \"\"\"Rules JSON Lines: one ruling line a case, exactly `clir rule`'s.\"\"\"\n    ...\n\n\
         def rule_arrow(\n    table: Union[pyarrow.Table, pyarrow.RecordBatch],\n    grants: Optional[List[str]] = None,\n    \
         explain: bool = False,\n    strict_constants: bool = False,\n    threads: Optional[int] = None,\n\
         ) -> Union[pyarrow.Table, pyarrow.RecordBatch]:\n    \"\"\"Rules the rows of an Arrow table; schema: output_schema().\"\"\"\n    ...\n\n\
         def input_schema(case_type: Optional[pyarrow.DataType] = None) -> pyarrow.Schema:\n    \
         \"\"\"The schema of the tables rule_arrow reads (every column but `case` optional).\"\"\"\n    ...\n\n\
         def output_schema(case_type: Optional[pyarrow.DataType] = None, explain: bool = False) -> pyarrow.Schema:\n    \
         \"\"\"The schema rule_arrow returns.\"\"\"\n    ...\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::{docstring, tag_note};

    #[test]
    fn the_tag_note_says_where_the_wheel_installs_and_how_to_get_the_portable_tag() {
        let portable = "clir_x-0.1.0-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
        let note = tag_note(portable, true);
        assert!(note.contains("tag cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64"), "{note}");
        assert!(note.contains("glibc 2.17 or newer (RHEL 8"), "{note}");
        let native = tag_note("clir_x-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl", false);
        assert!(native.contains("tag cp39-abi3-manylinux_2_34_x86_64"), "{native}");
        assert!(native.contains("glibc 2.34 or newer only") && native.contains("pip install ziglang"), "{native}");
        assert_eq!(
            tag_note("clir_x-0.1.0-cp39-abi3-macosx_11_0_arm64.whl", false),
            "built clir_x-0.1.0-cp39-abi3-macosx_11_0_arm64.whl: tag cp39-abi3-macosx_11_0_arm64"
        );
    }

    #[test]
    fn a_docstring_holds_no_control_character_and_cannot_be_closed() {
        let hostile = "a\nb\r\u{0}\u{1b}[2J\u{85}\u{2028}\"\"\"; import os\\";
        let text = docstring(hostile);
        assert!(!text.chars().any(|c| c.is_control() || c == '\u{2028}'), "{text:?}");
        assert!(!text.contains("\"\"\""), "{text}");
        assert_eq!(text, "a\\u000ab\\u000d\\u0000\\u001b[2J\\u0085\\u2028\\\"\\\"\\\"; import os\\\\");
    }
}
