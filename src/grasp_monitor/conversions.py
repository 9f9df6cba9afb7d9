"""Where ROS messages meet core values: pure functions, one per direction."""

from __future__ import annotations

from typing import Mapping

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.rotations import rotate
from grasp_monitor.core.servo import COMMAND_FIELDS, ServoCommand, ServoConfig
from grasp_monitor.core.values import BodyArrays, BodyState, JointStates
from nav_msgs.msg import Odometry
import numpy as np
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

#: DiagnosticStatus levels by name.
LEVELS = {
    'OK': DiagnosticStatus.OK, 'WARN': DiagnosticStatus.WARN,
    'ERROR': DiagnosticStatus.ERROR, 'STALE': DiagnosticStatus.STALE,
}


def time_to_msg(time_s: float) -> Time:
    """Convert seconds to builtin_interfaces/Time (rounded to the nanosecond)."""
    nanoseconds = int(round(time_s * 1e9))
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def time_from_msg(stamp: Time) -> float:
    """Convert builtin_interfaces/Time to seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def clock_to_msg(time_s: float) -> Clock:
    """Convert simulated time to rosgraph_msgs/Clock."""
    return Clock(clock=time_to_msg(time_s))


def joint_state_to_msg(states: JointStates) -> JointState:
    """Convert JointStates to sensor_msgs/JointState, stamped with the sample time."""
    msg = JointState()
    msg.header.stamp = time_to_msg(states.time_s)
    msg.name = list(states.names)
    msg.position = states.position.tolist()
    msg.velocity = states.velocity.tolist()
    msg.effort = states.effort.tolist()
    return msg


def joint_state_from_msg(msg: JointState) -> JointStates:
    """Convert sensor_msgs/JointState to JointStates; missing arrays become NaN."""
    n = len(msg.name)

    def column(values: object) -> np.ndarray:
        array = np.asarray(values, float)
        return array if array.size == n else np.full(n, np.nan)

    return JointStates(tuple(msg.name), column(msg.position), column(msg.velocity),
                       column(msg.effort), time_from_msg(msg.header.stamp))


def servo_command_from_joint_state(
    msg: JointState, config: ServoConfig, previous: ServoCommand | None
) -> ServoCommand:
    """Build a servo command from JointState (position θ*, velocity θ̇*, effort τ_ff).

    Joints not named keep ``previous``; an empty array leaves its field as it was.
    NaN position disables position feedback; kp/kd scales and maximum torque keep
    their previous values (``servo_commands/full`` sets them).

    Raises:
        CommandError: unknown or repeated joint, wrong lengths, non-finite values.
    """
    if not msg.name:
        raise CommandError('servo command names no joint', 'wrong_length')
    return ServoCommand.from_named(
        config, list(msg.name),
        {'position': msg.position, 'velocity': msg.velocity,
         'feedforward_torque': msg.effort},
        previous)


def servo_command_from_multiarray(msg: Float64MultiArray, joints: int) -> ServoCommand:
    """Build a full servo command: rows = joints, columns = the six command fields.

    Raises:
        CommandError: wrong size or invalid values.
    """
    return ServoCommand.from_rows(np.asarray(msg.data, float), joints)


def odometry_from_body_arrays(bodies: BodyArrays, frame_id: str = 'world') -> list[Odometry]:
    """Build one nav_msgs/Odometry per body: pose in ``frame_id``, twist in the body frame."""
    stamp = time_to_msg(bodies.time_s)
    linear, angular = bodies.twist_in_body()
    messages = []
    for name, p, q, v, w in zip(bodies.names, bodies.position.tolist(),
                                bodies.quaternion.tolist(), linear.tolist(), angular.tolist()):
        msg = Odometry()
        msg.header.stamp = stamp
        msg.header.frame_id = frame_id
        msg.child_frame_id = name
        pose = msg.pose.pose
        pose.position.x, pose.position.y, pose.position.z = p
        pose.orientation.w, pose.orientation.x, pose.orientation.y, pose.orientation.z = q
        twist = msg.twist.twist
        twist.linear.x, twist.linear.y, twist.linear.z = v
        twist.angular.x, twist.angular.y, twist.angular.z = w
        messages.append(msg)
    return messages


def servo_command_to_multiarray(command: ServoCommand) -> Float64MultiArray:
    """Convert a servo command to ``servo_commands/full`` rows (one per joint)."""
    table = np.stack([getattr(command, name) for name in COMMAND_FIELDS], axis=1)
    return Float64MultiArray(data=table.reshape(-1).tolist())


def body_state_from_odometry(msg: Odometry) -> BodyState:
    """Convert nav_msgs/Odometry (child-frame twist) to BodyState (world twist)."""
    p = msg.pose.pose.position
    o = msg.pose.pose.orientation
    quaternion = np.array([o.w, o.x, o.y, o.z])
    lin = msg.twist.twist.linear
    ang = msg.twist.twist.angular
    return BodyState(
        msg.child_frame_id, [p.x, p.y, p.z], quaternion,
        rotate(quaternion, [lin.x, lin.y, lin.z]), rotate(quaternion, [ang.x, ang.y, ang.z]),
        time_from_msg(msg.header.stamp))


def diagnostic_status(
    name: str, level: str, message: str, values: Mapping[str, object], hardware_id: str = ''
) -> DiagnosticStatus:
    """Build a DiagnosticStatus with ``values`` as key/value strings."""
    return DiagnosticStatus(
        level=LEVELS[level], name=name, message=message, hardware_id=hardware_id,
        values=[KeyValue(key=str(k), value=str(v)) for k, v in values.items()])
