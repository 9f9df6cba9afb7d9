"""rclpy nodes: thin adapters between ROS and the core."""

from __future__ import annotations

import sys
from typing import Mapping

#: Executables whose entry point is not ``main`` of the module named after them: the
#: simulator's process hosts other nodes beside it (as setup.py's console scripts say).
ENTRY_POINTS = {'mujoco_sim': ('sim_process', 'main'),
                'tactile_sensor': ('sim_process', 'main_tactile'),
                'monitor_metrics': ('monitor_process', 'main')}


def entry_point(name: str) -> tuple[str, str]:
    """Return the module under ``grasp_monitor.nodes`` and the function that run ``name``."""
    return ENTRY_POINTS.get(name, (name, 'main'))


def node_command(name: str, params: Mapping[str, object] | None = None, *,
                 namespace: str | None = None, remaps: Mapping[str, str] | None = None,
                 params_file: str | None = None) -> list[str]:
    """Return the command line that runs node ``name`` in its own process, as ``ros2 run``.

    Args:
        name: the executable, e.g. ``mujoco_sim``; its module under ``grasp_monitor.nodes``
            is named the same unless ``ENTRY_POINTS`` says otherwise.
        params: parameter overrides (``-p name:=value``); they win over ``params_file``.
        namespace: the node's namespace.
        remaps: more remappings, ``{from: to}``.
        params_file: a ROS parameter file.
    """
    module, function = entry_point(name)
    if function == 'main':
        args = [sys.executable, '-m', f'grasp_monitor.nodes.{module}', '--ros-args']
    else:
        args = [sys.executable, '-c', f'import sys; from grasp_monitor.nodes.{module} import '
                f'{function}; sys.exit({function}())', '--ros-args']
    if params_file is not None:
        args += ['--params-file', str(params_file)]
    remaps = ({'__ns': namespace} if namespace else {}) | dict(remaps or {})
    for source, target in remaps.items():
        args += ['-r', f'{source}:={target}']
    for key, value in (params or {}).items():
        args += ['-p', f'{key}:={value}']
    return args
