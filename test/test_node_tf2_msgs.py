"""The README's environment has the real tf2_msgs/msg/TFMessage: /tf carries it over DDS.

Without a ROS installation, set-up generates tf2_msgs from interfaces/tf2_msgs; its type
name and type hash must be those of the real package, or other ROS tools would not match
the topic.
"""

from builtin_interfaces.msg import Time
from common import publish_until, wait_for
from geometry_msgs.msg import Quaternion, Transform, TransformStamped, Vector3
from std_msgs.msg import Header
from tf2_msgs.msg import TFMessage

# What `ros2 topic info -v /tf` prints for tf2_msgs/msg/TFMessage on a Jazzy installation.
UPSTREAM_TYPE_HASH = 'RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087'


def transform(parent, child, stamp_ns, xyz, xyzw):
    """Return a TransformStamped from ``parent`` to ``child``."""
    return TransformStamped(
        header=Header(stamp=Time(sec=stamp_ns // 10**9, nanosec=stamp_ns % 10**9),
                      frame_id=parent),
        child_frame_id=child,
        transform=Transform(translation=Vector3(x=xyz[0], y=xyz[1], z=xyz[2]),
                            rotation=Quaternion(x=xyzw[0], y=xyzw[1], z=xyzw[2], w=xyzw[3])))


def test_tf_messages_cross_dds_with_the_standard_type_name_and_hash(ros):
    publisher_node = ros.client('tf_publisher')
    subscriber_node = ros.client('tf_subscriber')
    received = []
    subscriber_node.create_subscription(TFMessage, '/tf', received.append, 100)
    publisher = publisher_node.create_publisher(TFMessage, '/tf', 100)
    sent = TFMessage(transforms=[
        transform('world', 'base', 1_500_000_000, (0.1, -0.2, 0.3), (0.0, 0.0, 0.0, 1.0)),
        transform('base', 'finger_left', 1_500_000_000, (0.0, 0.03, 0.12),
                  (0.0, 0.0, 0.7071067811865476, 0.7071067811865476)),
    ])

    assert publish_until(lambda: publisher.publish(sent), lambda: sent in received)
    assert received[0] == sent
    assert [t.child_frame_id for t in received[0].transforms] == ['base', 'finger_left']

    def tf_types():
        return dict(subscriber_node.get_topic_names_and_types()).get('/tf')
    assert wait_for(tf_types) == ['tf2_msgs/msg/TFMessage']
    (endpoint,) = subscriber_node.get_publishers_info_by_topic('/tf')
    assert endpoint.topic_type == 'tf2_msgs/msg/TFMessage'
    assert str(endpoint.topic_type_hash) == UPSTREAM_TYPE_HASH
