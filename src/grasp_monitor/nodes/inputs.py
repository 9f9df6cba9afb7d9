"""Servo commands a node takes: an applied one moves the servos, a refused one is counted.

(Transitional: ``lost_counts``, ``refusal_counts`` and ``subscribe`` are re-exported for
mujoco_sim until its imports name their own modules.)
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.nodes.input_refusals import refusal_counts  # noqa: F401 (transitional)
from grasp_monitor.nodes.lost_inputs import lost_counts  # noqa: F401 (transitional)
from grasp_monitor.nodes.subscription import subscribe  # noqa: F401 (transitional)
from rclpy.node import Node


def accept_servo_command(node: Node, refused: Counter, make: Callable[[], ServoCommand],
                         apply: Callable[[ServoCommand], object]) -> bool:
    """Apply the command ``make`` builds; count a refused one by kind and log it (throttled).

    Returns:
        Whether it was applied: only an applied command may move anything else (lockstep).
    """
    try:
        apply(make())
    except CommandError as error:
        refused[error.kind] += 1
        node.get_logger().warning(f'refused servo command: {error}', throttle_duration_sec=1.0)
        return False
    return True
