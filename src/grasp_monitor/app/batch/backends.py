"""Where a sweep's trials run: here one by one, local processes, or a Ray cluster.

Every backend runs the same ``run_trial`` on the same trials, so their rows agree to the
bit (the timing columns aside).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from grasp_monitor.app.batch.trial import run_trial, Trial
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.process_pool import check_jobs, run_each

BACKENDS = ('serial', 'process', 'ray')
DEFAULT_BACKEND = 'process'


def run_trials(trials: Sequence[Trial], finish: Callable[[int, dict[str, Any]], None],
               backend: str = DEFAULT_BACKEND, jobs: int | None = None,
               address: str | None = None) -> None:
    """Run every trial; ``finish(index, row)`` in this process as each ends.

    Args:
        trials: the trials.
        finish: called with a trial's index in ``trials`` and its row.
        backend: 'serial' (this process), 'process' (``jobs`` local processes) or 'ray'.
        jobs: processes, or Ray CPUs of a local Ray (default: the available cores).
        address: a Ray cluster to join (default: start a local one).

    Raises:
        ConfigError: an unknown backend, jobs < 1, or an address without Ray.
    """
    if backend not in BACKENDS:
        raise ConfigError(f'backend {backend!r} is not one of {", ".join(BACKENDS)}')
    if address and backend != 'ray':
        raise ConfigError(f'--address {address} joins a Ray cluster: use it with --backend ray')
    jobs = 1 if backend == 'serial' else check_jobs(jobs)
    if backend == 'ray':
        from grasp_monitor.app.batch.ray_backend import run_on_ray
        run_on_ray(trials, finish, jobs, address)
    else:
        run_each(run_trial, trials, jobs, finish)
