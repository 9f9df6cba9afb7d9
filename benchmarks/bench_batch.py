"""Batch trials per second: serial, local processes, local Ray; prints a Markdown snippet.

    python benchmarks/bench_batch.py [--trials 128] [--duration 6] [--jobs 2]

The same pick_lift sweep (object mass x grip force, ``--trials`` of them) runs through
``grasp-monitor batch``'s ``run_batch`` three times, each into a fresh directory: in this
process one trial after the other, in ``--jobs`` local processes, and on a local Ray
with ``--jobs`` CPUs (its start and stop counted). Scaling is the processes' rate over
``jobs`` times the serial rate. The rows of the three are compared to the bit, the
wall-time columns aside. Each worker process pays its start (spawn, imports, the first
trial's loads of compiled kernels) once, as the serial run pays its imports once: a sweep
of a few seconds' work cannot scale, so the default is one of about 40 s serial, small
beside the sweeps people run (``examples/``).
"""

import argparse
import json
from pathlib import Path
import sys
import tempfile

try:
    import grasp_monitor  # noqa: F401
except ImportError:  # a checkout that is not installed: use its src/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from grasp_monitor.app.batch import run_batch, Sweep, TIMING_COLUMNS  # noqa: E402, I100


def sweep(trials, duration_s, directory):
    """Return a grid of about ``trials`` pick_lift trials (mass x grip force)."""
    masses = max(1, trials // 2)
    spec = {'scenario': 'pick_lift', 'duration': duration_s, 'grid': {
        'object_mass_kg': [round(0.1 + 0.4 * i / max(1, masses - 1), 4) for i in range(masses)],
        'grasp_controller.grip_force': [8.0, 15.0][:max(1, trials // masses)]}}
    return Sweep.from_dict(spec, Path(directory) / 'bench_sweep.yaml')


def exact(rows):
    """Return the rows as exact text, timing aside."""
    return [json.dumps({k: v for k, v in row.items() if k not in TIMING_COLUMNS},
                       sort_keys=True) for row in rows]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--trials', type=int, default=128)
    parser.add_argument('--duration', type=float, default=6.0, help='simulated s per trial')
    parser.add_argument('--jobs', type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        plan = sweep(args.trials, args.duration, directory)
        runs = {}
        for backend, jobs in (('serial', 1), ('process', args.jobs), ('ray', args.jobs)):
            runs[backend] = run_batch(plan, Path(directory) / backend, backend, jobs,
                                      progress=None)
    n = len(plan.trials)
    rate = {name: n / run.wall_time_s for name, run in runs.items()}
    same = exact(runs['process'].rows) == exact(runs['serial'].rows) == \
        exact(runs['ray'].rows)
    print('### Batch trials (`benchmarks/bench_batch.py`)')
    print()
    print(f'{n} pick_lift trials of {args.duration:g} simulated s (object mass x grip force; '
          'the offline pipeline with monitors, criteria, reward, energy, epsilon), wall '
          'time of `run_batch` (Ray: its start and stop included).')
    print()
    print('| backend | jobs | wall s | trials/s | × serial |')
    print('|---|---|---|---|---|')
    for name, jobs in (('serial', 1), ('process', args.jobs), ('ray', args.jobs)):
        print(f'| {name} | {jobs} | {runs[name].wall_time_s:.2f} | {rate[name]:.2f} | '
              f'{rate[name] / rate["serial"]:.2f} |')
    print()
    start_s = runs['process'].wall_time_s - runs['serial'].wall_time_s / args.jobs
    print(f"The processes' start beyond an even share of the serial time: {start_s:.2f} s "
          '(process wall − serial wall / jobs: spawn, imports, first loads of compiled '
          "kernels, the last trial's wait).")
    print()
    print(f'Scaling over {args.jobs} local processes: '
          f'{rate["process"] / (args.jobs * rate["serial"]):.2f} of linear (target ≥ 0.9). '
          f'Rows identical to the bit on the three backends (timing columns aside): '
          f'{"yes" if same else "NO"}.')
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
