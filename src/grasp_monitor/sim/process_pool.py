"""Work items fanned over local worker processes, each result handed back as it finishes.

The benchmark's runs and the batch command's trials both go through ``run_each``: one
function, run once per item, in this process (one job) or in spawned workers, each
with one BLAS thread (``core.threads.SINGLE_THREADED``).
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
import multiprocessing
import os
import queue
from typing import Any, Callable, Optional, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.threads import single_threaded_children

#: Called with a progress amount while an item runs (None: nobody listens).
Report = Optional[Callable[[float], None]]
#: The work: a module-level function of (item, report), so that workers can import it.
Work = Callable[[Any, Report], Any]


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_jobs(jobs: int | None) -> int:
    """Return ``jobs`` (None: the available cores), refused below 1."""
    jobs = available_cores() if jobs is None else int(jobs)
    if jobs < 1:
        raise ConfigError(f'jobs must be >= 1, got {jobs}')
    return jobs


#: The progress queue of a worker process, set by ``_init_worker``.
_worker_queue: Any = None


def _init_worker(progress_queue: Any) -> None:
    global _worker_queue
    _worker_queue = progress_queue


def _run_in_worker(work: Work, index: int, item: Any) -> Any:
    progress_queue = _worker_queue
    if progress_queue is None:
        return work(item, None)
    return work(item, lambda amount: progress_queue.put((index, amount)))


def run_each(work: Work, items: Sequence[Any], jobs: int,
             finish: Callable[[int, Any], None],
             advance: Callable[[int, float], None] | None = None,
             order: Sequence[int] | None = None, start_method: str = 'spawn') -> None:
    """Run ``work`` on every item, ``jobs`` at a time; ``finish(index, result)`` as each ends.

    Args:
        work: the function, called as ``work(item, report)``.
        items: the work items.
        jobs: worker processes; 1 runs the items here, one after the other.
        finish: called in this process with each item's index and result.
        advance: called in this process with an item's index and each amount it reports
            (None: the work gets no report function).
        order: the order to start the items in (default: as given).
        start_method: how workers start ('spawn', 'fork' or 'forkserver');
            'spawn' is safe wherever MuJoCo runs.
    """
    order = list(range(len(items))) if order is None else list(order)
    if jobs == 1 or len(items) <= 1:
        for index in order:
            report = None if advance is None else \
                (lambda amount, index=index: advance(index, amount))
            finish(index, work(items[index], report))
        return
    context = multiprocessing.get_context(start_method)
    progress_queue = context.Queue() if advance is not None else None

    def drain() -> None:
        while progress_queue is not None and advance is not None:
            try:
                index, amount = progress_queue.get_nowait()
            except queue.Empty:
                return
            advance(index, amount)

    with single_threaded_children():  # read by each worker as it starts
        with ProcessPoolExecutor(max_workers=min(jobs, len(items)), mp_context=context,
                                 initializer=_init_worker, initargs=(progress_queue,)) as pool:
            futures: dict[Future[Any], int] = {
                pool.submit(_run_in_worker, work, index, items[index]): index
                for index in order}
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
