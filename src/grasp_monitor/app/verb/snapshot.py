"""``grasp-monitor snapshot``: the grasp as rviz would show it, rendered to a PNG."""

from __future__ import annotations

import argparse
from pathlib import Path

from grasp_monitor.app.verb.arguments import add_scenario, scenario_config

HELP = 'a PNG of the grasp as rviz would show it'
DESCRIPTION = (
    "Run a scenario offline to its grasp and render it with MuJoCo from its rviz config's "
    "camera: the pads' taxels coloured by pressure as rviz colours the tactile clouds, and "
    "the pads' contact forces as arrows.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the scenario, its parameter file, the time and the PNG."""
    add_scenario(parser)
    parser.add_argument('--at', type=float, metavar='SECONDS',
                        help='simulated time of the picture (default: the grasp)')
    parser.add_argument('--output', type=Path, required=True, help='the PNG to write')


def run(args: argparse.Namespace) -> int:
    """Render the picture and say when it shows."""
    from grasp_monitor.app.snapshot import write_snapshot
    scenario_config(args)  # refuses a parameter file of another scenario
    snapshot = write_snapshot(args.scenario, args.output, args.params_file, args.at)
    what = 'grasp' if args.at is None else 'snapshot'
    print(f'{what} at t = {snapshot.reading.time_s:.3f} s in {args.scenario}; '
          f'wrote {args.output}')
    return 0
