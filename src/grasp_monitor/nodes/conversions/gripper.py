"""control_msgs's gripper actions and the finger servos' messages, to and from core values."""

from __future__ import annotations

from typing import Sequence

from control_msgs.action import GripperCommand
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
           'GripperCommand']
