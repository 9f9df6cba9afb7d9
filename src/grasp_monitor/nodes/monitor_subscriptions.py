"""The ``grasp_monitor`` node's inputs: each message read into its ``MonitorInputs``."""

from __future__ import annotations

from typing import Callable

from grasp_monitor.core.frames import FrameTree
from grasp_monitor.core.monitor import MonitorInputs
from grasp_monitor.core.pad_contacts import ObjectContacts
from grasp_monitor.core.setting_values import SettingValues
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.input_watch import InputWatch
from grasp_monitor.nodes.monitor_output import MonitorOutput
from grasp_monitor.nodes.pad_inputs import subscribe_pads
from grasp_monitor.nodes.qos import sensor_qos, TF_QOS, TF_STATIC_LISTENER_QOS
from grasp_monitor.nodes.subscription import subscribe
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import JointState, PointCloud2
from tf2_msgs.msg import TFMessage


def input_topics(p: SettingValues) -> dict[str, str]:
    """Return the topic of each of the monitor's inputs (``MonitorInputs.names``)."""
    return {pad: f'tactile/{pad}' for pad in p.pads} | {
        'contacts': p.contacts, 'object': f'ground_truth/{p.object}',
        'finger_joints': 'joint_states', 'distances': '/tf'}


class MonitorSubscriptions:
    """Subscribe to the monitor's inputs; each reading goes to ``inputs``, then ``on_input()``.

    The pads' contacts (or their taxels), the object's ground truth (whose pose also
    places the event markers), the fingers' joint states and, with ``base_frame``, /tf.
    """

    def __init__(self, node: Node, p: SettingValues, inputs: MonitorInputs,
                 watch: InputWatch, output: MonitorOutput, group,
                 on_input: Callable[[], None]) -> None:
        self.inputs, self.watch, self.output, self.on_input = inputs, watch, output, on_input
        self.contacts = ObjectContacts(p.object, p.pads) if p.contacts else None
        self.contacts_topic, self.object_topic = p.contacts, f'ground_truth/{p.object}'
        self.base_frame = p.base_frame
        self.frames = FrameTree()
        qos = sensor_qos(p.qos_best_effort, p.qos_depth)
        subscribe_pads(node, watch.refused, p.contacts, self.contacts, p.pads, qos, group,
                       self._contacts_in, self._on_pad)
        if p.object:
            subscribe(node, Odometry, self.object_topic, self._on_object, qos,
                      callback_group=group, raw=True)
        subscribe(node, JointState, 'joint_states', self._on_joints, qos,
                  callback_group=group, raw=True)
        if self.base_frame:
            for topic, tf_qos in (('/tf', TF_QOS), ('/tf_static', TF_STATIC_LISTENER_QOS)):
                subscribe(node, TFMessage, topic,
                          lambda m, s=topic == '/tf_static': self._on_tf(m, s),
                          tf_qos, callback_group=group)

    def _on_pad(self, pad: str, msg: PointCloud2) -> None:
        cloud = self.watch.read(f'tactile/{pad}',
                                lambda: conversions.tactile_reading_from_msg(msg))
        if cloud is not None:
            positions, forces, time_s, slip = cloud
            self.inputs.update_pad(pad, forces, time_s, positions,
                                   slip if self.inputs.config.slip_signals else None)
            self.on_input()

    def _contacts_in(self, contacts) -> None:
        self.watch.heard(self.contacts_topic)
        self.inputs.update_object_contacts(self.contacts, contacts)
        self.on_input()

    def _on_object(self, raw: bytes) -> None:
        msg = self.watch.read('ground_truth', lambda: conversions.read_message(raw, Odometry),
                              stream='')
        body = msg and self.watch.read('ground_truth', lambda: conversions.
                                       body_state_from_odometry(msg), self.object_topic)
        if body is not None:
            self.output.anchor = (msg.header.frame_id or 'world', body.position_in_world)
            self.inputs.update_object(body.linear_velocity_in_world, body.time_s)
            self.on_input()

    def _on_joints(self, raw: bytes) -> None:
        joints = self.watch.read('joint_states', lambda: conversions.joint_velocities_from_msg(
            conversions.read_message(raw, JointState)))
        if joints is not None:
            self.inputs.update_joints(*joints)
            self.on_input()

    def _on_tf(self, msg: TFMessage, static: bool) -> None:
        transforms = self.watch.read('/tf_static' if static else '/tf', lambda: conversions.
                                     frame_transforms_from_msg(msg), '' if static else '/tf')
        if transforms is not None:
            self.frames.update(transforms, static)
            if not static and self.inputs.update_frames(self.frames, self.base_frame):
                self.on_input()
