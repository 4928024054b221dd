"""The wheel `clir wheel` builds for fide.laws.chess, installed in a fresh venv: every ruling
through Python (`rule`, the `Case` builder) and Arrow (`rule_arrow`) is the one `clir rule` gives
for the same cases. Run by tests/cli_wheel.rs and .ci/python with CLIR_BIN (the `clir` binary)
and CLIR_ROOT (this repository) set."""

import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path

import pytest

import clir_fide_laws_chess as law

ROOT = Path(os.environ["CLIR_ROOT"])
CLIR = os.environ["CLIR_BIN"]
GAMES = ROOT / "examples" / "fide" / "games.jsonl"
PACKAGE = ROOT / "sources" / "fide.laws.chess-0.1.0.lawir.json"
ARBITER = "judgment:FIDEArbiter"

# Lines `clir rule` rejects or warns about, each for its own reason, among ordinary ones.
HOSTILE = [
    '{"case":"a","facts":{"player_of":[["a","w"]]}}',
    "{not json",
    '{"case":"b","facts":{"no_such_relation":[["b"]]}}',
    '{"case":"c","facts":{"player_of":[["c","w","x"]]}}',
    "",
    '{"case":"d","facts":{"piece_touched_intentionally":[["w","p"]]}}',
    '{"case":"e","facts":{"attempted_transition":[["e","startPlay"]]}}',
    '{"case":{"k":[1,2]},"facts":{"draw_agreed":[["g"]]},"why_not":["game_drawn(g)"]}',
    '{"case":"f","facts":{},"as_of":"1999-01-01"}',
    '{"case":"h","facts":{"game_drawn":[["h"]]}}',
    "\u00a0",
]


def clir_rule(text, *flags):
    """`clir rule --package fide.laws.chess FLAGS` on `text`: its stdout."""
    out = subprocess.run(
        [CLIR, "rule", "--package", "fide.laws.chess", *flags],
        input=text.encode(),
        capture_output=True,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr.decode()
    return out.stdout.decode()


def as_text(lines):
    return "".join(line + "\n" for line in lines)


@pytest.fixture(scope="module")
def games():
    return GAMES.read_text()


def test_rule_is_clir_rule_byte_for_byte(games):
    assert as_text(law.rule(games)) == clir_rule(games)
    assert as_text(law.rule(games, explain=True)) == clir_rule(games, "--explain")
    hostile = "\n".join(HOSTILE) + "\n"
    for grants, flags in [([], []), ([ARBITER], ["--grant", ARBITER])]:
        assert as_text(law.rule(hostile, grants=grants)) == clir_rule(hostile, *flags)
        assert as_text(law.rule(hostile, grants=grants, strict_constants=True)) == clir_rule(
            hostile, *flags, "--strict-constants"
        )
    assert as_text(law.rule(hostile, explain=True, threads=1)) == clir_rule(hostile, "--explain", "--threads", "1")


def test_lines_as_text_bytes_or_items_rule_alike(games):
    lines = games.splitlines()
    whole = list(law.rule(games))
    assert list(law.rule(games.encode())) == whole
    assert list(law.rule(lines)) == whole
    assert list(law.rule(line.encode() + b"\n" for line in lines)) == whole
    assert len(whole) == len(lines)


def test_errors_name_the_line():
    with pytest.raises(ValueError, match=r"line 2: "):
        law.rule(['{"case":"a","facts":{}}', "{not json"], raise_errors=True)
    with pytest.raises(TypeError, match=r"line 2: expected a str, bytes or Case, got int"):
        law.rule(['{"case":"a","facts":{}}', 7])
    with pytest.raises(ValueError, match=r"line 1: holds a line break"):
        law.rule(['{"case":"a","facts":{}}\n{"case":"b","facts":{}}'])
    with pytest.raises(ValueError, match=r"unknown capability `judgment:FIDEArbitr` \(did you mean"):
        law.rule("", grants=["judgment:FIDEArbitr"])
    with pytest.raises(ValueError, match="threads"):
        law.rule("", threads=0)
    # Without raise_errors a rejected case is its error line, as `clir rule` writes it.
    (line,) = law.rule(["{not json"])
    assert json.loads(line)["error"].startswith("line 1: ")


def test_the_gil_is_released_while_ruling(games):
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.05)
        # A call long enough to tell, however fast ruling is: twice the games until it takes
        # 0.2 s (or 64 times as many).
        copies = 40
        while True:
            before = count[0]
            started = time.perf_counter()
            law.rule(games * copies, threads=1)
            took = time.perf_counter() - started
            during = count[0] - before
            if took > 0.2 or copies >= 40 * 64:
                break
            copies *= 2
    finally:
        stop.set()
        spinner.join()
    # Holding the GIL for the whole call, the spinner could not have counted while it ran.
    assert took > 0.05, "the call was too short to tell"
    assert during > 10_000, (during, took)


def test_case_builder_is_typed_and_rules_as_clir_rule():
    case = law.Case("c1")
    g, w = case.game("g1"), case.player("w")
    assert repr(g) == 'Game("g1")' and g.type == "Game" and g.name == "g1"
    case.checkmate_delivered(g, w).moves_by_each_without_pawn_or_capture(g, 75).not_king_cannot_be_checkmated(w)
    case.why_not("game_drawn(g1)")
    (ruling,) = law.rule([case])
    assert ruling == clir_rule(case.line() + "\n").rstrip("\n")
    r = json.loads(ruling)
    assert ["g1", "w"] in r["definite"]["game_won_by"]
    assert ["g1"] in r["concluded"]["~game_drawn"]
    assert r["why_not"]["game_drawn(g1)"]["concluded"] is False
    with pytest.raises(TypeError, match=r"argument `who` is a Player .* got a Game"):
        case.checkmate_delivered(g, g)
    with pytest.raises(TypeError, match=r"argument `n` is an Integer .* got str|takes 2 arguments"):
        case.moves_by_each_without_pawn_or_capture(g, "75")
    with pytest.raises(TypeError, match="takes 2 arguments"):
        case.checkmate_delivered(g)
    with pytest.raises(AttributeError, match=r"no method `chekmate_delivered` \(did you mean `checkmate_delivered`"):
        case.chekmate_delivered
    # A judgment needs its grant, as on the command line.
    judged = law.Case(2).piece_touched_intentionally(case.player("w"), case.piece("p"))
    assert "error" in json.loads(next(law.rule([judged])))
    assert list(law.rule([judged], grants=[ARBITER])) == clir_rule(judged.line() + "\n", "--grant", ARBITER).splitlines()


def test_seal_stubs_and_metadata():
    seal = "sha256:" + hashlib.sha256(PACKAGE.read_bytes()).hexdigest()
    assert law.__seal__ == seal
    assert law.__law__ == "fide.laws.chess" and law.__version__ == "0.1.0"
    assert law.capabilities == [ARBITER]
    meta = metadata.metadata("clir_fide_laws_chess")
    assert seal in meta["Summary"], meta["Summary"]
    files = [str(f) for f in metadata.files("clir_fide_laws_chess")]
    assert any(f.endswith(".pyi") for f in files) and any(f.endswith("py.typed") for f in files), files
    stub = next(f for f in metadata.files("clir_fide_laws_chess") if str(f).endswith(".pyi")).read_text()
    assert "def checkmate_delivered(self, game: Union[Entity, str], who: Union[Entity, str]) -> \"Case\"" in stub
    assert "def moves_by_each_without_pawn_or_capture(self, game: Union[Entity, str], n: int)" in stub
    assert "def game(self, name: str) -> Entity" in stub


# ---------------------------------------------------------------------------------------------
# Arrow.

pa = pytest.importorskip("pyarrow")


def to_row(line, schema):
    """A case line as a row of the input layout (input_schema())."""
    case = json.loads(line)
    row = {"case": case["case"]}
    for key, tuples in case["facts"].items():
        names = [f.name for f in schema.field(key).type.value_type]
        row[key] = [dict(zip(names, t)) for t in tuples]
    for key in ("why_not", "as_of"):
        if key in case:
            row[key] = case[key]
    return row


def from_row(row, explain=False):
    """An output row of rule_arrow as the ruling line's JSON object."""
    if row["error"] is not None:
        return {"case": row["case"], "error": row["error"]}
    out = {"case": row["case"]}
    for layer in ("concluded", "definite"):
        out[layer] = {k: [list(t.values()) for t in v] for k, v in row[layer].items() if v}
    out["contradictions"] = row["contradictions"]
    if row["warnings"]:
        out["warnings"] = row["warnings"]
    if row["why_not"] is not None:
        out["why_not"] = json.loads(row["why_not"])
    if explain:
        out["explanations"] = json.loads(row["explanations"])
    return out


def arrow_cases(text):
    schema = law.input_schema()
    rows = [to_row(line, schema) for line in text.splitlines() if line.strip()]
    return pa.Table.from_pylist(rows, schema=schema)


def test_rule_arrow_is_clir_rule(games):
    table = arrow_cases(games)
    # Several batches, a column left out, columns in another order: the same rulings.
    table = pa.Table.from_batches(table.to_batches(max_chunksize=64))
    out = law.rule_arrow(table)
    assert isinstance(out, pa.Table) and out.num_rows == table.num_rows
    assert out.schema == law.output_schema()
    expected = [json.loads(line) for line in clir_rule(games).splitlines()]
    assert [from_row(r) for r in out.to_pylist()] == expected
    batch = law.rule_arrow(table.to_batches()[0], explain=True)
    assert isinstance(batch, pa.RecordBatch) and batch.schema == law.output_schema(explain=True)
    first = games.splitlines()[: batch.num_rows]
    expected = [json.loads(line) for line in clir_rule("\n".join(first) + "\n", "--explain").splitlines()]
    assert [from_row(r, explain=True) for r in batch.to_pylist()] == expected


def test_rule_arrow_reads_slices_and_large_types(games):
    table = arrow_cases(games)
    part = table.slice(37, 50)
    lines = games.splitlines()[37:87]
    expected = [json.loads(line) for line in clir_rule("\n".join(lines) + "\n").splitlines()]
    assert [from_row(r) for r in law.rule_arrow(part).to_pylist()] == expected
    # Spark may hand large strings and lists (spark.sql.execution.arrow.useLargeVarTypes).
    entity = pa.large_string()
    large = pa.table(
        {
            "case": pa.array(["a"], entity),
            "player_of": pa.array(
                [[{"game": "a", "who": "w"}]], pa.large_list(pa.struct([("game", entity), ("who", entity)]))
            ),
            "moves_by_each_without_pawn_or_capture": pa.array(
                [[{"game": "a", "n": 75}]], pa.list_(pa.struct([("game", pa.string()), ("n", pa.int32())]))
            ),
        }
    )
    line = '{"case":"a","facts":{"player_of":[["a","w"]],"moves_by_each_without_pawn_or_capture":[["a",75]]}}\n'
    assert [from_row(r) for r in law.rule_arrow(large).to_pylist()] == [json.loads(clir_rule(line))]


def test_rule_arrow_errors_warnings_and_why_not_are_clir_rules():
    lines = [
        '{"case":"a","facts":{"player_of":[["a","w"]]}}',
        '{"case":"d","facts":{"piece_touched_intentionally":[["w","p"]]}}',
        '{"case":"e","facts":{"attempted_transition":[["e","startPlay"]]}}',
        '{"case":"g","facts":{"draw_agreed":[["g"]]},"why_not":["game_drawn(g)","game_won_by(g,x)"]}',
        '{"case":"f","facts":{},"as_of":"1999-01-01"}',
        '{"case":"m","facts":{"moves_by_each_without_pawn_or_capture":[["m",-3]]}}',
    ]
    text = "\n".join(lines) + "\n"
    for grants, flags in [([], []), ([ARBITER], ["--grant", ARBITER])]:
        out = law.rule_arrow(arrow_cases(text), grants=grants)
        expected = [json.loads(line) for line in clir_rule(text, *flags).splitlines()]
        assert [from_row(r) for r in out.to_pylist()] == expected
    errors = law.rule_arrow(arrow_cases(text)).column("error").to_pylist()
    assert errors[1].startswith("line 2: ") and errors[4].startswith("line 5: ")


def test_rule_arrow_refuses_tables_it_cannot_read_naming_the_column():
    with pytest.raises(ValueError, match="no `case` column"):
        law.rule_arrow(pa.table({"x": [1]}))
    with pytest.raises(ValueError, match=r"column `player_off`: no relation `player_off` .*did you mean `player_of`"):
        law.rule_arrow(pa.table({"case": ["a"], "player_off": [[{"game": "a", "who": "w"}]]}))
    with pytest.raises(ValueError, match=r"column `game_drawn`: relation `game_drawn` is institutional"):
        law.rule_arrow(pa.table({"case": ["a"], "game_drawn": [[{"game": "a"}]]}))
    with pytest.raises(ValueError, match=r"column `player_of`: field `who` \(Player\) must be a string type"):
        law.rule_arrow(pa.table({"case": ["a"], "player_of": [[{"game": "a", "who": 3}]]}))
    with pytest.raises(TypeError, match="pyarrow Table or RecordBatch"):
        law.rule_arrow([{"case": "a"}])
    # A null argument is the row's error, naming its line, not a failure of the call.
    t = pa.table({"case": ["a", "b"], "player_of": [[{"game": "a", "who": "w"}], [{"game": None, "who": "w"}]]})
    out = law.rule_arrow(t).to_pylist()
    assert out[0]["error"] is None and out[1]["error"].startswith("line 2: ")
    # Integer case ids stay integers.
    out = law.rule_arrow(pa.table({"case": pa.array([7], pa.int64())}))
    assert out.schema.field("case").type == pa.int64() and out.column("case").to_pylist() == [7]


def test_the_readme_snippet_runs():
    readme = (ROOT / "README.md").read_text()
    snippets = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert snippets, "README.md has a ```python snippet"
    for snippet in snippets:
        exec(compile(snippet, "README.md", "exec"), {})
