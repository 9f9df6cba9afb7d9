"""A text progress bar of simulated seconds, for the benchmark's runs and the batch trials."""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

from grasp_monitor.sim.grasp_benchmark.run import BenchmarkRun


class TextProgress:
    """A text progress bar of simulated seconds, redrawn in place on a terminal.

    On a terminal the bar is redrawn on one line (at most every 0.2 s) and a
    line is printed as each run ends; elsewhere (a log, a pipe) only those
    lines are printed.

    Args:
        total_s: simulated seconds of all runs.
        runs: number of runs.
        stream: where to write (standard error by default).
    """

    def __init__(self, total_s: float, runs: int, stream: TextIO | None = None) -> None:
        self.total_s = total_s
        self.runs = runs
        self.stream = stream if stream is not None else sys.stderr
        self.done_s = 0.0
        self.finished = 0
        self._start = time.monotonic()
        self._drawn = 0.0
        self._tty = bool(getattr(self.stream, 'isatty', lambda: False)())

    def advance(self, seconds: float) -> None:
        """Count ``seconds`` more simulated time."""
        self.done_s = min(self.total_s, self.done_s + seconds)
        if self._tty and time.monotonic() - self._drawn > 0.2:
            self._draw()

    def run_finished(self, run: BenchmarkRun, remaining_s: float) -> None:
        """Count a finished run and the simulated time it skipped by ending early."""
        when = (f'failed at {run.termination_time_s:.3f} s' if run.failed
                else f'held {run.termination_time_s:g} s')
        if run.diverged:
            when = f'diverged at {run.termination_time_s:.3f} s'
        self.finished_line(
            f'{run.case.scenario} {run.case.label}: {when},'
            f' peak {run.peak_energy_j:.3g} J, final {run.final_energy_j:.3g} J,'
            f' {run.cpu_time_s:.1f} s CPU (real-time factor {run.real_time_factor:.1f})',
            remaining_s)

    def finished_line(self, text: str, remaining_s: float = 0.0) -> None:
        """Count a finished run and the simulated time it skipped; print its line and ETA."""
        self.finished += 1
        self.done_s = min(self.total_s, self.done_s + remaining_s)
        self._clear()
        print(f'[{self.finished}/{self.runs}] {text}; eta {self.eta_text()}',
              file=self.stream, flush=True)
        if self._tty:
            self._draw()

    def eta_text(self) -> str:
        """Return the time left, as the elapsed time per simulated second so far predicts it."""
        fraction = self.done_s / self.total_s if self.total_s > 0 else 1.0
        elapsed = time.monotonic() - self._start
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else math.nan
        return _clock(eta) if math.isfinite(eta) else '--:--'

    def close(self) -> None:
        """End the bar's line."""
        if self._tty:
            self._draw()
            print(file=self.stream, flush=True)

    def _clear(self) -> None:
        if self._tty:
            self.stream.write('\r\033[K')

    def _draw(self) -> None:
        self._drawn = time.monotonic()
        width = 30
        fraction = self.done_s / self.total_s if self.total_s > 0 else 1.0
        filled = int(round(width * fraction))
        elapsed = self._drawn - self._start
        self.stream.write(
            f'\r[{"#" * filled}{"." * (width - filled)}] {100 * fraction:3.0f} %'
            f' {self.finished}/{self.runs} runs {self.done_s:.0f}/{self.total_s:.0f} sim s'
            f' elapsed {_clock(elapsed)} eta {self.eta_text()}')
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f'{hours}:{minutes:02d}:{seconds:02d}' if hours else f'{minutes:02d}:{seconds:02d}'
