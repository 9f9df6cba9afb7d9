"""What ``mujoco_sim`` publishes of its scene: each tick's streams and the latched ones.

Every tick's messages go out as bytes rewritten in place (``conversions.serialized``);
the body names, the welded frames and the URDF are published once, latched: a reset
brings back the same model.
"""

from __future__ import annotations

from grasp_monitor.core.pad_contacts import PadContacts
from grasp_monitor.core.values import JointStates
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.conversions import serialized
from grasp_monitor.nodes.qos import LATCHED_QOS, TF_QOS, TF_STATIC_QOS
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.urdf import scene_urdf
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.qos import QoSProfile
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray


class SimStreams:
    """The publishers of a simulator's scene on ``node``; ``qos``: the sensor streams'."""

    def __init__(self, node: Node, sim: Simulator, qos: QoSProfile,
                 markers_scale_m_per_n: float) -> None:
        self.clock_bytes, self.joint_bytes = serialized.ClockBytes(), serialized.JointStateBytes()
        self.odometry_bytes, self.tf_bytes = serialized.OdometryBytes(), serialized.TfBytes()
        self.contacts_bytes = serialized.ContactsBytes()
        # As deep as the sensor streams: a reader that falls behind (a recorder) loses no tick.
        self.clock_pub = node.create_publisher(Clock, '/clock', max(10, qos.depth))
        self.joint_pub = node.create_publisher(JointState, 'joint_states', qos)
        self.body_pubs = [node.create_publisher(Odometry, f'ground_truth/{body}', qos)
                          for body in sim.tracked_bodies]
        self.contacts_pub = node.create_publisher(PointCloud2, 'contacts', qos)
        self.tf_pub = node.create_publisher(TFMessage, '/tf', TF_QOS)
        self.markers_pub = node.create_publisher(MarkerArray, 'contacts/markers', 10)
        self.markers_scale = markers_scale_m_per_n
        self.object_ids = [sim.body_names().index(body) for body in sim.scene.objects]
        self.latest_contacts: PadContacts | None = None
        self.latched = [node.create_publisher(String, 'contacts/bodies', LATCHED_QOS),
                        node.create_publisher(TFMessage, '/tf_static', TF_STATIC_QOS),
                        node.create_publisher(String, '/robot_description', LATCHED_QOS)]
        for publisher, msg in zip(self.latched, (
                conversions.body_names_to_msg(sim.body_names()),
                conversions.tf_message(sim.static_frame_transforms()),
                String(data=scene_urdf(sim.scene, model=sim.model)))):
            publisher.publish(msg)

    def publish_clock(self, time_s: float) -> None:
        """Publish /clock at ``time_s``, s (a fresh message: outside the ticks too)."""
        self.clock_pub.publish(conversions.clock_to_msg(time_s))

    def publish_tick(self, sim: Simulator, clock: bool, states: JointStates | None) -> None:
        """Publish a tick: /clock if ``clock``, joint states unless None, bodies, contacts."""
        if clock:
            self.clock_pub.publish(self.clock_bytes(sim.time_s))
        if states is not None:
            self.joint_pub.publish(self.joint_bytes(states))
        for publisher, data in zip(self.body_pubs, self.odometry_bytes(sim.body_arrays())):
            publisher.publish(data)
        self.tf_pub.publish(self.tf_bytes(sim.frame_transforms()))
        self.latest_contacts = sim.pad_contacts()
        self.contacts_pub.publish(self.contacts_bytes(self.latest_contacts))

    def publish_markers(self) -> None:
        """Publish rviz arrows of the latest tick's pad contacts."""
        contacts = self.latest_contacts
        if contacts is not None:
            self.markers_pub.publish(conversions.contact_markers_to_msg(
                contacts, self.markers_scale, self.object_ids))
