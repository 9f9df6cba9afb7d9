"""``grasp-monitor slip-eval``: the incipient_slip detector scored against simulated truth."""

from __future__ import annotations

import argparse
from pathlib import Path

from grasp_monitor.app.slip_eval.family import NOSLIP_ITERATIONS
from grasp_monitor.core.realism import PRESET_NAMES

HELP = 'score the incipient_slip detector against simulated ground truth'
DESCRIPTION = (
    'Run pick_lift trials offline, half pulled past the friction of the pads (a ramped force '
    'on the object), half held (grip force, mass, friction and pull drawn per seed); tune the '
    'incipient_slip thresholds on a tuning split and score the held-out trials against the '
    'simulator: tick and trial precision, recall, F1, lead time before gross slip (2 mm), '
    'false alarms per minute of holding. Writes slip_eval.md, slip_eval.json and '
    'pr_curve.png to --output-dir (docs/slip.md).')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the family's size and seed, the physics, the realism preset, where to write."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument('--trials', type=int, default=240, help='trials (default 240)')
    size.add_argument('--quick', action='store_true',
                      help='a small set (8 trials), to check the command end to end')
    parser.add_argument('--seed', type=int, default=0, help="the family's seed (default 0)")
    parser.add_argument('--noslip-iterations', type=int, default=NOSLIP_ITERATIONS,
                        help="MuJoCo's noslip iterations (default "
                        f'{NOSLIP_ITERATIONS}: Coulomb stick and slide; 0: soft friction that '
                        'creeps inside the cone)')
    parser.add_argument('--pull', type=float, default=2.5,
                        help='simulated seconds of pull after the grasp (default 2.5)')
    parser.add_argument('--long-holds', type=int, default=10,
                        help='hold trials of 60 s after the grasp, for false alarms per minute '
                        'of stable grasp (default 10; --quick: 1 of 5 s)')
    parser.add_argument('--jobs', type=int, default=1, help='processes (default 1)')
    parser.add_argument('--preset', choices=PRESET_NAMES, default='ideal',
                        help="the detectors read the pads' clouds as the tactile arrays of this "
                        'realism preset report them (docs/realism.md; default ideal: the '
                        'simulated forces)')
    parser.add_argument('--output-dir', type=Path, default=Path('results/slip_eval'),
                        help='where the table, JSON and PNG go (default results/slip_eval)')


def run(args: argparse.Namespace) -> int:
    """Run the family, tune and score the detector, write the tables and the PR curve."""
    from grasp_monitor.app.slip_eval.family import LONG_HOLD_S
    from grasp_monitor.app.slip_eval.run import (
        check_args, QUICK_HOLD_S, QUICK_LONG_HOLDS, QUICK_TRIALS, slip_eval)
    trials = QUICK_TRIALS if args.quick else args.trials
    holds = QUICK_LONG_HOLDS if args.quick else args.long_holds
    check_args(trials, args.jobs, args.noslip_iterations, args.pull, holds=holds)
    slip_eval(args.output_dir, trials, args.seed, args.jobs, args.noslip_iterations, args.pull,
              holds=holds, hold_s=QUICK_HOLD_S if args.quick else LONG_HOLD_S,
              preset=args.preset)
    return 0
