"""control_msgs's gripper actions and the finger servos' messages, to and from core values."""

from __future__ import annotations

from typing import Sequence

from control_msgs.action import GripperCommand, ParallelGripperCommand
from grasp_monitor.core.errors import CommandError
import numpy as np
from sensor_msgs.msg import JointState


def finger_command_to_msg(joints: Sequence[str], targets_m: np.ndarray,
                          velocities_m_per_s: np.ndarray) -> JointState:
    """Return the fingers' ``servo_commands``: position and velocity targets, no feedforward.

    Unstamped: the gripper answers no simulator clock (it is not a lockstep peer).
    """
    return JointState(name=list(joints), position=targets_m.tolist(),
                      velocity=velocities_m_per_s.tolist(), effort=[0.0] * len(joints))


def finger_states_from_msg(msg: JointState,
                           joints: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the fingers' positions (m) and efforts (N) from ``joint_states``.

    None when the message names none of ``joints`` (another bank's states).

    Raises:
        CommandError: it names some fingers but not all, or their positions are missing
            or not finite.
    """
    index = {name: i for i, name in enumerate(msg.name)}
    found = [index[j] for j in joints if j in index]
    if not found:
        return None
    if len(found) != len(joints):
        raise CommandError(f'joint_states names {len(found)} of the fingers '
                           f'{", ".join(joints)}', 'unknown_joint')
    position = np.asarray(msg.position, float)
    if position.size != len(msg.name) or not np.isfinite(position[found]).all():
        raise CommandError('joint_states has no finite position for every finger',
                           'not_finite')
    effort = np.asarray(msg.effort, float)
    efforts = effort[found] if effort.size == len(msg.name) else np.full(len(found), np.nan)
    return position[found], efforts


def parallel_goal_from_msg(command: JointState,
                           joints: Sequence[str]) -> tuple[float, float, float]:
    """Read a ParallelGripperCommand goal: (position m, max effort N, speed m/s).

    The named joints must be fingers of ``joints``, each with one position, all equal:
    the fingers move together. Velocity and effort are optional (0: the gripper's own);
    given, one value (or one per name), their largest is the goal's.

    Raises:
        CommandError: no name, an unknown or repeated joint, lengths that do not match,
            positions that differ.
    """
    names = list(command.name)
    if not names:
        raise CommandError(f'the command names no joint: name one or more of '
                           f'{", ".join(joints)}', 'wrong_length')
    unknown = [name for name in names if name not in joints]
    if unknown or len(set(names)) != len(names):
        raise CommandError(f'joints {names}: name each of {", ".join(joints)} at most once',
                           'unknown_joint')
    positions = np.asarray(command.position, float)
    if positions.size != len(names):
        raise CommandError(f'{positions.size} positions for {len(names)} joints',
                           'wrong_length')
    if np.unique(positions).size > 1:
        raise CommandError(f'positions {positions.tolist()} m differ: the fingers move '
                           'together, give one position', 'out_of_range')
    optional = []
    for field in ('effort', 'velocity'):
        values = np.asarray(getattr(command, field), float)
        if values.size not in (0, 1, len(names)):
            raise CommandError(f'{values.size} {field} values for {len(names)} joints: give '
                               'none, one, or one per joint', 'wrong_length')
        optional.append(float(values.max()) if values.size else 0.0)
    return float(positions[0]), optional[0], optional[1]


def joint_state_of(joints: Sequence[str], positions_m: np.ndarray,
                   efforts_n: np.ndarray) -> JointState:
    """Return the fingers' state as ParallelGripperCommand's feedback and result carry it."""
    return JointState(name=list(joints), position=positions_m.tolist(),
                      effort=np.nan_to_num(efforts_n).tolist())


def gripper_state(positions_m: np.ndarray, efforts_n: np.ndarray, stalled: bool = False,
                  reached_goal: bool = False):
    """Return GripperCommand's feedback or result fields: mean position and effort."""
    return {'position': float(np.mean(positions_m)), 'effort': float(np.nanmean(efforts_n))
            if np.isfinite(efforts_n).any() else 0.0,
            'stalled': stalled, 'reached_goal': reached_goal}


def fill(message, fields: dict):
    """Set ``fields`` on a GripperCommand feedback or result message; return it."""
    for key, value in fields.items():
        setattr(message, key, value)
    return message


__all__ = ['finger_command_to_msg', 'finger_states_from_msg', 'fill', 'gripper_state',
           'GripperCommand', 'joint_state_of', 'parallel_goal_from_msg',
           'ParallelGripperCommand']


def goal_from_request(request, joints: Sequence[str]) -> tuple[float, float, float]:
    """Return a GripperCommand or ParallelGripperCommand goal's (position m, effort N, speed m/s).

    Raises:
        CommandError: a parallel goal that names other fingers, or moves them apart.
    """
    if isinstance(request, ParallelGripperCommand.Goal):
        return parallel_goal_from_msg(request.command, joints)
    return request.command.position, request.command.max_effort, 0.0


def action_state(message, parallel: bool, joints: Sequence[str],
                 fingers: tuple[np.ndarray, np.ndarray], stalled: bool = False,
                 reached: bool = False):
    """Fill a gripper action's feedback or result ``message`` with the fingers' state now."""
    if parallel:
        message.state = joint_state_of(joints, *fingers)
        fields = {'stalled': stalled, 'reached_goal': reached}
    else:
        fields = gripper_state(*fingers, stalled, reached)
    return fill(message, {k: v for k, v in fields.items() if hasattr(message, k)})
