"""Reads a population directory (`sim population` output) as a user's data tools do, and prints
how long each read takes: one arm (through the row groups' statistics of `arm`) and a scan of the
whole joints table, with polars, DuckDB and pyarrow.

    python xtask/peer/read_population.py OUT ARM

Run by `cargo xtask bench-population`. Each figure is the best of three reads after one
untimed warm-up read (the files in the page cache, as they are right after the generation).
"""

import sys
import time

import duckdb
import polars as pl
import pyarrow.dataset as ds


def best(read, repeat=3):
    result = read()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = read()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main():
    out, arm = sys.argv[1], int(sys.argv[2])
    joints = f"{out}/joints/*/*.parquet"

    def polars_arm():
        return (pl.scan_parquet(joints, hive_partitioning=True)
                .filter(pl.col("arm") == arm).collect())

    def polars_scan():
        return (pl.scan_parquet(joints, hive_partitioning=True)
                .group_by("arm").agg(pl.col("tau").abs().max()).collect())

    con = duckdb.connect()
    source = f"read_parquet('{joints}', hive_partitioning = true)"

    def duckdb_arm():
        return con.sql(f"SELECT * FROM {source} WHERE arm = {arm}").to_arrow_table()

    def duckdb_scan():
        return con.sql(
            f"SELECT arm, max(abs(tau)) FROM {source} GROUP BY arm").to_arrow_table()

    dataset = ds.dataset(f"{out}/joints", format="parquet", partitioning="hive")

    def pyarrow_arm():
        return dataset.to_table(filter=ds.field("arm") == arm)

    for name, read in [("polars", polars_arm), ("duckdb", duckdb_arm),
                       ("pyarrow", pyarrow_arm)]:
        seconds, table = best(read)
        print(f"{name} one arm: {seconds * 1e3:.1f} ms ({len(table)} rows)")
    for name, read in [("polars", polars_scan), ("duckdb", duckdb_scan)]:
        seconds, table = best(read, repeat=1)
        print(f"{name} whole joints table (max |tau| per arm): {seconds:.2f} s "
              f"({len(table)} arms)")


if __name__ == "__main__":
    main()
