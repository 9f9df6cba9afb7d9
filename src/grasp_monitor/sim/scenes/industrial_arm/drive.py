"""The scenario's own command: the arm tracks its sinusoids, the fingers squeeze."""

from __future__ import annotations

import threading

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.sim.scenes.industrial_arm.models import ArmModel, ArmTrajectory, GripperModel
import mujoco
import numpy as np


#: What the arm joints add to the scenario's PD law: nothing, the gravity
#: torque at q_des, or the full inverse dynamics along q_des (payload included).
FEEDFORWARDS = ('none', 'gravity', 'inverse_dynamics')


class ArmDrive:
    """The scenario's own command: the arm tracks its sinusoids, the fingers squeeze.

    Arm joints: position q_des(t), velocity dq_des(t), scales 1, the arm's torque
    limits, and a feedforward torque of kind ``feedforward`` (FEEDFORWARDS),
    computed on a rigid copy of the robot (fingers and cube welded to the hand).
    Fingers: NaN position, scales 0 and a constant ``grip_force_n`` that closes
    them on the cube.

    Args:
        trajectory: the arm's targets and gains.
        arm: the arm (torque limits).
        gripper: the gripper (squeeze force).
        feedforward: one of FEEDFORWARDS.
        rigid_model: the rigid copy of the robot (arm joints only, contacts off).
    """

    def __init__(self, trajectory: ArmTrajectory, arm: ArmModel, gripper: GripperModel,
                 feedforward: str, rigid_model: mujoco.MjModel) -> None:
        if feedforward not in FEEDFORWARDS:
            raise ConfigError(
                f'feedforward {feedforward!r} is not one of {", ".join(FEEDFORWARDS)}')
        self.trajectory = trajectory
        self.feedforward = feedforward
        self._model = rigid_model
        self._data = mujoco.MjData(rigid_model)
        # mj_inverse writes into one MjData; callers on several threads take turns.
        self._lock = threading.Lock()
        force = gripper.grip_force_n
        self._squeeze_n = np.array([force, force])
        self._kp_scale = np.array([1.0] * 6 + [0.0, 0.0])
        self._kd_scale = self._kp_scale.copy()
        self._maximum_torque = np.array(arm.maximum_torque_nm + (force, force))

    def arm_feedforward_nm(self, time_s: float) -> np.ndarray:
        """Return the arm's feedforward torque (6,) at ``time_s``, N·m."""
        if self.feedforward == 'none':
            return np.zeros(6)
        with self._lock:
            data = self._data
            data.qpos[:] = self.trajectory.position_rad(time_s)
            if self.feedforward == 'inverse_dynamics':
                data.qvel[:] = self.trajectory.velocity_rad_s(time_s)
                data.qacc[:] = self.trajectory.acceleration_rad_s2(time_s)
            else:
                data.qvel[:] = 0.0
                data.qacc[:] = 0.0
            mujoco.mj_inverse(self._model, data)
            return data.qfrc_inverse.copy()

    def __call__(self, time_s: float) -> ServoCommand:
        """Return the command for all 8 joints (ARM_JOINTS then FINGER_JOINTS) at ``time_s``."""
        trajectory = self.trajectory
        return ServoCommand(
            position=np.concatenate([trajectory.position_rad(time_s), [np.nan, np.nan]]),
            velocity=np.concatenate([trajectory.velocity_rad_s(time_s), [0.0, 0.0]]),
            feedforward_torque=np.concatenate(
                [self.arm_feedforward_nm(time_s), self._squeeze_n]),
            kp_scale=self._kp_scale,
            kd_scale=self._kd_scale,
            maximum_torque=self._maximum_torque,
        )
