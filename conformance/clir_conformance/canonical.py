"""Canonical bytes of CLIR documents (SEMANTICS.md §1): keys sorted by UTF-16 code units, no
insignificant whitespace, raw UTF-8, integers exactly; contentHash of nodes; seal."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _key(k: str) -> list[int]:
    return list(k.encode("utf-16-be"))


def dumps(v: Any) -> str:
    if isinstance(v, dict):
        items = sorted(v.items(), key=lambda kv: _key(kv[0]))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps(x) for k, x in items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(dumps(x) for x in v) + "]"
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    raise TypeError(f"not canonical JSON: {type(v).__name__}")


def canonical_bytes(v: Any) -> bytes:
    return dumps(v).encode("utf-8")


def sha256(b: bytes) -> str:
    return "sha256:" + hashlib.sha256(b).hexdigest()


def with_content_hash(node: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in node.items() if k != "contentHash"}
    return {**body, "contentHash": sha256(canonical_bytes(body))}


EXECUTABLE = ("type_decl", "symbol_decl", "rule", "priority_rule", "closure_policy", "external_decl")


def semantic_hash(nodes: list[dict[str, Any]]) -> str:
    """The top-level semanticHash as this project publishes it: sha256 of the canonical JSON array
    of the executable nodes' contentHashes, sorted."""
    return sha256(canonical_bytes(sorted(n["contentHash"] for n in nodes if n.get("kind") in EXECUTABLE)))
