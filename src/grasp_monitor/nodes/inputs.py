"""How nodes take their inputs: a refused message is counted by kind, logged and dropped."""

from __future__ import annotations

from collections import Counter
from typing import Callable, TypeVar

from grasp_monitor.core.errors import CommandError, GraspMonitorError
from grasp_monitor.core.pad_contacts import ObjectContacts, PadContacts
from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.qos import LATCHED_QOS
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import PointCloud2
from std_msgs.msg import String

T = TypeVar('T')


def resolved(node: Node, names: list[str]) -> tuple[str, ...]:
    """Resolve topic names against the node's namespace ('' entries are dropped)."""
    return tuple(node.resolve_topic_name(name) for name in names if name)


def read_input(node: Node, refused: Counter, topic: str, read: Callable[[], T]) -> T | None:
    """Return ``read()``; a refused input is counted by kind, logged (throttled), gives None."""
    try:
        return read()
    except GraspMonitorError as error:
        refused[getattr(error, 'kind', 'invalid')] += 1
        node.get_logger().warning(f'dropped {topic}: {error}', throttle_duration_sec=1.0)
        return None


def refusal_counts(refused: Counter, total_key: str) -> dict[str, int]:
    """Return diagnostic values of refusals: their total under ``total_key``, then by kind."""
    return {total_key: sum(refused.values())} | {
        f'refused.{kind}': count for kind, count in refused.items()}


def subscribe_contacts(node: Node, refused: Counter, topic: str, contacts: ObjectContacts,
                       qos: QoSProfile, group, sink: Callable[[PadContacts], None]) -> None:
    """Subscribe to the pads' contacts on ``topic`` and their body names on ``topic/bodies``.

    Each sample goes to ``sink`` once the names are known (until then ``contacts`` holds
    it); a malformed one is counted and logged as ``read_input`` does.
    """
    def on_contacts(msg: PointCloud2) -> None:
        sample = read_input(node, refused, 'contacts',
                            lambda: conversions.pad_contacts_from_msg(msg))
        if sample is not None:
            for held in contacts.take(sample):
                sink(held)

    def on_bodies(msg: String) -> None:
        try:
            held = contacts.bodies(conversions.body_names_from_msg(msg))
        except GraspMonitorError as error:
            node.get_logger().error(f'contacts/bodies: {error}')
            return
        for sample in held:
            sink(sample)

    node.create_subscription(PointCloud2, topic, on_contacts, qos, callback_group=group)
    node.create_subscription(String, f'{topic}/bodies', on_bodies, LATCHED_QOS,
                             callback_group=group)


def accept_servo_command(node: Node, refused: Counter, make: Callable[[], ServoCommand],
                         apply: Callable[[ServoCommand], object]) -> None:
    """Apply the command ``make`` builds; count a refused one by kind and log it (throttled)."""
    try:
        apply(make())
    except CommandError as error:
        refused[error.kind] += 1
        node.get_logger().warning(f'refused servo command: {error}', throttle_duration_sec=1.0)
