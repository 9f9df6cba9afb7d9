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

    Arm joints: position q_des(t), velocity target (the trajectory's
    ``velocity_target``: dq_des(t) or A cos(w t)), scales 1, the arm's torque
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
        # The command's table (rows COMMAND_FIELDS, a column per joint): the fingers'
        # columns and the gains and limits never change; each call fills in the arm's
        # targets and feedforward.
        self._table = np.array([
            [0.0] * 6 + [np.nan, np.nan],
            [0.0] * 8,
            [0.0] * 6 + [force, force],
            [1.0] * 6 + [0.0, 0.0],
            [1.0] * 6 + [0.0, 0.0],
            list(arm.maximum_torque_nm) + [force, force],
        ])

    def _feedforward(self, q: np.ndarray, dq: np.ndarray, ddq: np.ndarray) -> np.ndarray:
        if self.feedforward == 'none':
            return np.zeros(6)
        with self._lock:
            data = self._data
            data.qpos[:] = q
            if self.feedforward == 'inverse_dynamics':
                data.qvel[:] = dq
                data.qacc[:] = ddq
            else:
                data.qvel[:] = 0.0
                data.qacc[:] = 0.0
            mujoco.mj_inverse(self._model, data)
            return data.qfrc_inverse.copy()

    def __call__(self, time_s: float) -> ServoCommand:
        """Return the command for all 8 joints (ARM_JOINTS then FINGER_JOINTS) at ``time_s``."""
        q, dq, ddq = self.trajectory.state(time_s)
        table = self._table.copy()
        if self.trajectory.velocity_target != 'derivative':
            dq_target = self.trajectory.velocity_target_rad_s(time_s)
        else:
            dq_target = dq
        table[0, :6], table[1, :6], table[2, :6] = q, dq_target, self._feedforward(q, dq, ddq)
        # Built here from checked settings at every 1 ms step: no checks (half its cost).
        return ServoCommand.trusted(table)
