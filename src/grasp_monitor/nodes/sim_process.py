"""The simulator's process: ``mujoco_sim`` and the nodes it hosts, on one executor.

The tactile sensor and the grasp controller share the simulator's MuJoCo state and
run on its ticks, so they live in its process (as components of one container would).
"""

from __future__ import annotations

import sys

from grasp_monitor.nodes.grasp_controller import GraspControllerNode
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.tactile_sensor import TactileSensorNode
from rclpy.node import Node
from rclpy.parameter import Parameter


def run_simulator(args: list[str] | None = None, tactile: bool | None = None) -> int:
    """Run ``mujoco_sim`` and, as its parameters say, the tactile sensor and the controller.

    Args:
        args: command-line arguments, ROS arguments included.
        tactile: host the tactile sensor always (True), never (False), or as the
            simulator's ``tactile`` parameter says (None).

    Returns:
        The exit status: 0, or 2 after a configuration error (the reason on stderr).
    """
    def make() -> list[Node]:
        sim = MujocoSimNode(start=False)  # the hosted nodes see the first tick
        nodes: list[Node] = [sim]
        try:
            if sim.tactile if tactile is None else tactile:  # the parameter, unless forced
                nodes.append(TactileSensorNode(runner=sim.runner))
            if sim.host_controller:
                nodes.append(GraspControllerNode(
                    runner=sim.runner, parameter_overrides=[Parameter('hosted', value=True)]))
        except Exception:
            for node in reversed(nodes):
                node.destroy_node()
            raise
        sim.start()
        return nodes

    return run_node(make, args)


def main(args: list[str] | None = None) -> int:
    """``mujoco_sim``: the simulator, hosting what its parameters say."""
    return run_simulator(args)


def main_tactile(args: list[str] | None = None) -> int:
    """``tactile_sensor``: the simulator with its tactile sensor forced on."""
    return run_simulator(args, tactile=True)


if __name__ == '__main__':
    sys.exit(main())
