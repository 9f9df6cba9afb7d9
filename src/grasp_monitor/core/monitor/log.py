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
        path: the log file; its folder is created; an existing log is appended to (after
            a line break if a killed writer left its last line unfinished).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open('a+b')
        self._file.seek(0, 2)
        if self._file.tell():
            self._file.seek(-1, 2)
            if self._file.read(1) != b'\n':
                self._file.write(b'\n')
        self._file.flush()

    def append(self, records: Iterable[EventRecord]) -> None:
        """Write and flush ``records``."""
        for record in records:
            self._file.write((json.dumps(record.as_strings(), sort_keys=True) + '\n')
                             .encode('utf-8'))
        self._file.flush()

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    @staticmethod
    def read(path: str | Path) -> list[EventRecord]:
        """Read every record of a log back."""
        with Path(path).open(encoding='utf-8') as lines:
            return [EventRecord.from_strings(json.loads(line)) for line in lines if line.strip()]

    @staticmethod
    def last_trial_id(path: str | Path) -> tuple[int, str]:
        """Return the highest trial id in the log at ``path`` and what was read.

        Lines that do not parse (a line a killed writer left unfinished) are skipped.
        An absent or unreadable log gives 0, with the reason.
        """
        try:
            with Path(path).open(encoding='utf-8', errors='replace') as lines:
                last, records, skipped = 0, 0, 0
                for line in lines:
                    try:
                        last = max(last, int(json.loads(line)['trial']))
                        records += 1
                    except (ValueError, KeyError, TypeError):
                        skipped += int(bool(line.strip()))
        except FileNotFoundError:
            return 0, f'no event log at {path}'
        except OSError as error:
            return 0, f'event log {path} unreadable: {error}'
        return last, (f'event log {path}: {records} records, last trial {last}'
                      + (f', {skipped} lines skipped' if skipped else ''))
