"""The ``grasp-monitor`` command: grasp_monitor where no ROS workspace exists."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import sys
from typing import Any, Sequence

from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.sim.scenes import DEFAULT_SCENARIO, SCENARIOS


def _setting(text: str) -> tuple[str, Any]:
    key, _, value = text.partition('=')
    if not key or not value:
        raise argparse.ArgumentTypeError(f'expected KEY=VALUE, got {text!r}')
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _cmd_run(args: argparse.Namespace) -> int:
    from grasp_monitor.sim.offline import run_scenario
    params = dict(args.param)
    result = run_scenario(args.scenario, args.duration, dict(args.set),
                          real_time_factor=args.real_time_factor, **params)
    print(f'scenario        {result.scenario} {params or ""}')
    print(f'steps           {result.steps}')
    print(f'simulated       {result.sim_time_s:.3f} s')
    print(f'wall            {result.wall_time_s:.3f} s')
    print(f'real-time factor {result.real_time_factor:.1f}')
    print(f'diverged        {result.diverged}')
    for body, pose in result.final_objects.items():
        print(f'{body:15s} position {pose["position_m"]} m,'
              f' quaternion {pose["quaternion_wxyz"]}')
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result.to_json(), indent=2))
    print(f'result          {output}')
    return 1 if result.diverged else 0


def _cmd_reference(args: argparse.Namespace) -> int:
    from grasp_monitor.reference import markdown
    print(markdown())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog='grasp-monitor', description=__doc__)
    commands = parser.add_subparsers(dest='command', required=True)
    run = commands.add_parser('run', help='simulate a scenario offline and summarise it')
    run.add_argument('scenario', nargs='?', default=DEFAULT_SCENARIO, choices=SCENARIOS)
    run.add_argument('--duration', type=float, help='simulated seconds (default: scenario)')
    run.add_argument('--real-time-factor', type=float, default=0.0,
                     help='pace against the wall clock; 0 = as fast as possible')
    run.add_argument('--set', type=_setting, action='append', default=[], metavar='KEY=VALUE',
                     help='physics setting, e.g. --set friction=1e8 --set cone=elliptic')
    run.add_argument('--param', type=_setting, action='append', default=[],
                     metavar='KEY=VALUE', help='scenario parameter, e.g. --param n_cubes=5')
    run.add_argument('--output', default='results/run.json', help='JSON result path')
    run.set_defaults(handler=_cmd_run)
    reference = commands.add_parser(
        'reference', help="print the README's parameter reference, from the code")
    reference.set_defaults(handler=_cmd_reference)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; configuration errors exit with status 2 and the reason."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except GraspMonitorError as error:
        print(f'grasp-monitor: error: {error}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
