"""Servo commands in, for any ``ServoBackend``: both servo nodes take them this one way.

``servo_commands`` (JointState) and ``servo_commands/full`` (Float64MultiArray) become a
``ServoCommand`` for the backend. A malformed or refused command is counted by kind
(``refused_commands``), logged (throttled) and dropped; a lost one is counted by topic
(``lost_inputs``, ``nodes.subscription.subscribe``).
"""

from __future__ import annotations

from collections import Counter
import contextlib
from typing import Callable, ContextManager

from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.core.servo.backend import ServoBackend
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.input_refusals import refusal_counts
from grasp_monitor.nodes.lost_inputs import lost_counts
from grasp_monitor.nodes.subscription import subscribe
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray


class ServoCommandInput:
    """A node's servo command subscriptions, applied to ``backend``.

    Args:
        node: the node that subscribes.
        backend: the servos the commands go to.
        qos: the subscriptions' QoS.
        lock: held while a command is applied (the simulator's tick lock).
        admit: called with the stamp (s) of each ``servo_commands`` message before it is
            read; raises ``CommandError`` to refuse it (the simulator: an old stamp).
        on_applied: called with the stamp (s) of each ``servo_commands`` message applied:
            only an applied command may move anything else (lockstep's answer to a clock).

    Attributes:
        refused: refused commands by kind (``CommandError.kind``).
    """

    def __init__(self, node: Node, backend: ServoBackend, qos: QoSProfile, *,
                 lock: ContextManager | None = None,
                 admit: Callable[[float], object] | None = None,
                 on_applied: Callable[[float], object] | None = None) -> None:
        self.node = node
        self.backend = backend
        self.lock = lock if lock is not None else contextlib.nullcontext()
        self.admit = admit
        self.on_applied = on_applied
        self.refused: Counter[str] = Counter()
        subscribe(node, JointState, 'servo_commands', self._on_command, qos)
        subscribe(node, Float64MultiArray, 'servo_commands/full', self._on_full_command, qos)

    def _on_command(self, msg: JointState) -> None:
        stamp_s = conversions.time_from_msg(msg.header.stamp)
        backend = self.backend

        def make() -> ServoCommand:
            if self.admit is not None:
                self.admit(stamp_s)
            return conversions.servo_command_from_joint_state(
                msg, backend.servo_config, backend.command)
        if self.accept(make, stamp_s) and self.on_applied is not None:
            self.on_applied(stamp_s)

    def _on_full_command(self, msg: Float64MultiArray) -> None:
        self.accept(lambda: conversions.servo_command_from_multiarray(
            msg, len(self.backend.joints)))

    def accept(self, make: Callable[[], ServoCommand], stamp_s: float | None = None) -> bool:
        """Apply the command ``make`` builds; count a refused one by kind and log it.

        Returns:
            Whether it was applied.
        """
        try:
            command = make()
            with self.lock:
                self.backend.set_command(command, stamp_s)
        except CommandError as error:
            self.refused[error.kind] += 1
            self.node.get_logger().warning(f'refused servo command: {error}',
                                           throttle_duration_sec=1.0)
            return False
        return True

    def counts(self) -> dict[str, int]:
        """Return diagnostic values: refused commands (total, by kind), then lost ones."""
        return refusal_counts(self.refused, 'refused_commands') | lost_counts(self.node)
