"""The pads' input of the monitor and the metrics: the simulator's contacts, or the taxels."""

from __future__ import annotations

from collections import Counter
from typing import Callable

from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.pad_contacts import ObjectContacts, PadContacts
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.input_refusals import read_input
from grasp_monitor.nodes.interfaces import subscribes
from grasp_monitor.nodes.qos import LATCHED_QOS
from grasp_monitor.nodes.subscription import subscribe
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import PointCloud2
from std_msgs.msg import String


def subscribe_contacts(node: Node, refused: Counter, topic: str, contacts: ObjectContacts,
                       qos: QoSProfile, group, sink: Callable[[PadContacts], None]) -> None:
    """Subscribe to the pads' contacts on ``topic`` and their body names on ``topic/bodies``.

    Each sample goes to ``sink`` once the names are known (until then ``contacts`` holds
    it); a malformed one is counted and logged as ``read_input`` does.
    """
    def on_contacts(raw: bytes) -> None:
        sample = read_input(node, refused, 'contacts', lambda: conversions.pad_contacts_from_msg(
            conversions.read_message(raw, PointCloud2)))
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

    # raw: read from the bytes, at a fraction of the cost of rclpy's message
    subscribe(node, PointCloud2, topic, on_contacts, qos, callback_group=group, raw=True)
    node.create_subscription(String, f'{topic}/bodies', on_bodies, LATCHED_QOS,
                             callback_group=group)


#: The endpoints ``subscribe_pads`` creates, for a node's INTERFACES table.
PAD_INPUTS = (
    subscribes('tactile/<pad>', 'sensor_msgs/msg/PointCloud2', 'sensor',
               'each of `pads`: contacts estimated from the taxels', when='!contacts'),
    subscribes('<contacts>', 'sensor_msgs/msg/PointCloud2', 'sensor',
               "the pads' contacts (mujoco_sim's `contacts`)", when='contacts'),
    subscribes('<contacts>/bodies', 'std_msgs/msg/String', 'latched',
               'body names by id', when='contacts'),
)


def subscribe_pads(node: Node, refused: Counter, contacts_topic: str,
                   contacts: ObjectContacts | None, pads: list[str], qos: QoSProfile, group,
                   on_contacts: Callable[[PadContacts], None],
                   on_pad: Callable[[str, PointCloud2], None]) -> None:
    """Subscribe to the pads' input: the simulator's contacts, or without them each taxel cloud.

    With ``contacts`` the samples of ``contacts_topic`` go to ``on_contacts`` (see
    ``subscribe_contacts``); otherwise each pad's ``tactile/<pad>`` goes to ``on_pad``.
    """
    if contacts is not None:
        subscribe_contacts(node, refused, contacts_topic, contacts, qos, group, on_contacts)
        return
    for pad in pads:
        subscribe(node, PointCloud2, f'tactile/{pad}', lambda m, pad=pad: on_pad(pad, m), qos,
                  callback_group=group)
