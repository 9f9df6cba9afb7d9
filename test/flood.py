"""A flood of malformed input on the graph's command and sensor topics, until SIGINT.

Run as ``python test/flood.py``: servo commands at ``--command-rate`` (2 kHz, split over
``servo_commands`` and ``servo_commands/full``) and every monitor input (the pads' tactile
clouds, the object's ground truth, ``joint_states``, ``contacts``) at ``--input-rate``
(400 Hz each), each message of the right type but malformed, so every one must be refused.
"""

import argparse
import math
import time

from geometry_msgs.msg import Quaternion
from nav_msgs.msg import Odometry
import rclpy
from rclpy.executors import ExternalShutdownException
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import Float64MultiArray


def garbage(node):
    """Return (publisher, message) pairs: commands first, then the monitor's inputs."""
    unknown = JointState(name=['no_such_joint'], position=[math.nan])
    unknown.header.stamp = node.get_clock().now().to_msg()
    short = Float64MultiArray(data=[1.0])  # not 6 values per joint
    cloud = PointCloud2(height=1, width=3, point_step=4, row_step=12, data=bytes(12))  # no fields
    odometry = Odometry()
    odometry.pose.pose.orientation = Quaternion(x=0.0, y=0.0, z=0.0, w=0.0)  # not a rotation
    lengths = JointState(name=['finger_left', 'finger_right'], position=[0.0])  # 2 names, 1 value
    commands = [(node.create_publisher(JointState, 'servo_commands', 10), unknown),
                (node.create_publisher(Float64MultiArray, 'servo_commands/full', 10), short)]
    inputs = [(node.create_publisher(PointCloud2, f'tactile/{pad}', 10), cloud)
              for pad in ('finger_left', 'finger_right')]
    inputs += [(node.create_publisher(Odometry, 'ground_truth/object', 10), odometry),
               (node.create_publisher(JointState, 'joint_states', 10), lengths),
               (node.create_publisher(PointCloud2, 'contacts', 10), cloud)]
    return commands, inputs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--command-rate', type=float, default=2000.0)
    parser.add_argument('--input-rate', type=float, default=400.0)
    args = parser.parse_args()
    rclpy.init()
    node = rclpy.create_node('flood')
    commands, inputs = garbage(node)
    period_s = 1.0 / args.input_rate
    per_period = max(1, round(args.command_rate / args.input_rate))
    sent, next_s = 0, time.monotonic()
    try:
        while rclpy.ok():
            for i in range(per_period):
                publisher, msg = commands[(sent + i) % len(commands)]
                publisher.publish(msg)
            for publisher, msg in inputs:
                publisher.publish(msg)
            sent += per_period
            next_s += period_s
            time.sleep(max(0.0, next_s - time.monotonic()))
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == '__main__':
    main()
