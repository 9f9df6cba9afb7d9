"""The monitor's process with the metrics in it: two nodes on one executor.

They take the same streams (the pads' contacts, the object's ground truth, /clock): in one
process each message wakes one process instead of two, which the simulator pays for on
every publish (benchmarks/RESULTS.md, "ROS graph": the pair's CPU falls by a quarter).
They stay two nodes, with their own names, parameters and services.
"""

from __future__ import annotations

import sys

from grasp_monitor.nodes.grasp_metrics import GraspMetricsNode
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.process import run_node
from rclpy.node import Node


def main(args: list[str] | None = None) -> int:
    """``monitor_metrics``: the grasp monitor and the metrics node in one process."""
    def make() -> list[Node]:
        monitor = GraspMonitorNode()
        try:
            return [monitor, GraspMetricsNode()]
        except Exception:
            monitor.destroy_node()
            raise
    return run_node(make, args)


if __name__ == '__main__':
    sys.exit(main())
