"""rclpy nodes: thin adapters between ROS and the core."""

from __future__ import annotations

import sys
from typing import Mapping


def node_command(name: str, params: Mapping[str, object] | None = None, *,
                 namespace: str | None = None, remaps: Mapping[str, str] | None = None,
                 params_file: str | None = None) -> list[str]:
    """Return the command line that runs node ``name`` in its own process, as ``ros2 run``.

    Args:
        name: the module under ``grasp_monitor.nodes``, e.g. ``mujoco_sim``.
        params: parameter overrides (``-p name:=value``); they win over ``params_file``.
        namespace: the node's namespace.
        remaps: more remappings, ``{from: to}``.
        params_file: a ROS parameter file.
    """
    args = [sys.executable, '-m', f'grasp_monitor.nodes.{name}', '--ros-args']
    if params_file is not None:
        args += ['--params-file', str(params_file)]
    remaps = ({'__ns': namespace} if namespace else {}) | dict(remaps or {})
    for source, target in remaps.items():
        args += ['-r', f'{source}:={target}']
    for key, value in (params or {}).items():
        args += ['-p', f'{key}:={value}']
    return args
