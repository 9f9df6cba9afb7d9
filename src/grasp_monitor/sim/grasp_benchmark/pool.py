"""Many benchmark runs in worker processes, each with its own scene and ``Simulator``."""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
import multiprocessing
import os
import queue
from typing import Any, Callable, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.threads import single_threaded_children
from grasp_monitor.sim.grasp_benchmark.cases import BenchmarkCase
from grasp_monitor.sim.grasp_benchmark.progress import TextProgress
from grasp_monitor.sim.grasp_benchmark.run import BenchmarkRun, run_case


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


#: The progress queue of a worker process, set by ``_init_worker``.
_worker_queue: Any = None


def _init_worker(progress_queue: Any) -> None:
    global _worker_queue
    _worker_queue = progress_queue


def _run_in_worker(index: int, case: BenchmarkCase) -> BenchmarkRun:
    progress_queue = _worker_queue
    if progress_queue is None:
        return run_case(case)
    return run_case(case, lambda seconds: progress_queue.put((index, seconds)))


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
    jobs = available_cores() if jobs is None else int(jobs)
    if jobs < 1:
        raise ConfigError(f'jobs must be >= 1, got {jobs}')
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
        if jobs == 1 or len(cases) <= 1:
            for index in order:
                finish(index, run_case(cases[index],
                                       lambda seconds, index=index: advance(index, seconds)))
        else:
            _run_pool(cases, order, min(jobs, len(cases)), start_method, advance, finish)
    finally:
        if bar is not None:
            bar.close()
    return [run for run in results if run is not None]


def _run_pool(cases: list[BenchmarkCase], order: list[int], jobs: int, start_method: str,
              advance: Callable[[int, float], None],
              finish: Callable[[int, BenchmarkRun], None]) -> None:
    context = multiprocessing.get_context(start_method)
    progress_queue = context.Queue()

    def drain() -> None:
        while True:
            try:
                index, seconds = progress_queue.get_nowait()
            except queue.Empty:
                return
            advance(index, seconds)

    with single_threaded_children():  # read by each worker as it starts
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                 initializer=_init_worker, initargs=(progress_queue,)) as pool:
            futures: dict[Future[BenchmarkRun], int] = {
                pool.submit(_run_in_worker, index, cases[index]): index for index in order}
            pending = set(futures)
            try:
                while pending:
                    done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    drain()
                    for future in done:
                        finish(futures[future], future.result())
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
            drain()
