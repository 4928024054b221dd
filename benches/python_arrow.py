"""Issues 31 and 49: `rule` and `rule_arrow` of the wheel `clir wheel` builds, and the Spark
example, against `clir rule` on the same generated games (benches/README.md "Issue 31", "Issue
49").

    VENV=target/tmp/wheel-venv   # the venv tests/cli_wheel.rs leaves: the wheel, pyarrow, pyspark
    $VENV/bin/python benches/python_arrow.py GAMES.jsonl CLIR_RULE_BINARY [--threads 1 2] [--runs 3]

CLIR_RULE_BINARY is `clir rule` for fide.laws.chess: the binary `clir run` builds in its cache
(the same generated code and runtime the wheel wraps, the same release profile). Each figure is
the median of --runs runs: wall seconds, CPU seconds (user + system, this process or the
child), cases per second and per CPU second. Reading the file and building the Arrow table are
not timed (a Parquet reader gives the table); `rule_arrow`'s own conversions are. The outputs
are compared with `clir rule`'s: byte for byte for `rule`, case by case (by case id, every case)
for `rule_arrow`, after the timed runs. The last line of each `rule_arrow` figure is its cases per
CPU second against `clir rule`'s (issue 49's target: at least 1.5).
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import clir_fide_laws_chess as law
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples" / "spark"))
import rule_parquet  # noqa: E402


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def timed(fn, who=resource.RUSAGE_SELF):
    c0, t0 = cpu(who), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, cpu(who) - c0, out


def report(name, n, runs):
    wall = statistics.median(r[0] for r in runs)
    cpus = statistics.median(r[1] for r in runs)
    print(f"{name:38s} wall {wall:7.2f} s  cpu {cpus:7.2f} s  {n / wall:9.0f} cases/s  {n / cpus:9.0f} cases/cpu-s")
    return wall


def from_row(row):
    """An output row of rule_arrow as the ruling line's JSON object (python/tests/test_wheel.py)."""
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
    return out


def same_rulings(ruled, expected_text):
    """Whether every row of `ruled` is the ruling line of its case in `expected_text`."""
    expected = {}
    for line in expected_text.splitlines():
        e = json.loads(line)
        expected[e["case"]] = e
    rows = 0
    for batch in ruled.to_batches():
        for row in batch.to_pylist():
            rows += 1
            if from_row(row) != expected.get(row["case"]):
                print(f"differs from clir rule: case {row['case']!r}")
                return False
    return rows == len(expected)


def flat_same_rulings(ruled, expected_text):
    """Whether the flat rulings (output_schema(flat=True)) are `expected_text`'s, case by case."""
    got = {}
    for batch in ruled.to_batches():
        for r in batch.to_pylist():
            line = got.setdefault(r["case"], {"case": r["case"], "concluded": {}, "definite": {}})
            if r["relation"] is None:
                if r["error"] is not None:
                    line["error"] = r["error"]
                line["contradictions"] = list(r["contradictions"])
                if r["warnings"]:
                    line["warnings"] = list(r["warnings"])
                continue
            args = [x for j in range(10) for x in (r.get(f"e{j}"), r.get(f"n{j}")) if x is not None]
            for layer in ("concluded", "definite") if r["definite"] else ("concluded",):
                line[layer].setdefault(r["relation"], []).append(args)
    lines = expected_text.splitlines()
    for text in lines:
        e = json.loads(text)
        g = got.get(e["case"])
        if "error" in e:
            g = g and {"case": g["case"], "error": g.get("error")}
        if g != e:
            print(f"differs from clir rule: case {e['case']!r}")
            return False
    return len(got) == len(lines)


def expected_lines(a):
    """`clir rule --threads 2`'s ruling lines for the games."""
    cmd = [a.clir, "--threads", "2", "--input", a.games]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("games")
    p.add_argument("clir")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--spark", action="store_true", help="also the Spark example in local[2]")
    p.add_argument("--spark-only", action="store_true", help="only the Spark example")
    a = p.parse_args()
    text = Path(a.games).read_text()
    n = text.count("\n")
    tmp = Path(tempfile.mkdtemp(prefix="clir-bench-py-"))
    print(f"{n} cases, {len(text) / 1e6:.0f} MB of case lines; cores: {os.cpu_count()}")
    t0 = time.perf_counter()
    table = rule_parquet.cases_table(text.splitlines())
    print(f"(JSON Lines to an Arrow table in Python, not timed below: {time.perf_counter() - t0:.1f} s)")
    cases = tmp / "cases.parquet"
    # Row groups of 10,000 cases: Spark splits a file by row groups, so one group would be one
    # task on one core.
    pq.write_table(table, cases, row_group_size=10_000)
    table = pq.read_table(cases)
    for t in [] if a.spark_only else a.threads:
        out = tmp / "clir.jsonl"
        cmd = [a.clir, "--threads", str(t), "--input", a.games, "--output", str(out)]
        runs = [timed(lambda: subprocess.run(cmd, check=True), resource.RUSAGE_CHILDREN) for _ in range(a.runs)]
        runs_clir = runs
        base = report(f"clir rule --threads {t}", n, runs)
        expected = out.read_text()
        runs = [timed(lambda: law.rule(text, threads=t)) for _ in range(a.runs)]
        assert "".join(line + "\n" for line in runs[0][2]) == expected, "rule differs from clir rule"
        w = report(f"rule(text, threads={t})", n, [r[:2] for r in runs])
        print(f"{'':38s} {w / base:.2f}x clir rule's wall")
        base_cpu = statistics.median(r[1] for r in runs_clir)
        runs = [timed(lambda: law.rule_arrow(table, threads=t)) for _ in range(a.runs)]
        ruled = runs[0][2]
        assert ruled.num_rows == n
        w = report(f"rule_arrow(table, threads={t})", n, [r[:2] for r in runs])
        c = statistics.median(r[1] for r in runs)
        print(f"{'':38s} {w / base:.2f}x clir rule's wall; {base_cpu / c:.2f}x its cases per CPU second")
        assert same_rulings(ruled, expected), "rule_arrow differs from clir rule"
        print(f"{'':38s} every ruling is clir rule's (compared by case id)")
    if a.spark or a.spark_only:
        spark = rule_parquet.session("local[2]")
        try:
            spark.range(1).collect()  # the session started, not timed
            runs = []
            t0 = time.perf_counter()
            for _ in range(a.runs):
                out = tmp / "rulings.parquet"
                runs.append(timed(lambda: rule_parquet.rule_parquet(spark, str(cases), str(out)), resource.RUSAGE_SELF))
            rows = pq.read_table(out).num_rows
            assert rows == n, rows
            ruled = pq.read_table(out)
            assert same_rulings(ruled, expected_lines(a)), "Spark's rulings differ from clir rule's"
            empty = statistics.median(timed(lambda: spark.range(1).collect())[0] for _ in range(3))
            print(f"{'an empty job (the warm session fixed cost)':50s} wall {empty:7.2f} s")
            # The JVM and its Python workers are not this process's children until they exit:
            # wall time only.
            wall = statistics.median(r[0] for r in runs)
            print(f"{'spark local[2]: parquet -> mapInArrow -> parquet':50s} wall {wall:7.2f} s  {n / wall:9.0f} cases/s")
            print(f"{'':50s} less the empty job: {wall - empty:7.2f} s; every ruling is clir rule's")
            flat = tmp / "flat.parquet"
            t0 = time.perf_counter()
            rule_parquet.write_flat(rule_parquet.flat_cases_table(text.splitlines()), str(flat))
            print(f"(the flat layout's Parquet written in Python, not timed: {time.perf_counter() - t0:.1f} s)")
            runs = []
            for _ in range(a.runs):
                out = tmp / "flat-rulings.parquet"
                runs.append(timed(lambda: rule_parquet.rule_parquet_flat(spark, str(flat), str(out))))
            wall = statistics.median(r[0] for r in runs)
            print(f"{'spark local[2], flat: parquet -> mapInArrow -> parquet':50s} wall {wall:7.2f} s  {n / wall:9.0f} cases/s")
            assert flat_same_rulings(pq.read_table(out), expected_lines(a)), "Spark's flat rulings differ"
            print(f"{'':50s} less the empty job: {wall - empty:7.2f} s; every ruling is clir rule's")
        finally:
            spark.stop()
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
