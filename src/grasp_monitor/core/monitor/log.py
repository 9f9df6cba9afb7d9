"""An append-only JSON-lines log of event records, flushed per record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from grasp_monitor.core.monitor.records import EventRecord


class EventLog:
    """Appends each record as one JSON line and flushes it at once.

    The line reaches the operating system before ``append`` returns, so a
    process killed with SIGKILL loses no record already appended.

    Args:
        path: the log file; its folder is created; an existing log is appended to.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open('a', encoding='utf-8')

    def append(self, records: Iterable[EventRecord]) -> None:
        """Write and flush ``records``."""
        for record in records:
            self._file.write(json.dumps(record.as_strings(), sort_keys=True) + '\n')
        self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    @staticmethod
    def read(path: str | Path) -> list[EventRecord]:
        """Read every record of a log back."""
        with Path(path).open(encoding='utf-8') as lines:
            return [EventRecord.from_strings(json.loads(line)) for line in lines if line.strip()]
