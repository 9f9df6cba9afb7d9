"""Servo commands as MuJoCo actuator parameters: the moteus law inside every step.

Each actuated joint has an affine actuator whose force is ``ctrl + bias1 * q +
bias2 * qdot`` clamped to the force range, which is the moteus law exactly when
``ctrl = tau_ff + kp' * q* + kd' * qdot*``, ``bias1 = -kp'``, ``bias2 = -kd'``
(kp' = kp·kp_scale). MuJoCo then applies the law inside every step (implicitly
for the damping term), so stepping needs no Python per physics step and can use
``nstep``.
"""

from __future__ import annotations

from grasp_monitor.core.servo import ServoCommand, ServoConfig
import mujoco
import numpy as np


class ServoActuators:
    """The actuators of the servo joints, set to the servo law of a command.

    Args:
        model: the model; its actuators ``actuator_ids`` become affine, force-limited.
        data: the data whose ``ctrl`` a command sets.
        actuator_ids: the actuator of each servo joint, in the servos' order.
        config: the servos' gains.
    """

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, actuator_ids: np.ndarray,
                 config: ServoConfig) -> None:
        self._model = model
        self._data = data
        self._ids = actuator_ids
        self._config = config
        # Every actuator of a joint becomes the servo law (affine bias, force-limited).
        model.actuator_gaintype[actuator_ids] = mujoco.mjtGain.mjGAIN_FIXED
        model.actuator_gainprm[actuator_ids, :] = 0.0
        model.actuator_gainprm[actuator_ids, 0] = 1.0
        model.actuator_biastype[actuator_ids] = mujoco.mjtBias.mjBIAS_AFFINE
        model.actuator_forcelimited[actuator_ids] = 1
        model.actuator_ctrllimited[actuator_ids] = 0
        self._applied: ServoCommand | None = None
        self._applied_key = b''
        self._gains: tuple[np.ndarray, np.ndarray, np.ndarray] = ()
        self._ctrl = np.zeros(len(actuator_ids))

    def forget(self) -> None:
        """Forget the command applied last: the next ``apply`` sets everything."""
        self._applied = None
        self._applied_key = b''

    def apply(self, command: ServoCommand) -> None:
        """Set the actuators to ``command``'s law (nothing when it is the one applied)."""
        if command is self._applied:
            return
        table = command.table
        # Gains, limits and which targets are set: while they stay, only ctrl changes.
        key = table[3:].tobytes() + np.isnan(table[0]).tobytes()
        if key != self._applied_key:
            kp = self._config.kp * command.kp_scale
            kd = self._config.kd * command.kd_scale
            has_position = ~np.isnan(command.position)
            kp = np.where(has_position, kp, 0.0)
            ids = self._ids
            self._model.actuator_biasprm[ids, 0] = 0.0
            self._model.actuator_biasprm[ids, 1] = -kp
            self._model.actuator_biasprm[ids, 2] = -kd
            self._model.actuator_forcerange[ids, 0] = -command.maximum_torque
            self._model.actuator_forcerange[ids, 1] = command.maximum_torque
            self._gains = kp, kd, has_position
            self._applied_key = key
        kp, kd, has_position = self._gains
        target = np.where(has_position, command.position, 0.0)
        self._ctrl = command.feedforward_torque + kp * target + kd * command.velocity
        self._data.ctrl[self._ids] = self._ctrl
        self._applied = command

    def add_feedforward(self, torque: np.ndarray) -> None:
        """Add ``torque`` (N·m) to the applied command's feedforward until the next call.

        The force range still limits the total (motor noise).
        """
        self._data.ctrl[self._ids] = self._ctrl + torque
