"""A conformance case (Soufflé-style rule text, facts) as a CLIR package plus one JSONL case.

Soufflé conventions: bare identifiers in argument positions are variables, `_` is a fresh
anonymous variable, quoted strings and integers are constants (`"1"` is not `1`). Column types
are inferred: facts decide (`int` -> Integer, `str` -> String); otherwise rule constants and
arithmetic; otherwise String. Every predicate `P` of a case becomes an institutional relation fed
by an empirical input relation through the strict rule `P(x..) <- in_P(x..)` (and `~P <- ~in_P`
when negative facts exist), so that input facts are reported as `+D` like derived ones. For
defeasible theories, every signed predicate also gets a support relation `sup_P` computed by
strict copies of the strict and defeasible rules over support relations (the standard `+Σ`:
every antecedent merely supported), used for the `undecided` section.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import canonical

INT = "urn:law:std#Integer"
STR = "urn:law:std#String"


class NotMappable(Exception):
    """The case cannot be expressed as a CLIR package (with a reason)."""


# ---------------------------------------------------------------- parsing


@dataclass
class Atom:
    pred: str
    neg: bool  # strong negation `~`
    args: list[Any]


@dataclass
class Rule:
    head: Atom
    body: list[tuple]  # ("pos", Atom) | ("not", Atom) | ("cmp", op, t, t)
    strength: str = "strict"
    rid: str | None = None


TOKEN = re.compile(r'\s*(?:(:-)|(<=|>=|!=|<|>|=)|("(?:[^"\\]|\\.)*")|(-?\d+)|([A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z_][A-Za-z0-9_]*)*)|(.))')


def tokenize(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        arrow, cmp, string, num, ident, other = m.groups()
        if arrow:
            out.append(("arrow", arrow))
        elif cmp:
            out.append(("cmp", cmp))
        elif string is not None:
            out.append(("str", json.loads(string)))
        elif num is not None:
            # `a-1` lexes `-1` as a number: a binary minus after an operand.
            if num.startswith("-") and out and out[-1][0] in ("ident", "int", "str", "punct") and (
                out[-1][0] != "punct" or out[-1][1] == ")"
            ):
                out.append(("punct", "-"))
                out.append(("int", num[1:]))
            else:
                out.append(("int", num))
        elif ident is not None:
            out.append(("ident", ident))
        elif other is not None and not other.isspace():
            out.append(("punct", other))
    return out


class Parser:
    def __init__(self, text: str):
        self.toks = tokenize(text)
        self.i = 0
        self.wild = 0

    def peek(self, k: int = 0) -> tuple[str, str] | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def take(self, kind: str | None = None, value: str | None = None) -> tuple[str, str]:
        t = self.peek()
        if t is None or (kind and t[0] != kind) or (value and t[1] != value):
            raise NotMappable(f"cannot parse rule text near token {self.i}: {t!r}")
        self.i += 1
        return t

    def at(self, kind: str, value: str | None = None) -> bool:
        t = self.peek()
        return t is not None and t[0] == kind and (value is None or t[1] == value)

    def atom(self) -> Atom:
        neg = False
        if self.at("punct", "~"):
            self.take()
            neg = True
        name = self.take("ident")[1]
        args: list[Any] = []
        if self.at("punct", "("):
            self.take()
            if not self.at("punct", ")"):
                args.append(self.expr())
                while self.at("punct", ","):
                    self.take()
                    args.append(self.expr())
            self.take("punct", ")")
        return Atom(name, neg, args)

    def expr(self) -> Any:
        t = self.primary()
        while self.at("punct", "+") or self.at("punct", "-") or self.at("punct", "*"):
            op = {"+": "add", "-": "sub", "*": "mul"}[self.take()[1]]
            t = ("arith", op, t, self.primary())
        return t

    def primary(self) -> Any:
        t = self.take()
        if t[0] == "int":
            return ("int", int(t[1]))
        if t[0] == "str":
            return ("str", t[1])
        if t[0] == "ident":
            if t[1] == "_":
                self.wild += 1
                return ("var", f"_{self.wild}")
            return ("var", t[1])
        if t == ("punct", "("):
            e = self.expr()
            self.take("punct", ")")
            return e
        raise NotMappable(f"unexpected {t[1]!r} in a term")

    def body_item(self) -> tuple:
        if self.at("ident", "not") and self.peek(1) is not None and self.peek(1)[0] == "ident":
            self.take()
            return ("not", self.atom())
        if self.at("punct", "!"):
            self.take()
            return ("not", self.atom())
        if self.at("punct", "("):
            # A parenthesised comparison.
            self.take()
            item = self.comparison()
            self.take("punct", ")")
            return item
        # An atom, or a comparison starting with a term.
        save = self.i
        if self.at("ident") or self.at("punct", "~"):
            try:
                a = self.atom()
                if not self.at("cmp"):
                    return ("pos", a)
            except NotMappable:
                pass
        self.i = save
        return self.comparison()

    def comparison(self) -> tuple:
        left = self.expr()
        op = self.take("cmp")[1]
        right = self.expr()
        return ("cmp", {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "=": "eq", "!=": "ne"}[op], left, right)

    def items(self) -> list[tuple]:
        out = [self.body_item()]
        while self.at("punct", ","):
            self.take()
            out.append(self.body_item())
        return out

    def end(self) -> None:
        if self.at("punct", "."):
            self.take()
        if self.peek() is not None:
            raise NotMappable(f"trailing text in rule: {self.toks[self.i:]}")


def parse_rule(text: str) -> Rule:
    p = Parser(text)
    head = p.atom()
    body: list[tuple] = []
    if p.at("arrow"):
        p.take()
        body = p.items()
    p.end()
    return Rule(head, body)


def parse_item(text: str, wild_base: Parser) -> tuple:
    p = Parser(text)
    p.wild = wild_base.wild
    item = p.body_item()
    p.end()
    wild_base.wild = p.wild
    return item


def parse_literal(text: str, wild_base: Parser | None = None) -> Atom:
    p = Parser(text)
    if wild_base is not None:
        p.wild = wild_base.wild
    a = p.atom()
    p.end()
    if wild_base is not None:
        wild_base.wild = p.wild
    return a


# ---------------------------------------------------------------- types


class Types:
    """Union-find over columns `(pred, i)` and rule variables `(rule, name)`."""

    def __init__(self) -> None:
        self.parent: dict[Any, Any] = {}
        self.facts: dict[Any, set[str]] = {}
        self.hints: dict[Any, set[str]] = {}

    def find(self, x: Any) -> Any:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: Any, b: Any) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def ty(self, x: Any) -> str:
        if not hasattr(self, "_cls"):
            cls_f: dict[Any, set[str]] = {}
            cls_h: dict[Any, set[str]] = {}
            for k in list(self.parent):
                r = self.find(k)
                cls_f.setdefault(r, set()).update(self.facts.get(k, ()))
                cls_h.setdefault(r, set()).update(self.hints.get(k, ()))
            self._cls = (cls_f, cls_h)
        r = self.find(x)
        f = self._cls[0].get(r, set())
        h = self._cls[1].get(r, set())
        if len(f) > 1:
            raise NotMappable(f"a column holds both Integers and strings: {x!r}")
        if f:
            return next(iter(f))
        if INT in h:
            return INT
        return STR


def scalar_type(v: Any) -> str:
    if isinstance(v, bool):
        raise NotMappable("boolean values are not a CLIR type")
    if isinstance(v, int):
        return INT
    if isinstance(v, str):
        return STR
    raise NotMappable(f"{type(v).__name__} values are not a CLIR type")


# ---------------------------------------------------------------- packages


@dataclass
class Translation:
    package: dict[str, Any]
    package_bytes: bytes
    seal: str
    case_line: str
    # relation name in the package -> (section key prefix "" or "~", predicate name) for outputs
    outputs: dict[str, str]
    # support relations: package relation name -> signed predicate name
    support: dict[str, str]
    int_columns: dict[str, list[bool]]
    herbrand: dict[str, list[tuple]] = field(default_factory=dict)
    constants: list[Any] = field(default_factory=list)
    arities: dict[str, int] = field(default_factory=dict)


def _var_ids(rule: Rule) -> list[str]:
    seen: list[str] = []

    def walk(t: Any) -> None:
        if t[0] == "var" and t[1] not in seen:
            seen.append(t[1])
        elif t[0] == "arith":
            walk(t[2])
            walk(t[3])

    for a in rule.head.args:
        walk(a)
    for it in rule.body:
        if it[0] in ("pos", "not"):
            for a in it[1].args:
                walk(a)
        else:
            walk(it[2])
            walk(it[3])
    return seen


def translate(
    rules: list[Rule],
    facts: dict[str, list[tuple]],
    *,
    theory: bool,
    superiority: list[tuple[str, str]] = (),
    propagating: bool = False,
) -> Translation:
    # Predicates and arities, in order of first appearance.
    preds: dict[str, int] = {}
    arity_errors: list[str] = []

    def see(name: str, n: int) -> None:
        if name not in preds:
            preds[name] = n

    for key, rows in facts.items():
        name = key.lstrip("~")
        for row in rows:
            see(name, len(row))
    for r in rules:
        see(r.head.pred, len(r.head.args))
        for it in r.body:
            if it[0] in ("pos", "not"):
                see(it[1].pred, len(it[1].args))
    neg_facts = {k.lstrip("~") for k, rows in facts.items() if k.startswith("~") and rows}

    # Types.
    T = Types()
    for key, rows in facts.items():
        name = key.lstrip("~")
        for row in rows:
            for i, v in enumerate(row):
                if i < preds[name]:
                    T.facts.setdefault((name, i), set()).add(scalar_type(v))
                    T.find((name, i))
    for ri, r in enumerate(rules):
        def term_hint(t: Any, node: Any) -> None:
            if t[0] == "var":
                T.union(("v", ri, t[1]), node)
            elif t[0] == "int":
                T.hints.setdefault(node, set()).add(INT)
                T.find(node)
            elif t[0] == "str":
                T.hints.setdefault(node, set()).add(STR)
                T.find(node)
            elif t[0] == "arith":
                T.hints.setdefault(node, set()).add(INT)
                T.find(node)
                for sub in (t[2], t[3]):
                    if sub[0] == "var":
                        T.hints.setdefault(("v", ri, sub[1]), set()).add(INT)
                        T.find(("v", ri, sub[1]))
                    term_hint(sub, ("arith", ri, id(sub)))

        atoms = [r.head] + [it[1] for it in r.body if it[0] in ("pos", "not")]
        for a in atoms:
            for i, t in enumerate(a.args[: preds[a.pred]]):
                term_hint(t, (a.pred, i))
        for it in r.body:
            if it[0] == "cmp":
                for t in (it[2], it[3]):
                    if t[0] == "var":
                        T.hints.setdefault(("v", ri, t[1]), set()).add(INT)
                        T.find(("v", ri, t[1]))
    col_ty = {p: [T.ty((p, i)) for i in range(n)] for p, n in preds.items()}

    ns = "urn:clir:conformance"
    nodes: list[dict[str, Any]] = []
    rel_names: dict[str, str] = {}
    outputs: dict[str, str] = {}
    support: dict[str, str] = {}
    features = {"core-executable"}

    def rel_node(rid: str, name: str, kind: str, types: list[str]) -> dict[str, Any]:
        if STR in types:
            features.add("string-values")
        return {
            "id": f"{ns}#{rid}",
            "kind": "symbol_decl",
            "symbolKind": "relation",
            "relationKind": kind,
            "name": name,
            "labels": [],
            "package": ns,
            "parameters": [
                {"id": f"{ns}#{rid}/arg/{i}", "name": f"a{i}", "type": {"name": t}} for i, t in enumerate(types)
            ],
        }

    for k, (p, n) in enumerate(preds.items()):
        rname = f"p{k}_{p}"
        rel_names[p] = rname
        outputs[rname] = p
        nodes.append(rel_node(f"p{k}", rname, "institutional", col_ty[p]))
        nodes.append(rel_node(f"in{k}", f"in{k}_{p}", "empirical", col_ty[p]))
        if theory:
            nodes.append(rel_node(f"s{k}", f"s{k}_{p}", "institutional", col_ty[p]))
            nodes.append(rel_node(f"sn{k}", f"sn{k}_{p}", "institutional", col_ty[p]))
            support[f"s{k}_{p}"] = p
            support[f"sn{k}_{p}"] = "~" + p

    def lit(pred_id: str, neg: bool, args: list[dict[str, Any]]) -> dict[str, Any]:
        return {"kind": "literal", "predicate": f"{ns}#{pred_id}", "polarity": "negative" if neg else "positive", "args": args}

    def pid(p: str) -> str:
        return f"p{list(preds).index(p)}"

    def rule_node(rid: str, head: dict, body: list[dict], variables: list[tuple[str, str]], strength: str) -> dict:
        return {
            "id": f"{ns}#{rid}",
            "kind": "rule",
            "package": ns,
            "labels": [],
            "anchors": [],
            "interpretations": [],
            "scope": {"kind": "boolean", "value": True},
            "strength": strength,
            "variables": [{"id": v, "type": {"name": t}} for v, t in variables],
            "head": head,
            "body": {"kind": "and", "items": body},
        }

    # Input copies.
    for k, (p, n) in enumerate(preds.items()):
        vs = [(f"x{i}", col_ty[p][i]) for i in range(n)]
        args = [{"kind": "var", "var": v} for v, _ in vs]
        signs = [False] + ([True] if p in neg_facts else [])
        for neg in signs:
            tag = "n" if neg else ""
            nodes.append(rule_node(f"input{tag}{k}", lit(f"p{k}", neg, args), [lit(f"in{k}", neg, args)], vs, "strict"))
            if theory:
                nodes.append(rule_node(f"sinput{tag}{k}", lit(f"s{tag}{k}", False, args), [lit(f"in{k}", neg, args)], vs, "strict"))

    def term_json(t: Any) -> dict[str, Any]:
        if t[0] == "var":
            return {"kind": "var", "var": t[1]}
        if t[0] == "int":
            return {"kind": "value", "type": {"name": INT}, "value": t[1]}
        if t[0] == "str":
            features.add("string-values")
            return {"kind": "value", "type": {"name": STR}, "value": t[1]}
        if t[0] == "arith":
            features.add("integer-arithmetic")
            return {"kind": "arith", "op": t[1], "left": term_json(t[2]), "right": term_json(t[3])}
        raise NotMappable(f"term {t!r}")

    def const_type(t: Any) -> str | None:
        return {"int": INT, "str": STR}.get(t[0])

    dropped: list[str] = []
    rule_ids: dict[str, str] = {}
    for ri, r in enumerate(rules):
        # A constant of the other type than its column can never match: the literal never holds.
        def never_matches(a: Atom) -> bool:
            return any(const_type(t) not in (None, col_ty[a.pred][i]) for i, t in enumerate(a.args[: preds[a.pred]]))

        body_items: list[dict] = []
        sup_items: list[dict] = []
        skip = False
        for it in r.body:
            if it[0] == "pos":
                if never_matches(it[1]):
                    skip = True
                    break
                args = [term_json(t) for t in it[1].args]
                body_items.append(lit(pid(it[1].pred), it[1].neg, args))
                k = list(preds).index(it[1].pred)
                sup_items.append(lit(f"{'sn' if it[1].neg else 's'}{k}", False, args))
            elif it[0] == "not":
                features.add("negation-as-failure")
                if never_matches(it[1]):
                    continue  # `not` of a literal that can never hold: always true
                body_items.append({"kind": "not", "formula": lit(pid(it[1].pred), it[1].neg, [term_json(t) for t in it[1].args])})
                sup_items.append(body_items[-1])
            else:
                body_items.append({"kind": "comparison", "op": it[1], "left": term_json(it[2]), "right": term_json(it[3])})
                sup_items.append(body_items[-1])
        if skip:
            dropped.append(f"rule {ri}")
            continue
        variables = []
        for v in _var_ids(r):
            try:
                variables.append((v, T.ty(("v", ri, v))))
            except NotMappable:
                raise
        head_args = [term_json(t) for t in r.head.args]
        rid = f"r{ri}"
        if r.rid is not None:
            rule_ids[r.rid] = rid
        nodes.append(rule_node(rid, lit(pid(r.head.pred), r.head.neg, head_args), body_items, variables, r.strength))
        if propagating and r.strength != "defeater":
            # Ambiguity propagation: a rule attacks as soon as its premises are supported.
            att = [
                {"kind": "status", "status": "supported", "formula": b} if b["kind"] == "literal" else b
                for b in body_items
            ]
            nodes.append(rule_node(f"{rid}_attack", lit(pid(r.head.pred), r.head.neg, head_args), att, variables, "defeater"))
        if theory and r.strength != "defeater":
            k = list(preds).index(r.head.pred)
            nodes.append(rule_node(f"sup{ri}", lit(f"{'sn' if r.head.neg else 's'}{k}", False, head_args), sup_items, variables, "strict"))
    pairs: list[tuple[str, str]] = []
    for hi, lo in superiority:
        if hi not in rule_ids or lo not in rule_ids:
            raise NotMappable(f"superiority names an unknown rule: {hi} > {lo}")
        pairs.append((rule_ids[hi], rule_ids[lo]))
        if propagating:
            pairs.append((rule_ids[hi], rule_ids[lo] + "_attack"))
    for i, (hi, lo) in enumerate(pairs):
        nodes.append(
            {
                "id": f"{ns}#sup_{i}",
                "kind": "priority_rule",
                "package": ns,
                "labels": [],
                "anchors": [],
                "condition": {"kind": "boolean", "value": True},
                "higher": {"kind": "const_ref", "id": f"{ns}#{hi}"},
                "lower": {"kind": "const_ref", "id": f"{ns}#{lo}"},
                "priorityKind": "direct",
            }
        )
    nodes = [canonical.with_content_hash(n) for n in nodes]
    doc = {
        "schemaVersion": "law.core.ir/0.2",
        "package": {"name": "conformance.case", "namespace": ns, "version": "0.1.0", "semanticHash": "sha256:" + "0" * 64},
        "semanticVersion": "0.1.0",
        "semanticHash": canonical.semantic_hash(nodes),
        "features": sorted(features, key=lambda f: (f != "core-executable", f)),
        "imports": [],
        "metadata": {},
        "strata": [],
        "nodes": nodes,
    }
    data = canonical.canonical_bytes(doc)
    # The case: facts under the input relations.
    case_facts: dict[str, list[list[Any]]] = {}
    for key, rows in facts.items():
        name = key.lstrip("~")
        k = list(preds).index(name)
        rel = ("~" if key.startswith("~") else "") + f"in{k}_{name}"
        case_facts.setdefault(rel, []).extend([list(r) for r in rows])
    line = json.dumps({"case": 0, "facts": case_facts}, ensure_ascii=False, sort_keys=True)
    # The Herbrand base of a theory: its predicates over its constants, per column type.
    consts: dict[str, set] = {INT: set(), STR: set()}
    for key, rows in facts.items():
        for row in rows:
            for v in row:
                consts[scalar_type(v)].add(v)

    def walk_consts(t: Any) -> None:
        if t[0] in ("int", "str"):
            consts[const_type(t)].add(t[1])
        elif t[0] == "arith":
            walk_consts(t[2])
            walk_consts(t[3])

    for r in rules:
        for a in [r.head] + [it[1] for it in r.body if it[0] in ("pos", "not")]:
            for t in a.args:
                walk_consts(t)
    return Translation(
        package=doc,
        package_bytes=data,
        seal=canonical.sha256(data),
        case_line=line,
        outputs=outputs,
        support=support,
        int_columns={rel_names[p]: [t == INT for t in col_ty[p]] for p in preds},
        herbrand=_herbrand(consts, col_ty) if theory else {},
        arities=dict(preds),
    )


def _herbrand(consts: dict[str, set], col_ty: dict[str, list[str]]) -> dict[str, list[list]]:
    ordered = {t: sorted(v, key=repr) for t, v in consts.items()}
    return {p: [ordered[t] for t in tys] for p, tys in col_ty.items()}


def translate_program(program: Any) -> Translation:
    rules = [parse_rule(r) for r in program.rules]
    return translate(rules, dict(program.facts), theory=False)


def translate_theory(theory: Any, propagating: bool = False) -> Translation:
    rules: list[Rule] = []
    for kind, strength in (("strict_rules", "strict"), ("defeasible_rules", "defeasible"), ("defeaters", "defeater")):
        for r in getattr(theory, kind):
            p = Parser("")
            head = parse_literal(r.head, p)
            body = [parse_item(b, p) for b in r.body]
            rules.append(Rule(head, body, strength, r.id))
    for a, b in theory.conflicts:
        if not (a == "~" + b or b == "~" + a):
            raise NotMappable(f"conflict {a} / {b} is not a literal and its complement")
    return translate(rules, dict(theory.facts), theory=True, superiority=list(theory.superiority), propagating=propagating)
