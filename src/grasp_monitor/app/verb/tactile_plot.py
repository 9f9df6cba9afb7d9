"""``grasp-monitor tactile-plot``: each pad's taxel layout and its forces at the grasp."""

from __future__ import annotations

import argparse

from grasp_monitor.app.verb.arguments import add_scenario
from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
from grasp_monitor.core.tactile.settings import TACTILE_SETTINGS

HELP = "PNGs of each pad's taxel layout and of its forces at the grasp"
DESCRIPTION = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the scenario, the pads, their settings (the tactile table's defaults), the grasp."""
    add_scenario(parser, optional=True, params_file=False)
    parser.add_argument('--pad', action='append', default=[],
                        help="pad body to draw, repeatable (default: the scene's pads)")
    pad = {setting.name: setting for setting in TACTILE_SETTINGS}
    parser.add_argument('--resolution', type=float, default=pad['resolution'].default,
                        help=pad['resolution'].description)
    parser.add_argument('--touch', default=pad['touch'].default,
                        choices=PAD_FRAME_TOUCH_FUNCTIONS)
    parser.add_argument('--response', default=pad['response'].default,
                        choices=pad['response'].choices)
    parser.add_argument('--duration', type=float, default=5.0,
                        help='simulated seconds to wait for the grasp')
    parser.add_argument('--dwell', type=float,
                        help='grasp when the object stayed still this long in two bodies, s '
                        '(default: long enough for the contacts to settle)')
    parser.add_argument('--output-dir', default='results/tactile', help='where the PNGs go')


def run(args: argparse.Namespace) -> int:
    """Draw the PNGs; print the grasp's time and the files."""
    from grasp_monitor.sim.tactile_plot import tactile_plots
    snapshot, written = tactile_plots(
        args.output_dir, args.scenario, args.pad, args.resolution, args.touch, args.response,
        args.duration, **({} if args.dwell is None else {'dwell_s': args.dwell}))
    print(f'grasp at t = {snapshot.reading.time_s:.3f} s in {snapshot.scenario}')
    for path in written:
        print(path)
    return 0
