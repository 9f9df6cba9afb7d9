"""``grasp-monitor batch``: a sweep file's trials offline, over every core or a Ray cluster."""

from __future__ import annotations

import argparse
from pathlib import Path
import sys

from grasp_monitor.app.batch.backends import BACKENDS, DEFAULT_BACKEND

HELP = 'run a sweep of trials offline over every core or a Ray cluster'
DESCRIPTION = (
    'Run every trial of a sweep file (a scenario, a duration, and a grid, a list or random '
    'draws of scenario parameters, physics settings and <node>.<parameter> values; '
    'docs/batch.md) as `grasp-monitor run` runs one, and write <output-dir>/results.parquet '
    'and results.csv (a row per trial: its values, events, criteria, reward, energy, epsilon) '
    'and summary.png (criteria and reward against each swept name). Trials finished in '
    '<output-dir> before are not run again.')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the sweep file, the output folder and where trials run."""
    parser.add_argument('sweep', type=Path, help='the sweep file (YAML)')
    parser.add_argument('--output-dir', type=Path, required=True,
                        help='where the results go; run again on it to resume')
    parser.add_argument('--backend', choices=BACKENDS, default=DEFAULT_BACKEND,
                        help=f'where trials run (default {DEFAULT_BACKEND}: local processes)')
    parser.add_argument('--jobs', type=int,
                        help='processes, or CPUs of a local Ray (default: the available cores)')
    parser.add_argument('--address',
                        help="with --backend ray: join this cluster ('auto', "
                        "'ray://host:10001') instead of starting a local Ray")
    parser.add_argument('--quiet', action='store_true', help='no progress on standard error')


def run(args: argparse.Namespace) -> int:
    """Run the sweep's trials not run before; print how many and the files written."""
    from grasp_monitor.app.batch import run_batch, Sweep
    sweep = Sweep.from_file(args.sweep)
    result = run_batch(sweep, args.output_dir, args.backend, args.jobs, args.address,
                       progress=None if args.quiet else sys.stderr)
    rate = result.ran / result.wall_time_s if result.wall_time_s > 0 else 0.0
    print(f'{len(result.rows)} trials ({result.ran} run now, {rate:.2f} trials/s on '
          f'{args.backend}); wrote {", ".join(str(f) for f in result.files)}')
    return 0
