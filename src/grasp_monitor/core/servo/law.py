"""The moteus servo law (as upkie's ``UpkieServos`` exposes it), vectorised over joints.

Per servo: ``tau = clamp(tau_ff + kp * kp_scale * (theta* - theta)
+ kd * kd_scale * (dtheta* - dtheta), -tau_max, tau_max)``; a NaN position
target disables the position term. ``kp`` and ``kd`` are fixed per servo by
configuration; commands only scale them.
"""

from __future__ import annotations

from grasp_monitor.core.servo.command import ServoCommand
import numpy as np


def servo_torque(
    kp: np.ndarray,
    kd: np.ndarray,
    command: ServoCommand,
    position: np.ndarray,
    velocity: np.ndarray,
    feedforward_offset: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Return the torque (N·m) of the moteus law; NaN position disables its term.

    ``feedforward_offset`` (N·m) is added to the command's feedforward torque
    before the limit (motor noise).
    """
    position_error = np.where(np.isnan(command.position), 0.0, command.position - position)
    torque = (
        command.feedforward_torque + feedforward_offset
        + kp * command.kp_scale * position_error
        + kd * command.kd_scale * (command.velocity - velocity)
    )
    return np.clip(torque, -command.maximum_torque, command.maximum_torque)
