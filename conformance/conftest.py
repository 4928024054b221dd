"""Collects every case's outcome and writes docs/CONFORMANCE.md (when CLIR_CONFORMANCE_REPORT is
set, as `conformance/run` does)."""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

_RESULTS: dict[str, tuple[str, str]] = {}
_T0 = [0.0]


def pytest_sessionstart(session):  # noqa: ARG001
    _T0[0] = time.time()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):  # noqa: ARG001
    from clir_conformance import adapter

    cases = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "yaml_test_case" in params:
            cases.append(params["yaml_test_case"][1])
    adapter.SUITE_CASES = cases


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        if report.outcome == "passed":
            _RESULTS[report.nodeid] = ("passed", "")
            return
        text = str(report.longrepr) if report.longrepr else ""
        lines = [l for l in text.splitlines() if l.startswith("E ")]
        reason = " ".join(l[1:].strip() for l in lines[:3])[:300] or text.splitlines()[-1:][0] if text else ""
        kind = "not mappable" if "NotMappable" in text else "failed"
        _RESULTS[report.nodeid] = (kind, reason.replace("|", "\\|"))


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001
    out = os.environ.get("CLIR_CONFORMANCE_REPORT")
    if not out or not _RESULTS:
        return
    elapsed = time.time() - _T0[0]
    by_dir: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for nodeid, (kind, reason) in sorted(_RESULTS.items()):
        case = nodeid.split("[", 1)[1].rstrip("]") if "[" in nodeid else nodeid
        by_dir[case.split("/", 1)[0]].append((case, kind, reason))
    total = sum(1 for v in _RESULTS.values() if v[0] == "passed")
    lines = [
        "# Conformance: datalog-conformance 0.1.0",
        "",
        "Written by `conformance/run` (do not edit by hand). Every case is translated into a CLIR",
        "package and one JSON Lines case, compiled by clir and ruled by the generated code; see",
        "`conformance/README.md` for the mapping.",
        "",
        f"**Passed: {total} of {len(_RESULTS)}** in {elapsed:.0f} s (all builds included).",
        "",
        "| directory | passed | failed | not mappable |",
        "| --- | --- | --- | --- |",
    ]
    for d, rows in sorted(by_dir.items()):
        c = defaultdict(int)
        for _, k, _ in rows:
            c[k] += 1
        lines.append(f"| {d} | {c['passed']} | {c['failed']} | {c['not mappable']} |")
    for d, rows in sorted(by_dir.items()):
        bad = [r for r in rows if r[1] != "passed"]
        lines += ["", f"## {d}", ""]
        lines.append(f"{sum(1 for r in rows if r[1] == 'passed')} of {len(rows)} passed.")
        if bad:
            lines += ["", "| case | outcome | reason |", "| --- | --- | --- |"]
            lines += [f"| `{c}` | {k} | {r} |" for c, k, r in bad]
    lines += ["", f"<!-- passed: {total} -->", ""]
    Path(out).write_text("\n".join(lines))
