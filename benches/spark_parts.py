"""Issues 31 and 49: where the Spark example's time goes (benches/README.md "Issue 31", "Issue
49"). Spark in local[2] on a file of FIDE case lines: Parquet read alone, read and written back,
passed through `mapInArrow` unchanged and written, ruled by the example, and `rule_arrow` alone;
in the nested layout, or with --flat in the flat one (one row a fact).

    VENV=target/tmp/wheel-venv
    $VENV/bin/python benches/spark_parts.py GAMES.jsonl [WORK_DIR] [--flat]
"""

import sys
import tempfile
import time
from pathlib import Path

import clir_fide_laws_chess as law
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples" / "spark"))
import rule_parquet  # noqa: E402


def main():
    flat = "--flat" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--flat"]
    lines = Path(args[0]).read_text().splitlines()
    work = Path(args[1] if len(args) > 1 else tempfile.mkdtemp(prefix="clir-spark-parts-"))
    cases = str(work / "cases.parquet")
    if flat:
        rule_parquet.write_flat(rule_parquet.flat_cases_table(lines), cases)
    else:
        pq.write_table(rule_parquet.cases_table(lines), cases, row_group_size=10_000)
    example = rule_parquet.rule_parquet_flat if flat else rule_parquet.rule_parquet
    spark = rule_parquet.session("local[2]")
    spark.range(1).collect()  # the session started, not timed

    def timed(name, f):
        t0 = time.perf_counter()
        f()
        print(f"{name}: {time.perf_counter() - t0:.1f} s", flush=True)

    def unchanged(batches):
        yield from batches

    frame = spark.read.parquet(cases)
    timed("read Parquet, count", lambda: spark.read.parquet(cases).count())
    timed("read and write Parquet", lambda: frame.write.mode("overwrite").parquet(str(work / "copy")))
    timed(
        "mapInArrow unchanged, write",
        lambda: frame.mapInArrow(unchanged, frame.schema).write.mode("overwrite").parquet(str(work / "same")),
    )
    timed("the example (mapInArrow rule_arrow, write)", lambda: example(spark, cases, str(work / "r")))
    table = pq.read_table(cases)
    timed("rule_arrow alone, threads=1", lambda: law.rule_arrow(table, threads=1))
    spark.stop()
    print(f"{len(lines)} cases")


if __name__ == "__main__":
    main()
