"""Trials as Ray tasks: a local Ray started here, or a running cluster joined by address.

Ray is an optional dependency (``pip install ray``); each worker must import
grasp_monitor (installed there, or on the ``PYTHONPATH`` a local Ray inherits).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from grasp_monitor.app.batch.trial import run_trial, Trial
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.threads import SINGLE_THREADED


def run_on_ray(trials: Sequence[Trial], finish: Callable[[int, dict[str, Any]], None],
               jobs: int, address: str | None = None) -> None:
    """Run each trial as a one-CPU Ray task; ``finish(index, row)`` as each ends.

    Args:
        trials: the trials.
        finish: called with a trial's index and its row.
        jobs: CPUs of the local Ray started here (ignored when joining ``address``).
        address: a cluster's address ('auto', 'ray://host:10001', 'host:6379'); None
            starts a local Ray and stops it at the end.
    """
    try:
        import ray
    except ImportError:
        raise ConfigError('--backend ray needs Ray: pip install "ray==2.*"') from None
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {'address': address} if address else {'num_cpus': jobs}
        ray.init(**options, include_dashboard=False, log_to_driver=False,
                 configure_logging=False,
                 runtime_env={'env_vars': dict(SINGLE_THREADED)})
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(run_trial)
        pending = {task.remote(trial): index for index, trial in enumerate(trials)}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                finish(pending.pop(ref), ray.get(ref))
    finally:
        if started:
            ray.shutdown()
