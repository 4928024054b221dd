"""Compiles every distinct package of the suite once, into one crate (one module per package and
a dispatcher binary), builds it with one `cargo build`, and rules every case with it.

The crate is cached by a hash of the set of package seals and of the compiler's sources, under
`$CLIR_CONFORMANCE_DIR` (default `<repo>/target/conformance`)."""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def work_dir() -> Path:
    return Path(os.environ.get("CLIR_CONFORMANCE_DIR", REPO / "target" / "conformance"))


def log(msg: str) -> None:
    print(f"[clir-conformance] {msg}", file=sys.stderr, flush=True)


def clir_binary() -> Path:
    """The `clir` command of this checkout (the debug build `cargo test` already made)."""
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    subprocess.run(["cargo", "build", "-q", "--bin", "clir"], cwd=REPO, check=True)
    return target / "debug" / "clir"


def compiler_hash() -> str:
    h = hashlib.sha256()
    for d in ("clir-codegen/src", "clir/src", "src"):
        for p in sorted((REPO / d).rglob("*.rs")):
            h.update(p.relative_to(REPO).as_posix().encode())
            h.update(p.read_bytes())
    h.update((REPO / "Cargo.lock").read_bytes())
    return h.hexdigest()


CODE = re.compile(r"error\[([a-z_]+)\]")


def compile_all(packages: dict[str, bytes]) -> tuple[Path | None, dict[str, int], dict[str, tuple[str, str]]]:
    """Compiles every package; returns the dispatcher binary, the module index of each compiled
    seal, and for each rejected seal its (category, message)."""
    seals = sorted(packages)
    key = hashlib.sha256(("\n".join(seals) + compiler_hash()).encode()).hexdigest()[:20]
    root = work_dir() / key
    pkg_dir = root / "packages"
    src = root / "src"
    pkg_dir.mkdir(parents=True, exist_ok=True)
    src.mkdir(parents=True, exist_ok=True)
    rejected_file = root / "rejected.json"
    index: dict[str, int] = {}
    rejected: dict[str, tuple[str, str]] = {}
    done = (root / "built").exists()
    if done:
        state = json.loads(rejected_file.read_text())
        index = state["index"]
        rejected = {k: tuple(v) for k, v in state["rejected"].items()}
    else:
        clir = clir_binary()
        t0 = time.time()

        def one(i_seal: tuple[int, str]) -> tuple[str, int, str]:
            i, seal = i_seal
            hexs = seal.split(":")[1]
            f = pkg_dir / f"{hexs}.lawir.json"
            f.write_bytes(packages[seal])
            out = src / f"p{i}.rs"
            r = subprocess.run([str(clir), "compile", "--no-explanations", str(f), "-o", str(out)], capture_output=True, text=True, cwd=root)
            return seal, r.returncode, r.stdout + r.stderr

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            results = list(ex.map(one, enumerate(seals)))
        for seal, rc, text in results:
            if rc == 0:
                index[seal] = seals.index(seal)
            else:
                m = CODE.search(text)
                code = m.group(1) if m else ("arity_mismatch" if re.search(r"takes \d+ arguments", text) else "rejected")
                rejected[seal] = (code, text.strip())
        log(f"compiled {len(index)} packages ({len(rejected)} rejected) in {time.time() - t0:.1f}s")
        groups = int(os.environ.get("CLIR_CONFORMANCE_CRATES", "4"))
        members = []
        for g in range(groups):
            mine = sorted(i for i in index.values() if i % groups == g)
            gsrc = root / f"s{g}" / "src"
            gsrc.mkdir(parents=True, exist_ok=True)
            for i in mine:
                (gsrc / f"p{i}.rs").write_bytes((src / f"p{i}.rs").read_bytes())
            mods = "\n".join(f'#[path = "p{i}.rs"]\nmod p{i};' for i in mine)
            arms = "\n".join(f'        "{i}" => &p{i}::Package,' for i in mine)
            (gsrc / "main.rs").write_text(
                "//! Packages of the conformance suite, compiled by `clir compile`; the first argument\n"
                "//! picks the package, then the input and output JSON Lines files.\n"
                "#![allow(dead_code)]\n"
                f"{mods}\n\n"
                "fn main() -> std::process::ExitCode {\n"
                "    let args: Vec<String> = std::env::args().collect();\n"
                "    let pkg: &dyn clir::Package = match args[1].as_str() {\n"
                f"{arms}\n"
                '        other => panic!("no package {other}"),\n'
                "    };\n"
                "    let rule = clir::command::RuleArgs {\n"
                "        input: Some(args[2].clone().into()),\n"
                "        output: Some(args[3].clone().into()),\n"
                "        threads: Some(1),\n"
                "        batch: 512,\n"
                "        ..Default::default()\n"
                "    };\n"
                "    std::process::ExitCode::from(clir::command::rule(pkg, &rule))\n"
                "}\n"
            )
            (root / f"s{g}" / "Cargo.toml").write_text(
                f'[package]\nname = "clir-conformance-s{g}"\nversion = "0.1.0"\nedition = "2021"\npublish = false\n\n'
                f"[dependencies]\nclir = {{ path = {json.dumps(str(REPO / 'clir'))}, features = [\"command\"] }}\n"
            )
            members.append(f'"s{g}"')
        (root / "Cargo.toml").write_text(
            f"[workspace]\nmembers = [{', '.join(members)}]\nresolver = \"2\"\n\n"
            "[profile.release]\nopt-level = 1\ndebug = 0\ncodegen-units = 64\nincremental = false\n"
        )
        t0 = time.time()
        log(f"building the dispatcher crate in {root}")
        subprocess.run(
            ["cargo", "build", "--release", "-q", "--workspace", "--manifest-path", str(root / "Cargo.toml")],
            check=True,
            env={**os.environ, "CARGO_TARGET_DIR": str(work_dir() / "target")},
        )
        log(f"built in {time.time() - t0:.1f}s")
        rejected_file.write_text(json.dumps({"index": index, "rejected": rejected}))
        (root / "built").write_text("")
    # The binaries are shared by every set; keep a copy per set.
    groups = int(os.environ.get("CLIR_CONFORMANCE_CRATES", "4"))
    for g in range(groups):
        own = root / f"clir-conformance-s{g}"
        if not own.exists() or not done:
            own.write_bytes((work_dir() / "target" / "release" / f"clir-conformance-s{g}").read_bytes())
            own.chmod(0o755)
    own = root / "clir-conformance-s0"
    return own, index, rejected


def rule_all(binary: Path, index: dict[str, int], cases: dict[str, list[str]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Rules every case line of every compiled package; returns the ruling per (seal, line)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    root = binary.parent / "runs"
    root.mkdir(exist_ok=True)

    def one(seal: str) -> list[tuple[tuple[str, str], dict[str, Any]]]:
        lines = sorted(set(cases[seal]))
        i = index[seal]
        fin = root / f"p{i}.in.jsonl"
        fout = root / f"p{i}.out.jsonl"
        fin.write_text("".join(l + "\n" for l in lines))
        groups = int(os.environ.get("CLIR_CONFORMANCE_CRATES", "4"))
        exe = binary.parent / f"clir-conformance-s{i % groups}"
        subprocess.run([str(exe), str(i), str(fin), str(fout)], capture_output=True)
        rulings = [json.loads(l) for l in fout.read_text().splitlines() if l.strip()]
        return [((seal, l), r) for l, r in zip(lines, rulings)]

    t0 = time.time()
    seals = [s for s in cases if s in index]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        for res in ex.map(one, seals):
            out.update(res)
    log(f"ruled {sum(len(set(cases[s])) for s in seals)} cases with {len(seals)} packages in {time.time() - t0:.1f}s")
    return out
