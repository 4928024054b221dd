"""Rules a Parquet file of cases with PySpark and writes the rulings as Parquet: the
`mapInArrow` recipe of docs/PYTHON.md, with the wheel `clir wheel` builds for fide.laws.chess.

    python rule_parquet.py cases.parquet rulings.parquet [--master 'local[2]'] [--nested]
    python rule_parquet.py --to-parquet games.jsonl cases.parquet [--nested]  # JSON Lines -> Parquet

By default cases and rulings are in the flat layout (`input_schema(flat=True)`,
`output_schema(flat=True)`: one row a fact), which Spark moves about twelve times faster than the
nested one (benches/README.md "Issue 49"); with --nested, in the nested layout (`input_schema()`,
`output_schema()`, one row a case; it alone has `why_not` and `as_of`).
`examples/spark/test_spark.py` checks both against `clir rule`.
"""

import argparse
import json
import sys
import time

import clir_fide_laws_chess as law
import pyarrow as pa
import pyarrow.parquet as pq


def cases_table(lines):
    """JSON Lines case lines as a table in the input layout."""
    schema = law.input_schema()
    rows = []
    for line in lines:
        if not line.strip():
            continue
        case = json.loads(line)
        row = {"case": case["case"]}
        for key, tuples in case["facts"].items():
            names = [f.name for f in schema.field(key).type.value_type]
            row[key] = [dict(zip(names, t)) for t in tuples]
        for key in ("why_not", "as_of"):
            if key in case:
                row[key] = case[key]
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=schema)


def flat_cases_table(lines):
    """JSON Lines case lines as a table in the flat layout (input_schema(flat=True)): one row a
    fact, a row of its own for a case without facts; `why_not` and `as_of` are not in it."""
    schema = law.input_schema(flat=True)
    arity = (len(schema) - 2) // 2
    cols = {f.name: [] for f in schema}
    for line in lines:
        if not line.strip():
            continue
        case = json.loads(line)
        facts = [(key, t) for key, tuples in case["facts"].items() for t in tuples] or [(None, [])]
        for key, args in facts:
            cols["case"].append(case["case"])
            cols["relation"].append(key)
            for j in range(arity):
                a = args[j] if j < len(args) else None
                cols[f"e{j}"].append(a if isinstance(a, str) else None)
                cols[f"n{j}"].append(a if isinstance(a, int) and not isinstance(a, bool) else None)
    return pa.table(cols, schema=schema)


def write_flat(table, path, cases_per_group=10_000):
    """Writes a flat table as Parquet in row groups of whole cases: Spark splits a file into tasks
    by row groups, and a case's rows must reach one task."""
    cases = table.column("case").to_pylist()
    with pq.ParquetWriter(path, table.schema) as writer:
        start, seen, last = 0, 0, object()
        for i, c in enumerate(cases):
            if c != last:
                if seen == cases_per_group:
                    writer.write_table(table.slice(start, i - start), row_group_size=i - start)
                    start, seen = i, 0
                seen, last = seen + 1, c
        writer.write_table(table.slice(start), row_group_size=max(1, len(cases) - start))


def rule_parquet_flat(spark, cases, rulings):
    """Rules the Parquet cases at `cases` in the flat layout on `spark` (its row groups of whole
    cases, as write_flat writes them), writing the flat rulings to `rulings`."""
    from pyspark.sql.pandas.types import from_arrow_schema

    def rule_partition(batches):
        """The cases of a partition: Spark cuts its batches by rows, so the rows of the last case
        of a batch are held back and ruled with the next batch."""
        import pyarrow as pa

        import clir_fide_laws_chess as law  # on the executor

        held = None
        for batch in batches:
            table = pa.Table.from_batches([batch])
            if held is not None:
                table = pa.concat_tables([held, table])
            cases = table.column("case")
            n = table.num_rows
            start = n
            while start > 0 and cases[start - 1] == cases[n - 1]:
                start -= 1
            held = table.slice(start)
            if start > 0:
                yield from law.rule_arrow(table.slice(0, start).combine_chunks(), threads=1).to_batches()
        if held is not None and held.num_rows > 0:
            yield from law.rule_arrow(held.combine_chunks(), threads=1).to_batches()

    frame = spark.read.parquet(cases)
    ruled = frame.mapInArrow(rule_partition, from_arrow_schema(law.output_schema(flat=True)))
    ruled.write.mode("overwrite").parquet(rulings)


def rule_parquet(spark, cases, rulings):
    """Rules the Parquet cases at `cases` on `spark`, writing the rulings to `rulings`."""
    from pyspark.sql.pandas.types import from_arrow_schema

    # Defined here, so that Spark ships the function itself to its Python workers (by value),
    # not a reference to this file's module, which they may not have.
    def rule_partition(batches):
        """One ruled batch per batch of cases of a partition."""
        import clir_fide_laws_chess as law  # on the executor

        for batch in batches:
            # Spark already runs one task per core.
            yield law.rule_arrow(batch, threads=1)

    frame = spark.read.parquet(cases)
    ruled = frame.mapInArrow(rule_partition, from_arrow_schema(law.output_schema()))
    ruled.write.mode("overwrite").parquet(rulings)


def session(master):
    """A Spark session on `master` whose Python workers run this interpreter (its venv has the
    wheel and pyarrow)."""
    import os

    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    return (
        SparkSession.builder.master(master)
        .appName("clir rule_parquet")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--to-parquet", action="store_true", help="convert JSON Lines cases to Parquet, then stop")
    parser.add_argument("--nested", action="store_true", help="the nested layout (one row a case), not the flat one")
    args = parser.parse_args(argv)
    if args.to_parquet:
        with open(args.input, encoding="utf-8") as f:
            if args.nested:
                # Row groups of 10,000 cases: Spark splits a file by row groups into tasks.
                pq.write_table(cases_table(f), args.output, row_group_size=10_000)
            else:
                write_flat(flat_cases_table(f), args.output)
        return 0
    spark = session(args.master)
    try:
        started = time.perf_counter()
        (rule_parquet if args.nested else rule_parquet_flat)(spark, args.input, args.output)
        print(f"ruled {args.input} into {args.output} in {time.perf_counter() - started:.2f} s", file=sys.stderr)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
