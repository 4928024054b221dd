"""The evaluator the suite's pytest plugin drives: `--datalog-evaluator=clir_conformance.ClirEvaluator`.

On first use it translates every case of the installed suite, compiles each distinct package
once into one crate and rules every case with the generated code (engine.py); `evaluate` then
translates the case it is given and returns the ruling computed for it. No rule is evaluated in
Python: sections are read off the rulings (`not_defeasibly` is the complement of `concluded`
within the theory's Herbrand base)."""

from __future__ import annotations

import itertools
import re
from typing import Any

from . import engine
from .translate import NotMappable, Translation, translate_program, translate_theory


class ClirError(Exception):
    """The compiler (or the generated code) rejected the case; `code` is the category."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


_STATE: dict[str, Any] = {}
# The suite's cases as pytest collected them (set by conftest.py), so the YAML is read once.
SUITE_CASES: list[Any] | None = None
# Translations by (object, policy): the runner hands `evaluate` the objects collected here.
_CACHE: dict[tuple[int, str], tuple[Any, Translation]] = {}


def _translate(obj: Any, policy: str = "blocking") -> Translation:
    hit = _CACHE.get((id(obj), policy))
    if hit is not None and hit[0] is obj:
        return hit[1]
    t = _translate_uncached(obj, policy)
    _CACHE[(id(obj), policy)] = (obj, t)
    return t


def _translate_uncached(obj: Any, policy: str) -> Translation:
    if hasattr(obj, "rules") and hasattr(obj, "facts") and not hasattr(obj, "strict_rules"):
        return translate_program(obj)
    if policy not in ("blocking", "propagating"):
        raise NotMappable(f"policy {policy!r}: clir implements ambiguity blocking (and propagation by translation) only")
    return translate_theory(obj, propagating=policy == "propagating")


def _prepare() -> None:
    if _STATE:
        return
    from datalog_conformance.plugin import discover_yaml_tests

    packages: dict[str, bytes] = {}
    cases: dict[str, list[str]] = {}
    cases_in = SUITE_CASES if SUITE_CASES is not None else [c for _, c in discover_yaml_tests()]
    for case in cases_in:
        obj = case.program or case.theory
        if obj is None:
            continue
        policies = ["blocking"] + list(case.expect_per_policy or {})
        for policy in policies:
            try:
                t = _translate(obj, policy)
            except NotMappable:
                continue
            packages[t.seal] = t.package_bytes
            cases.setdefault(t.seal, []).append(t.case_line)
    binary, index, rejected = engine.compile_all(packages)
    rulings = engine.rule_all(binary, index, cases)
    _STATE.update(index=index, rejected=rejected, rulings=rulings)


def _ruling(t: Translation) -> dict[str, Any]:
    _prepare()
    if t.seal in _STATE["rejected"]:
        code, msg = _STATE["rejected"][t.seal]
        raise ClirError(code, msg)
    r = _STATE["rulings"].get((t.seal, t.case_line))
    if r is None:
        raise RuntimeError("case was not ruled (not part of the installed suite?)")
    if "error" in r:
        code = "arity_mismatch" if re.search(r"takes \d+ arguments", r["error"]) else "case_rejected"
        raise ClirError(code, r["error"])
    return r


def _section(t: Translation, part: dict[str, list[list[Any]]]) -> dict[str, set[tuple]]:
    out: dict[str, set[tuple]] = {}
    for rel, rows in part.items():
        neg = rel.startswith("~")
        name = rel.lstrip("~")
        if name in t.outputs:
            out.setdefault(("~" if neg else "") + t.outputs[name], set()).update(tuple(r) for r in rows)
    return out


class ClirEvaluator:
    """Datalog programs and defeasible theories, ruled by code the clir compiler generated."""

    def evaluate(self, program_or_theory: Any, policy: Any = None) -> Any:
        t = _translate(program_or_theory, getattr(policy, "value", policy) or "blocking")
        r = _ruling(t)
        concluded = _section(t, r.get("concluded", {}))
        if policy is None:
            # Datalog: every relation is strict, so +d is the least model.
            return {p: concluded.get(p, set()) for p in t.arities} | concluded
        definite = _section(t, r.get("definite", {}))
        supported: dict[str, set[tuple]] = {}
        for rel, rows in r.get("concluded", {}).items():
            if rel in t.support:
                supported.setdefault(t.support[rel], set()).update(tuple(x) for x in rows)
        undecided = {p: rows - concluded.get(p, set()) for p, rows in supported.items()}
        not_defeasibly: dict[str, set[tuple]] = {}
        for p, n in t.arities.items():
            doms = t.herbrand[p]
            if n > 0 and any(len(d) == 0 for d in doms):
                continue
            size = 1
            for d in doms:
                size *= len(d)
            if size > 200_000:
                continue
            for sign in ("", "~"):
                base = set(itertools.product(*doms))
                not_defeasibly[sign + p] = base - concluded.get(sign + p, set())
        return {
            "definitely": definite,
            "defeasibly": concluded,
            "not_defeasibly": not_defeasibly,
            "undecided": undecided,
        }
