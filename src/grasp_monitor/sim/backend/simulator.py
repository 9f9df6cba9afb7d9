"""``Simulator``: the one owner of ``MjModel`` and ``MjData``; steps and hands out copies.

Servo commands become actuator parameters (``servo_actuators``), so MuJoCo applies
the servo law inside every step.
"""

from __future__ import annotations

import logging
import math

from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.frames import FrameTransforms
from grasp_monitor.core.noise import NoiseConfig
from grasp_monitor.core.pad_contacts import PadContacts
from grasp_monitor.core.servo import ServoBank, ServoCommand, ServoConfig, ServoObservation
from grasp_monitor.core.servo.backend import ServoBackend
from grasp_monitor.core.servo.settings import COMMAND_TIMEOUT, WATCHDOG_ACTION
from grasp_monitor.core.values import BodyArrays, Contacts, JointStates
from grasp_monitor.sim.backend.external_force import ExternalForce
from grasp_monitor.sim.backend.frame_tree import FrameTree
from grasp_monitor.sim.backend.names import contiguous_view, resolve_body, resolve_ids
from grasp_monitor.sim.backend.servo_actuators import ServoActuators
from grasp_monitor.sim.scene import Drive, Scene
import mujoco
import numpy as np

_log = logging.getLogger(__name__)
_BAD_QPOS = int(mujoco.mjtWarning.mjWARN_BADQPOS)
_BAD_QVEL = int(mujoco.mjtWarning.mjWARN_BADQVEL)
_BAD_QACC = int(mujoco.mjtWarning.mjWARN_BADQACC)
#: What stepping depends on: positions, velocities, warm start, controls, forces; not the
#: sensors' and actuators' histories (large; only delayed sensors and actuators read them).
_STATE = int(mujoco.mjtState.mjSTATE_INTEGRATION) & ~int(mujoco.mjtState.mjSTATE_HISTORY)


class Simulator(ServoBackend):
    """Steps a scene with its servos and hands out copies of its state.

    Args:
        scene: the generated scenario.
        command_timeout_s: servo watchdog; 0 disables it.
        drive: commands over time applied until an outside command arrives
            (default: the scene's own drive, if any).
        watchdog_action: what the tripped watchdog commands (``ServoConfig``).
        motor_noise: noise on the servos' feedforward torque, redrawn at every
            ``apply_control`` from the seed and the physics step number.
    """

    def __init__(self, scene: Scene, command_timeout_s: float = COMMAND_TIMEOUT.default,
                 drive: Drive | None = None,
                 watchdog_action: str = WATCHDOG_ACTION.default,
                 motor_noise: NoiseConfig = NoiseConfig()) -> None:
        self.scene = scene
        self.drive = drive if drive is not None else scene.drive
        try:
            self.model = mujoco.MjModel.from_xml_string(scene.mjcf)
        except ValueError as error:
            raise ConfigError(f'scenario {scene.name} does not compile: {error}') from None
        self.data = mujoco.MjData(self.model)
        # Views into MjData that step reads every physics step.
        self._warning_counts = self.data.warning.number
        self._qvel = self.data.qvel
        model = self.model
        joint_ids = resolve_ids(model, mujoco.mjtObj.mjOBJ_JOINT, scene.joints, 'joint')
        self._qpos_adr = model.jnt_qposadr[joint_ids].copy()
        self._dof_adr = model.jnt_dofadr[joint_ids].copy()
        self._actuator_ids = resolve_ids(
            model, mujoco.mjtObj.mjOBJ_ACTUATOR, scene.joints, 'actuator')
        tracked = tuple(dict.fromkeys(scene.objects + scene.pads))
        self.tracked_bodies = tracked
        self._tracked_ids = resolve_ids(model, mujoco.mjtObj.mjOBJ_BODY, tracked, 'body')
        self._pad_ids = resolve_ids(model, mujoco.mjtObj.mjOBJ_BODY, scene.pads, 'body')
        self._robot_ids = resolve_ids(
            model, mujoco.mjtObj.mjOBJ_BODY, scene.robot_bodies, 'body')
        self._base_id = int(resolve_body(model, scene.base_body))
        self.servos = ServoBank(ServoConfig(
            scene.joints, scene.kp, scene.kd, scene.maximum_torque,
            command_timeout_s=command_timeout_s, watchdog_action=watchdog_action,
            motor_noise=motor_noise))
        self._motor_noise = None if self.servos.motor_noise.is_identity else \
            self.servos.motor_noise
        self._servo_force = contiguous_view(self.data.actuator_force, self._actuator_ids)
        self._servo_velocity = contiguous_view(self.data.qvel, self._dof_adr)
        self._actuators = ServoActuators(model, self.data, self._actuator_ids,
                                         self.servos.config)
        self._velocity_buffer = np.zeros(6)
        # the contacts of the current state, read once however many readers a tick has
        self._state_count = 0
        self._contacts_of: tuple[tuple[int, float], Contacts] | None = None
        self._frame_tree = FrameTree(model)
        self.frame_names = self._frame_tree.names
        self._external_force = ExternalForce(model, self.data, scene.objects)
        self.diverged = False
        self.reset()

    # -- time and control -------------------------------------------------------------
    @property
    def time_s(self) -> float:
        """Simulated time, s."""
        return float(self.data.time)

    @property
    def timestep_s(self) -> float:
        """Physics step, s."""
        return float(self.model.opt.timestep)

    def reset(self) -> None:
        """Back to the scene's first keyframe (or the model's rest pose); servos stop."""
        if self.model.nkey > 0:
            mujoco.mj_resetDataKeyframe(self.model, self.data, 0)
        else:
            mujoco.mj_resetData(self.model, self.data)
        self.servos.reset()
        self._external_force.reset()
        self._actuators.forget()
        self.diverged = False
        self._actuators.apply(self.servos.active_command(self.time_s))
        mujoco.mj_forward(self.model, self.data)
        self._state_count += 1

    @property
    def servo_config(self) -> ServoConfig:
        """The servos' joints, gains and defaults."""
        return self.servos.config

    @property
    def command(self) -> ServoCommand | None:
        """The latest command accepted (None before the first or since a reset)."""
        return self.servos.received

    def set_command(self, command: ServoCommand, stamp_s: float | None = None) -> None:
        """Accept a validated command now; it feeds the watchdog from ``stamp_s`` (s).

        A stamp on this timeline (after 0, not after now) dates the command: a
        command that reached the simulator late counts from when it was sent, so
        the watchdog's bound holds from the sender's stamp. Otherwise it counts
        from now.
        """
        now_s = self.time_s
        if stamp_s is not None and 0.0 < stamp_s <= now_s:
            now_s = stamp_s
        self.servos.set_command(command, now_s)

    def close(self) -> None:
        """Nothing to release: the model and data go with the simulator."""

    def apply_control(self) -> None:
        """Set the actuators and the external force for the time now, without stepping.

        What ``step`` does before it steps: the scene's drive (until an
        outside command arrives) or the watchdog's active command, and the
        force test's force. A caller that steps MuJoCo itself calls it at the
        control rate.
        """
        if self.drive is not None and self.servos.last_command_time_s is None:
            self._actuators.apply(self.drive(self.time_s))
        else:
            self._actuators.apply(self.servos.active_command(self.time_s))
        if self._motor_noise is not None:
            self._actuators.add_feedforward(
                self._motor_noise.sample(round(self.data.time / self.model.opt.timestep)))
        self._external_force.apply()

    def instability_warnings(self) -> int:
        """How many times MuJoCo reset an unstable state (bad qpos, qvel or qacc) so far."""
        return self._instability_warnings()

    def mark_diverged(self, time_s: float) -> None:
        """Record that the simulation diverged at ``time_s`` (s), as ``step`` does."""
        if not self.diverged:
            _log.error('simulation diverged at t=%.4f s', time_s)
        self.diverged = True

    def step(self, nstep: int = 1) -> bool:
        """Advance ``nstep`` physics steps under the active command.

        The watchdog and the scene's own drive are evaluated once per call, so
        call it at the control rate. Returns False (and sets ``diverged``) when
        the state became non-finite or MuJoCo had to reset an unstable state.

        Raises:
            ConfigError: if ``nstep`` < 1.
        """
        if nstep < 1:
            raise ConfigError(f'nstep must be >= 1, got {nstep}')
        # Often called every 1 ms step (the runner at 1 kHz, the arm's benchmark):
        # each numpy call here costs about 1 us, a tenth of a small scene's
        # physics, hence the views made once in __init__.
        self.apply_control()
        warnings_before = self._instability_warnings()
        previous_time = self.data.time
        mujoco.mj_step(self.model, self.data, nstep=nstep)
        force, velocity = self._servo_force, self._servo_velocity
        if force is None or velocity is None:
            force = self.data.actuator_force[self._actuator_ids]
            velocity = self.data.qvel[self._dof_adr]
        self.servos.set_torque(force)
        self.servos.update_telemetry(velocity, self.data.time - previous_time)
        return self.check_steps(previous_time, warnings_before)

    def check_steps(self, previous_time_s: float, warnings_before: int) -> bool:
        """Mark the simulation diverged if the steps just taken went wrong.

        For a caller that steps MuJoCo itself: ``previous_time_s`` and
        ``warnings_before`` (``instability_warnings()``) are read before
        stepping. Returns False once diverged.
        """
        self._state_count += 1
        # MuJoCo's reset zeroes its counters before it counts itself (a count can
        # stay 1) and sends time back to the start. qpos integrates qvel, so a
        # finite qvel leaves it finite; a NaN or inf makes the dot product so.
        if (self._instability_warnings() != warnings_before
                or self.data.time <= previous_time_s
                or not math.isfinite(np.dot(self._qvel, self._qvel))):
            self.mark_diverged(previous_time_s)
        return not self.diverged

    def _instability_warnings(self) -> int:
        # MuJoCo resets the state itself on a bad qpos, qvel or qacc, and counts it.
        counts = self._warning_counts
        return int(counts[_BAD_QPOS]) + int(counts[_BAD_QVEL]) + int(counts[_BAD_QACC])

    def save_state(self) -> np.ndarray:
        """Return a copy of MuJoCo's integration state, for ``restore_state``."""
        state = np.empty(mujoco.mj_stateSize(self.model, _STATE))
        mujoco.mj_getState(self.model, self.data, state, _STATE)
        return state

    def restore_state(self, state: np.ndarray) -> None:
        """Go back to a state from ``save_state`` (no longer diverged); step before reading.

        MuJoCo's stepping is deterministic, so the same steps from there give
        the same states. Not rewound: the servos' telemetry and the history
        buffers (MuJoCo files no sample older than its newest one, so the
        steps taken again add none).
        """
        mujoco.mj_setState(self.model, self.data, state, _STATE)
        self.diverged = False

    def checkpoint(self) -> tuple:
        """Return what ``rollback`` needs to return here: the state and the force test."""
        return self.save_state(), self._external_force.checkpoint(), self.diverged

    def rollback(self, checkpoint: tuple) -> None:
        """Go back to a ``checkpoint``: MuJoCo's state and the force test as they were."""
        state, external_force, diverged = checkpoint
        self.restore_state(state)
        self._external_force.rollback(external_force)
        self.diverged = diverged

    def check(self) -> None:
        """Raise SimulationError if the simulation diverged."""
        if self.diverged:
            raise SimulationError(f'scenario {self.scene.name} diverged')

    # -- external force test ----------------------------------------------------------
    def set_external_force(self, body: str, force_in_world: np.ndarray) -> None:
        """Apply a force (N, world frame) at the COM of ``body`` until cleared."""
        self._external_force.set_force(body, force_in_world)

    def clear_external_force(self) -> None:
        """Remove the external force, if any."""
        self._external_force.clear_force()

    def start_force_test(self, test: ExternalForceTest, body: str = '') -> None:
        """Pull on ``body`` (default: the first object) with ``test``'s force from now on."""
        self._external_force.start_test(test, body, self.time_s)

    def schedule_force_test(self, test: ExternalForceTest, body: str = '',
                            start_s: float = 0.0) -> None:
        """Start ``test`` on ``body`` by itself at simulated time ``start_s``, s, after each reset.

        The control tick whose time reaches ``start_s`` starts it, whoever steps
        (the node's runner or the offline pipeline), so both fling at the same tick.
        """
        self._external_force.schedule_test(test, body, start_s)

    def stop_force_test(self) -> None:
        """End the external force test and remove its force."""
        self._external_force.stop_test()

    @property
    def force_test_active(self) -> bool:
        """Whether the external force test is pulling."""
        return self._external_force.test_active

    # -- state, as copies -------------------------------------------------------------
    def joint_states(self) -> JointStates:
        """Actuated joints: position, velocity, applied effort (servo torque or force)."""
        return JointStates(
            self.scene.joints,
            self.data.qpos[self._qpos_adr].copy(),
            self.data.qvel[self._dof_adr].copy(),
            self.data.actuator_force[self._actuator_ids].copy(),
            self.time_s)

    def servo_observation(self) -> ServoObservation:
        """Servo telemetry of every actuated joint."""
        return self.servos.observe(
            self.data.qpos[self._qpos_adr], self.data.qvel[self._dof_adr])

    def body_arrays(self) -> BodyArrays:
        """World poses and twists of the objects and pads (``tracked_bodies``).

        After ``step`` these are the state the last physics step started from
        (MuJoCo computes positions and velocities before it integrates), stamped
        with the time after the step: one step (``timestep_s``) older than the
        stamp. They are left so on purpose: the contacts (``contacts``) and the
        tactile arrays of the same tick belong to that same state, and
        recomputing the kinematics here would pair post-step poses with
        pre-step contacts.
        """
        ids = self._tracked_ids
        linear = np.empty((ids.size, 3))
        angular = np.empty((ids.size, 3))
        for row, body_id in enumerate(ids):
            # [angular, linear] of the body frame origin (XBODY; BODY would be the COM).
            mujoco.mj_objectVelocity(self.model, self.data, mujoco.mjtObj.mjOBJ_XBODY,
                                     int(body_id), self._velocity_buffer, 0)
            angular[row] = self._velocity_buffer[:3]
            linear[row] = self._velocity_buffer[3:]
        return BodyArrays(
            self.tracked_bodies, self.data.xpos[ids].copy(), self.data.xquat[ids].copy(),
            linear, angular, self.time_s)

    def static_frame_transforms(self) -> FrameTransforms:
        """Poses of the welded (jointless) bodies in their parents (constant), stamped now."""
        return self._frame_tree.static(self.time_s)

    def frame_transforms(self) -> FrameTransforms:
        """Poses of the moving bodies (joints, mocap) in their parents, stamped now.

        From the same state as ``body_arrays`` (the one the last step started from).
        """
        return self._frame_tree.moving(self.data, self.time_s)

    def body_mass_kg(self, body: str) -> float:
        """Mass of one body, kg."""
        return float(self.model.body_mass[resolve_body(self.model, body)])

    def robot_distances_m(self) -> np.ndarray:
        """Distance of each robot body from the base body, m (NaN where the state is NaN)."""
        base = self.data.xpos[self._base_id]
        return np.linalg.norm(self.data.xpos[self._robot_ids] - base, axis=1)

    def status(self) -> tuple[str, str, dict[str, str]]:
        """Return (level, message, values) for diagnostics: time, watchdog, servo telemetry."""
        obs = self.servo_observation()
        values = {'sim_time_s': f'{self.time_s:.3f}',
                  'watchdog_trips': str(self.servos.watchdog_trips),
                  'force_test': str(self.force_test_active).lower(),
                  'voltage_v': f'{obs.voltage_v:.2f}'}
        values.update({f'temperature_c.{joint}': f'{t:.1f}'
                       for joint, t in zip(self.scene.joints, obs.temperature_c)})
        if self.diverged:
            return 'ERROR', 'diverged', values
        if obs.watchdog_tripped:
            return 'WARN', 'watchdog tripped', values
        return 'OK', 'running', values

    def contacts(self) -> Contacts:
        """Every active contact, in bulk: read once per state (``step``, ``reset``).

        A tick's readers (the pads' contacts, the tactile arrays) share one reading.
        """
        from grasp_monitor.sim.contacts import extract_contacts
        key = (self._state_count, self.time_s)
        if self._contacts_of is None or self._contacts_of[0] != key:
            self._contacts_of = (key, extract_contacts(self.model, self.data, self.time_s))
        return self._contacts_of[1]

    def pad_contacts(self) -> PadContacts:
        """Every active contact of a pad, oriented from the pad, in the world frame."""
        from grasp_monitor.sim.contacts import pad_contacts
        return pad_contacts(self.contacts(), self._pad_ids)

    def body_names(self) -> tuple[str, ...]:
        """Return the name of every body, by id: how ``pad_contacts`` names its bodies."""
        from grasp_monitor.sim.contacts import body_names
        return body_names(self.model)
