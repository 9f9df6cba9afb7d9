"""``grasp-monitor hardware-eval``: every event scored on what hardware gives the monitor."""

from __future__ import annotations

import argparse
from pathlib import Path

from grasp_monitor.app.verb.arguments import key_value

HELP = 'score every event on what hardware gives the monitor'
DESCRIPTION = (
    'Run pick_lift trials offline (grasps that hold, pulls that slip, drops, slow closes, '
    "closes that never come) and feed a monitor with config/hardware.yaml's settings only "
    'tactile clouds and finger joint states, through the realism model of each preset (no '
    'ground truth, no contacts, no slip channel, the friction unknown); score each event '
    'against the simulator: precision, recall, F1, latency, false alarms per minute of '
    'holding. Writes hardware_eval.md and hardware_eval.json to --output-dir '
    '(docs/realism.md).')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the family's size and seed, the presets, the monitor's settings, where to write."""
    size = parser.add_mutually_exclusive_group()
    size.add_argument('--per-kind', type=int, help='trials of each of the 5 kinds (default 24)')
    size.add_argument('--quick', action='store_true',
                      help='2 trials of each kind, to check the command end to end')
    parser.add_argument('--seed', type=int, default=0, help="the family's seed (default 0)")
    parser.add_argument('--preset', action='append', choices=('ideal', 'typical', 'harsh'),
                        help='a realism preset to score (repeat; default all three)')
    parser.add_argument('--set', type=key_value, action='append', default=[],
                        metavar='NAME=VALUE', help='a grasp_monitor parameter on top of '
                        'config/hardware.yaml (repeat)')
    parser.add_argument('--jobs', type=int, default=1, help='processes (default 1)')
    parser.add_argument('--output-dir', type=Path, default=Path('results/hardware_eval'),
                        help='where the tables go (default results/hardware_eval)')


def run(args: argparse.Namespace) -> int:
    """Run the family once and score every preset's monitor."""
    from grasp_monitor.app.hardware_eval.run import hardware_eval, PER_KIND, QUICK_PER_KIND
    per_kind = QUICK_PER_KIND if args.quick else \
        PER_KIND if args.per_kind is None else args.per_kind
    hardware_eval(args.output_dir, per_kind, args.seed, args.jobs,
                  args.preset or ('ideal', 'typical', 'harsh'), dict(args.set))
    return 0
