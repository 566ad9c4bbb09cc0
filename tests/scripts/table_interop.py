"""Opens kld's results table (Parquet) with pandas, polars and DuckDB: the
oracle side of tests/cli/table_interop.rs.

    python3 tests/scripts/table_interop.py TABLE.parquet

Prints one JSON object: for each library, the rows it reads and, per combo,
[passed, total] over the rows whose template verification was performed
(Karenina's template_pass_by_combo: passed = verify_result true).
"""

from __future__ import annotations

import json
import sys

import duckdb
import pandas as pd
import polars as pl


def by_pandas(path: str) -> dict:
    df = pd.read_parquet(path)
    v = df[df["template_verification_performed"]]
    out = {}
    for combo, g in v.groupby("combo", sort=False):
        out[combo] = [int((g["verify_result"] == True).sum()), int(len(g))]  # noqa: E712
    return {"rows": int(len(df)), "by_combo": out}


def by_polars(path: str) -> dict:
    df = pl.read_parquet(path)
    g = (
        df.filter(pl.col("template_verification_performed"))
        .group_by("combo")
        .agg(
            pl.col("verify_result").fill_null(False).sum().alias("passed"),
            pl.len().alias("total"),
        )
    )
    out = {r["combo"]: [int(r["passed"]), int(r["total"])] for r in g.iter_rows(named=True)}
    return {"rows": df.height, "by_combo": out}


def by_duckdb(path: str) -> dict:
    con = duckdb.connect()
    rows = con.execute("SELECT count(*) FROM read_parquet(?)", [path]).fetchone()[0]
    res = con.execute(
        """SELECT combo, count(*) FILTER (WHERE verify_result) AS passed, count(*) AS total
           FROM read_parquet(?) WHERE template_verification_performed GROUP BY combo""",
        [path],
    ).fetchall()
    return {"rows": int(rows), "by_combo": {c: [int(p), int(t)] for c, p, t in res}}


def main() -> None:
    path = sys.argv[1]
    print(json.dumps({"pandas": by_pandas(path), "polars": by_polars(path), "duckdb": by_duckdb(path)}))


if __name__ == "__main__":
    main()
