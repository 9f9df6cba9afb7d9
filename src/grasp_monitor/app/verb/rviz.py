"""``grasp-monitor rviz``: a scenario's rviz2 config, or its check against a running graph."""

from __future__ import annotations

import argparse
from pathlib import Path

from grasp_monitor.app.verb.arguments import add_scenario, scenario_config

HELP = "write a scenario's rviz2 config (config/rviz/<scenario>.rviz)"
DESCRIPTION = (
    'Generate the rviz2 config of a scenario from its scene and parameter file: fixed frame '
    "world, /tf, the robot description, the pads' tactile clouds coloured by pressure, "
    "tactile and contact markers, the monitor's events, the objects, and a camera framing "
    'the scene.')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the scenario, its parameter file, where to write and the check's options."""
    add_scenario(parser)
    parser.add_argument('--output', type=Path, help='write it here (default: standard output)')
    parser.add_argument('--check', action='store_true',
                        help="instead, check it against the running graph: each display's "
                        'topic and type, its frames resolved to world; exit 1 on a failure')
    parser.add_argument('--namespace', default='', help="with --check: rviz2's namespace")
    parser.add_argument('--timeout', type=float, default=20.0,
                        help='with --check: how long to wait for the messages, s (default 20)')


def run(args: argparse.Namespace) -> int:
    """Write or print the config; with ``--check``, 1 if a display fails its check."""
    from grasp_monitor.app.rviz_config import rviz_text
    from grasp_monitor.app.scene_view import SceneView
    text = rviz_text(SceneView.from_config(scenario_config(args)))
    if args.check:
        import rclpy
        import yaml

        from grasp_monitor.app.rviz_check import check_rviz_config, check_table
        rclpy.init()
        try:
            checks = check_rviz_config(yaml.safe_load(text), namespace=args.namespace,
                                       timeout_s=args.timeout)
        finally:
            rclpy.try_shutdown()
        print(check_table(checks))
        return 0 if all(check.ok for check in checks) else 1
    if args.output is None:
        print(text, end='')
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text)
        print(f'wrote {args.output}')
    return 0
