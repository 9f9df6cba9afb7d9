"""Batch trials: sweeps of scenario parameters and physics settings (``grasp-monitor batch``).

``sweep``: the sweep file and its trials; ``names``: what a swept name sets; ``trial``:
one trial, run as ``grasp-monitor run`` runs it; ``row``: its result as a table row;
``backends`` (and ``ray_backend``): where the trials run; ``trial_log``: finished rows,
what a resume reads; ``table``: Parquet and CSV; ``plots``: the summary PNG; ``run``: all
of it in order.
"""

from grasp_monitor.app.batch.backends import BACKENDS, DEFAULT_BACKEND, run_trials
from grasp_monitor.app.batch.row import result_columns, TIMING_COLUMNS
from grasp_monitor.app.batch.run import BatchResult, run_batch
from grasp_monitor.app.batch.sweep import Sweep
from grasp_monitor.app.batch.table import read_table, write_table
from grasp_monitor.app.batch.trial import run_trial, Trial

__all__ = [
    'BACKENDS', 'BatchResult', 'DEFAULT_BACKEND', 'read_table', 'result_columns', 'run_batch',
    'run_trial', 'run_trials', 'Sweep', 'TIMING_COLUMNS', 'Trial', 'write_table',
]
