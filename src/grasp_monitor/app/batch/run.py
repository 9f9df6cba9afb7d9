"""A sweep run end to end: skip the finished trials, run the rest, write the table and plot."""

from __future__ import annotations

import dataclasses
from pathlib import Path
import shutil
import sys
import time
from typing import Any, TextIO

from grasp_monitor.app.batch.backends import DEFAULT_BACKEND, run_trials
from grasp_monitor.app.batch.plots import plot_summary
from grasp_monitor.app.batch.sweep import Sweep
from grasp_monitor.app.batch.table import write_table
from grasp_monitor.app.batch.trial_log import TrialLog
from grasp_monitor.sim.grasp_benchmark.progress import TextProgress


@dataclasses.dataclass(frozen=True)
class BatchResult:
    """What a sweep run did.

    Attributes:
        rows: one per trial, in the sweep's order.
        ran: trials run now; the others were finished before (a resume).
        wall_time_s: wall-clock time of this run's trials, s.
        files: the Parquet table, the CSV, the plot.
    """

    rows: list[dict[str, Any]]
    ran: int
    wall_time_s: float
    files: tuple[Path, ...]


def run_batch(sweep: Sweep, output_dir: Path | str, backend: str = DEFAULT_BACKEND,
              jobs: int | None = None, address: str | None = None,
              progress: TextIO | None = sys.stderr) -> BatchResult:
    """Run the sweep's unfinished trials and write ``output_dir``'s table and plot.

    ``output_dir`` gets ``trials.jsonl`` (each finished trial's row, as it ends: a run
    started again on the same directory runs only the trials missing there),
    ``sweep.yaml`` (a copy of the sweep), ``results.parquet``, ``results.csv`` and
    ``summary.png``.

    Args:
        sweep: the trials.
        output_dir: where the results go.
        backend: 'serial', 'process' or 'ray' (``backends.run_trials``).
        jobs: processes, or CPUs of a local Ray (default: the available cores).
        address: a Ray cluster to join (default: start a local Ray).
        progress: where the progress lines go (None: nowhere).
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    if sweep.path.is_file() and sweep.path.resolve() != (output_dir / 'sweep.yaml').resolve():
        shutil.copyfile(sweep.path, output_dir / 'sweep.yaml')
    log = TrialLog(output_dir / 'trials.jsonl')
    done = log.rows()
    todo = list(dict.fromkeys(t for t in sweep.trials if t.key not in done))
    bar = TextProgress(sum(t.duration_s for t in todo), len(todo),
                       progress) if progress is not None and todo else None
    if progress is not None and len(todo) < len(sweep.trials):
        print(f'{len(sweep.trials) - len(todo)} of {len(sweep.trials)} trials finished before; '
              f'running {len(todo)}', file=progress)

    def finish(index: int, row: dict[str, Any]) -> None:
        log.append(row)
        done[row['key']] = row
        if bar is not None:
            trial = todo[index]
            values = ' '.join(f'{name}={value}' for name, value in trial.values)
            bar.finished_line(f'{values}: {row["events"] or "no events"}, reward '
                              f'{row["reward"]:.3f}', trial.duration_s)

    start = time.perf_counter()
    try:
        run_trials(todo, finish, backend, jobs, address)
    finally:
        if bar is not None:
            bar.close()
    wall_s = time.perf_counter() - start
    rows = [{'trial': i} | done[trial.key] for i, trial in enumerate(sweep.trials)]
    parquet, csv = write_table(rows, output_dir)
    png = plot_summary(rows, sweep.names, output_dir / 'summary.png',
                       f'{sweep.path.name}: {sweep.scenario}, {len(rows)} trials')
    return BatchResult(rows, len(todo), wall_s, (parquet, csv, png))
