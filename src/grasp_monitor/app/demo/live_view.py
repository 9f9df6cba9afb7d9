"""The demo's live console view: a redrawn block on a TTY, plain lines otherwise."""

from __future__ import annotations

import time
from typing import TextIO

from grasp_monitor.app.demo.report import event_line


class LiveView:
    """The live console view: a redrawn block on a TTY, plain lines otherwise."""

    def __init__(self, stream: TextIO, redraw: bool):
        self.stream = stream
        self.redraw = redraw
        self._drawn = 0
        self._last_line_s = 0.0
        self._start_s = time.monotonic()

    def note(self, text: str) -> None:
        """Print a line above the block, after the wall time since the start."""
        self._clear()
        print(f'[{time.monotonic() - self._start_s:5.1f} s] {text}', file=self.stream,
              flush=True)

    def event(self, event: dict[str, str]) -> None:
        """Show an event as it fires."""
        self.note(event_line(event))

    def status(self, lines: list[str]) -> None:
        """Redraw the block, or print it as one line each second of wall time."""
        if self.redraw:
            self._clear()
            print('\n'.join(lines), file=self.stream, flush=True)
            self._drawn = len(lines)
        elif time.monotonic() - self._last_line_s >= 1.0:
            self._last_line_s = time.monotonic()
            self.note(' | '.join(line.strip() for line in lines))

    def _clear(self) -> None:
        if self.redraw and self._drawn:
            self.stream.write(f'\x1b[{self._drawn}F\x1b[J')  # up to the block, clear below
            self._drawn = 0
