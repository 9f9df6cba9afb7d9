"""Joint states and servo commands."""

from __future__ import annotations

from grasp_monitor.core.errors import CommandError, InputError
from grasp_monitor.core.servo import COMMAND_FIELDS, ServoCommand, ServoConfig
from grasp_monitor.core.values import JointStates
from grasp_monitor.nodes.conversions.clock import time_from_msg, time_to_msg
import numpy as np
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray


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


def joint_velocities_from_msg(msg: JointState) -> tuple[list[str], np.ndarray, float,
                                                        np.ndarray | None]:
    """Read the joint names, velocities, time and positions of a sensor_msgs/JointState.

    The positions are None when the message has none (an empty array); a NaN position
    is a joint whose position is not known.

    Raises:
        InputError: not one velocity (or position) per name ('wrong_length'), or a
            velocity is NaN or infinite, or a position infinite ('not_finite').
    """
    velocity = np.asarray(msg.velocity, float)
    if velocity.size != len(msg.name):
        raise InputError(f'joint_states has {velocity.size} velocities for '
                         f'{len(msg.name)} names', 'wrong_length')
    if not np.isfinite(velocity).all():
        raise InputError('joint_states holds a NaN or infinite velocity', 'not_finite')
    position = np.asarray(msg.position, float)
    if position.size and position.size != len(msg.name):
        raise InputError(f'joint_states has {position.size} positions for '
                         f'{len(msg.name)} names', 'wrong_length')
    if np.isinf(position).any():
        raise InputError('joint_states holds an infinite position', 'not_finite')
    return (list(msg.name), velocity, time_from_msg(msg.header.stamp),
            position if position.size else None)


def servo_command_from_joint_state(
    msg: JointState, config: ServoConfig, previous: ServoCommand | None
) -> ServoCommand:
    """Build a servo command from JointState (position θ*, velocity θ̇*, effort τ_ff).

    Every command carries a position per name: NaN turns position feedback off,
    an empty array is refused (it would turn it off silently). Joints not named
    keep ``previous``; an empty velocity or effort leaves its field as it was;
    kp/kd scales and maximum torque keep their previous values
    (``servo_commands/full`` sets them).

    Raises:
        CommandError: no name or no position, unknown or repeated joint, wrong
            lengths, non-finite values.
    """
    if not msg.name:
        raise CommandError('servo command names no joint', 'wrong_length')
    if len(msg.position) == 0:
        raise CommandError(
            f'servo command has no position: give one per name ({", ".join(msg.name)}); '
            'NaN turns position control off', 'missing_position')
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


def servo_command_to_multiarray(command: ServoCommand) -> Float64MultiArray:
    """Convert a servo command to ``servo_commands/full`` rows (one per joint)."""
    table = np.stack([getattr(command, name) for name in COMMAND_FIELDS], axis=1)
    return Float64MultiArray(data=table.reshape(-1).tolist())
