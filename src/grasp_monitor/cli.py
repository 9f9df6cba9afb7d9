"""The ``grasp-monitor`` command: grasp_monitor where no ROS workspace exists."""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import Sequence

from grasp_monitor.app.verb import batch, benchmark, demo, hardware_eval, plugins, reference, \
    run, rviz, slip_eval, snapshot, tactile_plot, urdf
from grasp_monitor.core.errors import GraspMonitorError

#: The verbs, in the order ``--help`` lists them; each module has ``HELP``,
#: ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int`` (app/verb/).
VERBS: dict[str, ModuleType] = {
    'run': run,
    'batch': batch,
    'slip-eval': slip_eval,
    'hardware-eval': hardware_eval,
    'benchmark': benchmark,
    'demo': demo,
    'reference': reference,
    'rviz': rviz,
    'snapshot': snapshot,
    'plugins': plugins,
    'tactile-plot': tactile_plot,
    'urdf': urdf,
}


def build_parser() -> argparse.ArgumentParser:
    """Build the command's parser: a sub-parser per verb, which runs it."""
    parser = argparse.ArgumentParser(prog='grasp-monitor', description=__doc__)
    verbs = parser.add_subparsers(dest='command', required=True)
    for name, verb in VERBS.items():
        sub = verbs.add_parser(name, help=verb.HELP, description=verb.DESCRIPTION)
        verb.add_arguments(sub)
        sub.set_defaults(handler=verb.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; configuration errors exit with status 2 and the reason."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[2:] if argv is None else argv[1:])
    try:
        return args.handler(args)
    except GraspMonitorError as error:
        print(f'grasp-monitor: error: {error}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
