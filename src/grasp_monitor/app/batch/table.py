"""A sweep's results as one table: Parquet (pyarrow) and CSV, one row per trial."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence


def write_table(rows: Sequence[dict[str, Any]], output_dir: Path) -> tuple[Path, Path]:
    """Write ``results.parquet`` and ``results.csv`` with a column per key of any row.

    A column a row lacks (an object or pad another trial's scene has) is null there.

    Returns:
        The Parquet and the CSV file.
    """
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.parquet

    columns = list(dict.fromkeys(key for row in rows for key in row))
    table = pa.Table.from_pylist([{key: row.get(key) for key in columns} for row in rows])
    output_dir.mkdir(parents=True, exist_ok=True)
    parquet, csv = output_dir / 'results.parquet', output_dir / 'results.csv'
    pyarrow.parquet.write_table(table, parquet)
    pyarrow.csv.write_csv(table, csv)
    return parquet, csv


def read_table(path: Path) -> list[dict[str, Any]]:
    """Return the rows of a ``results.parquet``."""
    import pyarrow.parquet
    return pyarrow.parquet.read_table(path).to_pylist()
