"""``grasp-monitor demo``: the whole graph as processes, one trial live, then the results."""

from __future__ import annotations

import argparse
from pathlib import Path

from grasp_monitor.app.verb.arguments import add_scenario, scenario_config

HELP = 'the whole graph as processes: one grasp trial, live, then the results'
DESCRIPTION = (
    'Start mujoco_sim, grasp_monitor, grasp_metrics, grasp_controller and the recorder as '
    'separate processes with config/<scenario>.yaml, run one trial through their services, '
    'show it live, and end with a results table, a JSON summary, the MCAP and a PNG figure in '
    '<output-dir>/<UTC time>/, with <output-dir>/latest pointing at the newest run. Exits 1 '
    'if a node failed.')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the scenario, its parameter file, the trial's limits and where to write."""
    add_scenario(parser, optional=True)
    parser.add_argument('--headless', action='store_true',
                        help='plain lines instead of a redrawn view (so too without a TTY)')
    parser.add_argument('--duration', type=float,
                        help='end the trial after this many simulated seconds (default: '
                        'pick_lift until the monitor ends it, other scenarios 10)')
    parser.add_argument('--timeout', type=float, default=120.0,
                        help='wall-clock limit of the trial, s (default 120)')
    parser.add_argument('--output-dir', default='results/demo',
                        help='each run writes its logs, MCAP, JSON and PNG into '
                        '<output-dir>/<UTC time>/ and points <output-dir>/latest at it '
                        '(default results/demo)')


def run(args: argparse.Namespace) -> int:
    """Run the demo; 1 if a node or the recording failed."""
    from grasp_monitor.app.demo import DemoOptions, run_demo
    scenario = scenario_config(args).scenario
    return run_demo(DemoOptions(
        scenario=scenario, output_dir=Path(args.output_dir), headless=args.headless,
        duration_s=args.duration, timeout_s=args.timeout, params_file=args.params_file))
