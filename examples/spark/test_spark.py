"""examples/spark/rule_parquet.py with PySpark in local mode (`local[2]`): the sample games and
cases `clir rule` rejects or warns about, as Parquet, ruled by `mapInArrow` into Parquet; every
row must be the ruling `clir rule` writes for its case. Run by .ci/python (CLIR_BIN, CLIR_ROOT)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import rule_parquet  # noqa: E402

ROOT = Path(os.environ["CLIR_ROOT"])
CLIR = os.environ["CLIR_BIN"]

EXTRA = [
    '{"case":"x1","facts":{"piece_touched_intentionally":[["w","p"]]}}',
    '{"case":"x2","facts":{"attempted_transition":[["x2","startPlay"]]}}',
    '{"case":"x3","facts":{"draw_agreed":[["x3"]]},"why_not":["game_drawn(x3)"]}',
    '{"case":"x4","facts":{},"as_of":"1999-01-01"}',
]


def from_row(row):
    """A row of the rulings as its ruling line's JSON object."""
    if row["error"] is not None:
        return {"case": row["case"], "error": row["error"]}
    out = {"case": row["case"]}
    for layer in ("concluded", "definite"):
        out[layer] = {k: [list(t.values()) for t in v] for k, v in row[layer].items() if v}
    out["contradictions"] = list(row["contradictions"])
    if row["warnings"]:
        out["warnings"] = list(row["warnings"])
    if row["why_not"] is not None:
        out["why_not"] = json.loads(row["why_not"])
    return out


@pytest.fixture(scope="module")
def spark():
    s = rule_parquet.session("local[2]")
    yield s
    s.stop()


def test_spark_rulings_are_clir_rules(spark, tmp_path):
    lines = (ROOT / "examples" / "fide" / "games.jsonl").read_text().splitlines() + EXTRA
    text = "\n".join(lines) + "\n"
    cases = tmp_path / "cases.parquet"
    # Several row groups, so that Spark reads the cases in more than one batch.
    pq.write_table(rule_parquet.cases_table(lines), cases, row_group_size=50)
    rulings = tmp_path / "rulings.parquet"
    rule_parquet.rule_parquet(spark, str(cases), str(rulings))
    rows = pq.read_table(rulings).to_pylist()
    out = subprocess.run([CLIR, "rule", "--package", "fide.laws.chess"], input=text.encode(), capture_output=True)
    assert out.returncode == 1, out.stderr  # x4 is rejected
    expected = [json.loads(line) for line in out.stdout.decode().splitlines()]
    # One row a case; Spark keeps no order across partitions, so rows are matched by case.
    assert len(rows) == len(expected)
    got = {r["case"]: from_row(r) for r in rows}
    for e in expected:
        if "error" in e:
            # The line number is the case's row in its batch, not in the file.
            assert got[e["case"]]["error"].split(": ", 1)[1] == e["error"].split(": ", 1)[1]
        else:
            assert got[e["case"]] == e
    assert any("error" in e for e in expected) and any("warnings" in e for e in expected)


def from_flat(rows):
    """The flat rulings as ruling lines' JSON objects, by case."""
    out = {}
    for r in rows:
        if r["relation"] is None:
            if r["error"] is not None:
                out[r["case"]] = {"case": r["case"], "error": r["error"]}
                continue
            line = {"case": r["case"], "concluded": {}, "definite": {}, "contradictions": list(r["contradictions"])}
            if r["warnings"]:
                line["warnings"] = list(r["warnings"])
            out[r["case"]] = line
    for r in rows:
        if r["relation"] is None:
            continue
        args = [a for j in range(10) for a in (r.get(f"e{j}"), r.get(f"n{j}")) if a is not None]
        line = out[r["case"]]
        for layer in ("concluded", "definite") if r["definite"] else ("concluded",):
            line[layer].setdefault(r["relation"], []).append(args)
    return out


def test_spark_flat_rulings_are_clir_rules(spark, tmp_path):
    # The flat layout has no why_not or as_of: the cases without them.
    lines = [
        line
        for line in (ROOT / "examples" / "fide" / "games.jsonl").read_text().splitlines() + EXTRA
        if "why_not" not in line and "as_of" not in line
    ]
    text = "\n".join(lines) + "\n"
    cases = tmp_path / "flat.parquet"
    rule_parquet.write_flat(rule_parquet.flat_cases_table(lines), str(cases), cases_per_group=40)
    # Batches of 37 rows: Spark cuts cases across its batches, which the recipe puts back.
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "37")
    try:
        rulings = tmp_path / "rulings.parquet"
        rule_parquet.rule_parquet_flat(spark, str(cases), str(rulings))
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    got = from_flat(pq.read_table(rulings).to_pylist())
    out = subprocess.run([CLIR, "rule", "--package", "fide.laws.chess"], input=text.encode(), capture_output=True)
    expected = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert len(got) == len(expected)
    for e in expected:
        if "error" in e:
            assert got[e["case"]]["error"].split(": ", 1)[1] == e["error"].split(": ", 1)[1]
        else:
            assert got[e["case"]] == e
