"""rule_arrow from Polars and DuckDB (docs/PYTHON.md), and hostile Arrow input (issue 49): every
ruling is `clir rule`'s, compared case by case; what cannot be read is a clear exception or an
error row, never a crash. Polars and DuckDB are skipped where they are not installed."""

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import clir_fide_laws_chess as law
from test_wheel import arrow_cases, clir_rule, from_row

ROOT = Path(os.environ["CLIR_ROOT"])
GAMES = ROOT / "examples" / "fide" / "games.jsonl"


@pytest.fixture(scope="module")
def games():
    return GAMES.read_text()


def by_case(text):
    """`clir rule`'s ruling lines for `text`, by case id."""
    return {json.loads(line)["case"]: json.loads(line) for line in clir_rule(text).splitlines()}


def test_polars_frame_to_rulings(games):
    pl = pytest.importorskip("polars")
    frame = pl.from_arrow(arrow_cases(games))
    # Polars hands over its own types: large strings or string views, large lists.
    ruled = pl.from_arrow(law.rule_arrow(frame.to_arrow(), threads=1))
    expected = by_case(games)
    assert ruled.height == len(expected)
    for row in ruled.to_arrow().to_pylist():
        assert from_row(row) == expected[row["case"]]


def test_duckdb_query_over_parquet_to_rulings(games, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    cases = tmp_path / "cases.parquet"
    pq.write_table(arrow_cases(games), cases, row_group_size=16)
    expected = by_case(games)
    query = duckdb.sql(f"SELECT * FROM read_parquet('{cases}') ORDER BY \"case\"")
    reader = query.to_arrow_reader(32) if hasattr(query, "to_arrow_reader") else query.fetch_record_batch(32)
    seen = 0
    for batch in reader:
        for row in law.rule_arrow(batch, threads=1).to_pylist():
            assert from_row(row) == expected[row["case"]]
            seen += 1
    assert seen == len(expected)


def test_hostile_tables_are_exceptions_or_error_rows():
    # Wrong types: a clear exception naming the column.
    with pytest.raises(ValueError, match=r"column `player_of`: expected a list of structs"):
        law.rule_arrow(pa.table({"case": ["a"], "player_of": [1]}))
    with pytest.raises(ValueError, match=r"field `game` \(Game\) must be a string type"):
        law.rule_arrow(pa.table({"case": ["a"], "player_of": [[{"game": 1, "who": "w"}]]}))
    with pytest.raises(ValueError, match=r"column `player_of`: appears more than once"):
        t = pa.table({"case": ["a"], "player_of": pa.array([None], law.input_schema().field("player_of").type)})
        law.rule_arrow(t.append_column("player_of", t.column("player_of")))
    # Nulls: an error row for the row that has one, the others ruled.
    player_of = law.input_schema().field("player_of").type
    facts = pa.array(
        [[{"game": "g", "who": "w"}], [{"game": None, "who": "w"}], [None]],
        player_of,
    )
    out = law.rule_arrow(pa.table({"case": ["ok", "null argument", "null tuple"], "player_of": facts})).to_pylist()
    assert out[0]["error"] is None
    assert out[1]["error"].startswith("line 2: relation `player_of`: argument `game`") and "got null" in out[1]["error"]
    assert "line 3: relation `player_of`: each tuple must be a list of arguments, got null" == out[2]["error"]


def test_a_million_facts_in_one_case_are_ruled():
    n = 1_000_000
    player_of = law.input_schema().field("player_of").type
    items = pa.StructArray.from_arrays(
        [pa.array([f"g{i}" for i in range(n)]), pa.array(["w"] * n)],
        fields=list(player_of.value_type),
    )
    big = pa.ListArray.from_arrays(pa.array([0, n, n], pa.int32()), items)
    out = law.rule_arrow(pa.table({"case": ["big", "small"], "player_of": big}), threads=1).to_pylist()
    assert len(out) == 2 and out[1]["error"] is None
    assert out[0]["error"] is None or "tuples" in out[0]["error"]


def test_invalid_arrow_buffers_are_refused():
    # Strings that are not UTF-8: pyarrow builds them without a full check, rule_arrow does not
    # read them.
    offsets = pa.array([0, 1, 2], pa.int32()).buffers()[1]
    bad = pa.StringArray.from_buffers(2, offsets, pa.py_buffer(b"\xff\xfe"))
    with pytest.raises(ValueError, match="not valid Arrow data"):
        law.rule_arrow(pa.table({"case": bad}))


def test_a_table_and_its_batches_rule_alike(games):
    # rule_arrow over a table of many batches, on two threads, and over each batch alone.
    table = pa.Table.from_batches(arrow_cases(games).to_batches(max_chunksize=7))
    whole = law.rule_arrow(table, threads=2).to_pylist()
    parts = [r for b in table.to_batches() for r in law.rule_arrow(b, threads=1).to_pylist()]
    assert [r["case"] for r in whole] == [r["case"] for r in parts]
    assert [from_row(r) for r in whole] == [from_row(r) for r in parts]


def test_a_record_batch_ruled_in_pieces_is_one_batch_again(games):
    # More rows than one piece on two threads: the pieces are put back into one RecordBatch.
    table = arrow_cases(games)
    batch = pa.concat_tables([table] * 4).combine_chunks().to_batches()[0]
    assert batch.num_rows > 1024
    out = law.rule_arrow(batch, threads=2)
    assert isinstance(out, pa.RecordBatch) and out.num_rows == batch.num_rows
    alone = law.rule_arrow(batch, threads=1)
    assert [from_row(r) for r in out.to_pylist()] == [from_row(r) for r in alone.to_pylist()]


def test_the_flat_layout_rules_as_clir_rule(games):
    import sys

    sys.path.insert(0, str(ROOT / "examples" / "spark"))
    import rule_parquet

    lines = games.splitlines()
    table = rule_parquet.flat_cases_table(lines)
    assert table.schema == law.input_schema(flat=True)
    out = law.rule_arrow(table, threads=2)
    assert out.schema == law.output_schema(flat=True)
    expected = by_case(games)
    rows = out.to_pylist()
    own = [r for r in rows if r["relation"] is None]
    assert [r["case"] for r in own] == list(expected)
    for r in own:
        e = expected[r["case"]]
        assert r["error"] == e.get("error") and (r["contradictions"] or []) == e.get("contradictions", [])
    concluded = {}
    for r in rows:
        if r["relation"] is not None:
            args = [a for j in range(10) for a in (r.get(f"e{j}"), r.get(f"n{j}")) if a is not None]
            concluded.setdefault(r["case"], {}).setdefault(r["relation"], []).append(args)
            if r["definite"]:
                assert args in expected[r["case"]]["definite"][r["relation"]]
    for case, e in expected.items():
        assert concluded.get(case, {}) == e.get("concluded", {})
    # A case whose rows go on from one batch to the next, in one call: one case.
    cases = table.column("case").to_pylist()
    cut = next(i for i in range(1, len(cases)) if cases[i] == cases[i - 1])
    halves = [table.slice(0, cut), table.slice(cut)]
    split = pa.Table.from_batches([h.combine_chunks().to_batches()[0] for h in halves])
    assert law.rule_arrow(split).to_pylist() == rows
