"""Many benchmark runs in worker processes (``sim.process_pool``), each with its own scene."""

from __future__ import annotations

from typing import Sequence

from grasp_monitor.sim.grasp_benchmark.cases import BenchmarkCase
from grasp_monitor.sim.grasp_benchmark.progress import TextProgress
from grasp_monitor.sim.grasp_benchmark.run import BenchmarkRun, run_case
from grasp_monitor.sim.process_pool import available_cores, check_jobs, run_each

__all__ = ['available_cores', 'run_benchmark']


def run_benchmark(cases: Sequence[BenchmarkCase], jobs: int | None = None,
                  progress: bool | TextProgress = True,
                  start_method: str = 'spawn') -> list[BenchmarkRun]:
    """Run every case, ``jobs`` at a time in worker processes; results in case order.

    Args:
        cases: the runs.
        jobs: worker processes (default: the available cores), each started
            with one BLAS thread (``core.threads.SINGLE_THREADED``); 1 runs them here, one
            after the other, with this process's BLAS threads.
        progress: show a ``TextProgress`` on standard error (True), none
            (False), or this one.
        start_method: how workers start ('spawn', 'fork' or 'forkserver');
            'spawn' is safe wherever MuJoCo runs.

    Returns:
        One run per case, in the order of ``cases``.
    """
    cases = list(cases)
    jobs = check_jobs(jobs)
    bar = progress if isinstance(progress, TextProgress) else (
        TextProgress(sum(c.duration_s for c in cases), len(cases)) if progress else None)
    results: list[BenchmarkRun | None] = [None] * len(cases)
    reported = [0.0] * len(cases)

    def finish(index: int, run: BenchmarkRun) -> None:
        results[index] = run
        if bar is not None:
            bar.run_finished(run, max(0.0, cases[index].duration_s - reported[index]))

    def advance(index: int, seconds: float) -> None:
        reported[index] += seconds
        if bar is not None:
            bar.advance(seconds)

    # The longest runs first, so the last ones to finish are short.
    order = sorted(range(len(cases)),
                   key=lambda i: (-cases[i].duration_s / cases[i].settings.timestep_s
                                  * cases[i].n_cubes, i))
    try:
        run_each(run_case, cases, jobs, finish, advance, order, start_method)
    finally:
        if bar is not None:
            bar.close()
    return [run for run in results if run is not None]
