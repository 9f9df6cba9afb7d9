"""A 1,000-trial pick_lift sweep over local processes: its rate, its outcomes, its plot.

    python benchmarks/bench_sweep.py [--sweep SWEEP.yaml] [--jobs N] [--limit N]
        [--plot PNG]

Runs the sweep file through ``grasp-monitor batch``'s ``run_batch`` (process backend,
``--jobs`` processes, default every core) into a fresh directory, copies its
``summary.png`` to ``--plot`` and prints a Markdown snippet: trials per second, how many
trials reached each event, the reward's spread, and the mean reward and the share of
trials that ended with the object lifted (its centre ``--lifted-z`` m or higher: 5 cm above
pick_lift's object at rest on its table) for each mass and friction. ``--limit`` runs
only the first N trials (a smoke test).
"""

import argparse
from pathlib import Path
import shutil
import sys
import tempfile

try:
    import grasp_monitor  # noqa: F401
except ImportError:  # a checkout that is not installed: use its src/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from grasp_monitor.app.batch import run_batch, Sweep  # noqa: E402, I100
from grasp_monitor.app.batch.row import EVENT_COLUMNS  # noqa: E402
from grasp_monitor.sim.process_pool import check_jobs  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def table(rows, row_name, column_name, lifted_z):
    """Print mean reward / share lifted for each (row value, column value)."""
    row_values = sorted({row[row_name] for row in rows})
    column_values = sorted({row[column_name] for row in rows})
    print(f'| {row_name} \\ {column_name} | ' + ' | '.join(f'{v:g}' for v in column_values)
          + ' |')
    print('|---' * (len(column_values) + 1) + '|')
    for r in row_values:
        cells = []
        for c in column_values:
            cell = [row for row in rows if row[row_name] == r and row[column_name] == c]
            reward = np.mean([row['reward'] for row in cell])
            held = np.mean([row['object_z_m'] >= lifted_z for row in cell])
            cells.append(f'{reward:.2f} / {held:.0%}')
        print(f'| {r:g} | ' + ' | '.join(cells) + ' |')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--sweep', default=str(ROOT / 'examples' / 'sweep_pick_lift_1000.yaml'))
    parser.add_argument('--jobs', type=int, default=None, help='processes (default: every core)')
    parser.add_argument('--limit', type=int, default=None, help='run only the first N trials')
    parser.add_argument('--lifted-z', type=float, default=0.475,
                        help="an object's centre this high at the end is lifted, m")
    parser.add_argument('--plot', default=None,
                        help='copy the summary plot here (default: none)')
    args = parser.parse_args()
    sweep = Sweep.from_file(args.sweep)
    jobs = check_jobs(args.jobs)
    if args.limit is not None:
        sweep = Sweep(sweep.path, sweep.scenario, sweep.names, sweep.trials[:args.limit])
    with tempfile.TemporaryDirectory() as directory:
        result = run_batch(sweep, Path(directory), 'process', jobs, progress=None)
        if args.plot:
            shutil.copyfile(result.files[2], args.plot)
    rows = result.rows
    n = len(rows)
    name = Path(args.sweep).relative_to(ROOT) if Path(args.sweep).is_relative_to(ROOT) \
        else args.sweep
    print(f'### Sweep `{name}`: {n} trials of {sweep.scenario}')
    print()
    print(f'Wall {result.wall_time_s:.1f} s on the process backend '
          f'({jobs} processes): **{n / result.wall_time_s:.2f} trials/s**, '
          f'{sum(row["sim_time_s"] for row in rows) / result.wall_time_s:.1f} simulated s per '
          'wall s. Swept: ' + ', '.join(f'`{v}`' for v in sweep.names) + '.')
    print()
    counts = {kind: sum(np.isfinite(row[f'{kind}_time_s']) for row in rows)
              for kind in EVENT_COLUMNS}
    print('Trials that reached each event: ' + ', '.join(
        f'{kind} {count}' for kind, count in counts.items()) + '.')
    rewards = np.array([row['reward'] for row in rows])
    print(f'Reward: min {rewards.min():.3f}, median {np.median(rewards):.3f}, '
          f'max {rewards.max():.3f}; diverged: {sum(row["diverged"] for row in rows)}.')
    print()
    if 'object_mass_kg' in sweep.names and 'friction' in sweep.names:
        print(f'Mean reward / share of trials that ended with the object lifted (centre at '
              f'{args.lifted_z:g} m or higher), per mass and friction, over grip forces and '
              'seeds:')
        print()
        table(rows, 'object_mass_kg', 'friction', args.lifted_z)
        print()
    if args.plot:
        plot = Path(args.plot).resolve()
        shown = plot.relative_to(ROOT) if plot.is_relative_to(ROOT) else plot
        print(f'Plot: `{shown}` (criteria and reward against each swept name; a dot per '
              'trial, the line joins the means).')
    return 0


if __name__ == '__main__':
    sys.exit(main())
