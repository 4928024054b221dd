"""Issue 31: where the Spark example's time goes (benches/README.md "Issue 31"). Spark in
local[2] on a file of FIDE case lines: Parquet read alone, read and written back, passed
through `mapInArrow` unchanged and written, ruled by the example, and `rule_arrow` alone.

    VENV=target/tmp/wheel-venv
    $VENV/bin/python benches/spark_parts.py GAMES.jsonl [WORK_DIR]
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
    lines = Path(sys.argv[1]).read_text().splitlines()
    work = Path(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="clir-spark-parts-"))
    cases = str(work / "cases.parquet")
    pq.write_table(rule_parquet.cases_table(lines), cases, row_group_size=10_000)
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
    timed("the example (mapInArrow rule_arrow, write)", lambda: rule_parquet.rule_parquet(spark, cases, str(work / "r")))
    table = pq.read_table(cases)
    timed("rule_arrow alone, threads=1", lambda: law.rule_arrow(table, threads=1))
    spark.stop()
    print(f"{len(lines)} cases")


if __name__ == "__main__":
    main()
