"""``grasp-monitor urdf``: a scenario's URDF, as mujoco_sim publishes it."""

from __future__ import annotations

import argparse
from pathlib import Path
import sys

from grasp_monitor.app.verb.arguments import add_scenario, scenario_config

HELP = "write a scenario's URDF, as mujoco_sim publishes it on /robot_description"
DESCRIPTION = (
    'Write the URDF of the scene a scenario builds from its parameter file: a link per body '
    'named as its /tf frame, the MJCF geometry and colours, joints with limits. Mesh geoms '
    'become STL files in <output stem>_meshes/ beside the file (with no --output: in the '
    'cache, ~/.cache/grasp_monitor/meshes).')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the scenario, its parameter file, what to include and where to write."""
    add_scenario(parser)
    parser.add_argument('--gripper-only', action='store_true',
                        help='only the robot, no objects or table (what moteus_servos '
                        'publishes)')
    parser.add_argument('--output', type=Path,
                        help='write to this file (default: standard output)')


def run(args: argparse.Namespace) -> int:
    """Write the URDF and its meshes."""
    from grasp_monitor.nodes.mujoco_sim_parameters import scenario_params, scene_settings
    from grasp_monitor.sim.scenes import build_scene
    from grasp_monitor.sim.urdf import mesh_cache_dir, scene_urdf
    sim = scenario_config(args).node('mujoco_sim')  # the scene the simulator builds
    scene = build_scene(args.scenario, scene_settings(sim), **scenario_params(sim))
    if args.output is None:
        sys.stdout.write(scene_urdf(scene, mesh_cache_dir(), args.gripper_only))
        return 0
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(scene_urdf(scene, output.parent / f'{output.stem}_meshes',
                                 args.gripper_only))
    print(f'wrote {output}', file=sys.stderr)
    return 0
