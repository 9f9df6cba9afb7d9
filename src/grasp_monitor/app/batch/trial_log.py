"""The rows of finished trials, one JSON line each, flushed as each ends: what a resume reads.

JSON keeps a float's every bit (``repr``) and NaN, so a resumed sweep's table is the
table one uninterrupted run would have written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class TrialLog:
    """``trials.jsonl`` in a sweep's output directory.

    Args:
        path: the file (created on the first row).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def rows(self) -> dict[str, dict[str, Any]]:
        """Return the rows written so far, by trial key; a line cut short by a kill is skipped."""
        rows: dict[str, dict[str, Any]] = {}
        if not self.path.is_file():
            return rows
        for line in self.path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and 'key' in row:
                rows[row['key']] = row
        return rows

    def append(self, row: dict[str, Any]) -> None:
        """Write one finished trial's row and flush it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open('a') as stream:
            # a line a kill cut short has no newline: start on a fresh one
            if stream.tell() > 0 and not self.path.read_bytes().endswith(b'\n'):
                stream.write('\n')
            stream.write(json.dumps(row) + '\n')
            stream.flush()
