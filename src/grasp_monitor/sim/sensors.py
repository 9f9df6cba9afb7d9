"""Sensors and motors of a simulated scene, and their plugin registrations (FARSA).

* ``SimTactileArrays``: the tactile arrays of several pads of a ``Simulator``,
  computed from one extraction of its contacts at the current state. The
  ``tactile_sensor`` node, ``grasp-monitor tactile-plot`` and the pipeline
  benchmark share it. Each pad is built through the ``tactile_array`` sensor
  plugin, so its settings are checked against that plugin's parameters.
* ``JointStateSensor`` (sensor plugin ``joint_state``): the simulator's joint
  states with noise on position, velocity and effort; positions are clamped
  to the joint's range when the joint is limited.
* Motor plugin ``servo``: a ``ServoBank``, the moteus servo law of
  ``core.servo`` for the joints named in the context, with its watchdog and
  motor noise (``motor_noise`` reads the noise settings, for the simulator too).

Per-pad settings often come as arrays aligned with a list of pads (ROS
parameters cannot be nested); ``pad_specs`` turns them into ``PadSpec``
values, one value applying to every pad.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any, Mapping, Sequence

from grasp_monitor.core.errors import ConfigError, GraspMonitorError
from grasp_monitor.core.noise import NOISE_SETTINGS, NoiseConfig, NoiseModel
from grasp_monitor.core.plugins import create_plugin, register_plugin
from grasp_monitor.core.servo import ServoBank, ServoConfig
from grasp_monitor.core.servo.settings import SERVO_SETTINGS
from grasp_monitor.core.settings import Setting
from grasp_monitor.core.tactile import TactilePad, TOUCH_FUNCTIONS
from grasp_monitor.core.tactile.settings import BY_NAME as TACTILE_BY_NAME
from grasp_monitor.core.values import Contacts, JointStates
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.contacts import geom_meshes, geom_shapes
import mujoco
import numpy as np


@dataclass(frozen=True)
class PadSpec:
    """One tactile pad: its name, its body and its ``tactile_array`` settings.

    Attributes:
        name: the pad's name (``tactile/<name>``); no '/' or spaces.
        body: the body whose collision geoms carry the taxels ('' = ``name``).
        settings: ``tactile_array`` plugin parameters (others take their
            defaults), checked on construction.

    Raises:
        ConfigError: a bad name or setting, naming the pad and what is valid.
    """

    name: str
    body: str = ''
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name or any(c in self.name for c in '/ \t') or self.name.startswith('~'):
            raise ConfigError(f"pad name must be non-empty, without '/', '~' or spaces, "
                              f'got {self.name!r}')
        object.__setattr__(self, 'body', self.body or self.name)
        settings = dict(self.settings)
        unknown = sorted(set(settings) - set(TACTILE_BY_NAME))
        if unknown:
            raise ConfigError(f'tactile pad {self.name!r}: unknown setting {unknown[0]!r}; '
                              f'valid: {", ".join(TACTILE_BY_NAME)}')
        owner = f'tactile pad {self.name!r}'
        checked = {name: spec.check(settings[name], owner) if name in settings
                   else spec.default for name, spec in TACTILE_BY_NAME.items()}
        object.__setattr__(self, 'settings', checked)

    def plugin_config(self) -> dict[str, Any]:
        """Return the ``tactile_array`` sensor configuration of this pad."""
        return {'type': 'tactile_array', **self.settings}


def pad_specs(pads: Sequence[str], bodies: Sequence[str] = ('',),
              touch_functions: Sequence[str] = tuple(TOUCH_FUNCTIONS),
              **per_pad: Sequence[Any]) -> tuple[PadSpec, ...]:
    """Build pad specs from settings given as arrays aligned with ``pads``.

    Args:
        pads: pad names, unique.
        bodies: body of each pad ('' = the body named like the pad).
        touch_functions: the touch functions allowed here.
        **per_pad: ``TACTILE_SETTINGS`` by name, each a sequence of one value
            (for every pad) or one value per pad.

    Raises:
        ConfigError: no pad, repeated pads, an array of another length, an
            unknown key, a touch function not allowed, or a bad setting.
    """
    pads = list(pads)
    if not pads or len(set(pads)) != len(pads):
        raise ConfigError(f'pads must name one or more distinct pads, got {pads}')
    unknown = sorted(set(per_pad) - set(TACTILE_BY_NAME))
    if unknown:
        raise ConfigError(f'unknown per-pad setting {unknown[0]!r}; valid: '
                          f'{", ".join(TACTILE_BY_NAME)}')
    columns = {'bodies': list(bodies)} | {key: list(values) for key, values in per_pad.items()}
    for key, values in columns.items():
        if len(values) not in (1, len(pads)):
            raise ConfigError(
                f'{key} has {len(values)} values for {len(pads)} pads ({", ".join(pads)}); '
                'give one value for every pad or one per pad')
    specs = []
    for index, pad in enumerate(pads):
        row = {key: values[index if len(values) > 1 else 0]
               for key, values in columns.items()}
        touch = row.get('touch', TACTILE_BY_NAME['touch'].default)
        if touch not in touch_functions:
            raise ConfigError(f'tactile pad {pad!r}: touch function {touch!r} is not one of '
                              f'{", ".join(touch_functions)}')
        body = row.pop('bodies')
        specs.append(PadSpec(pad, body, row))
    return tuple(specs)


@dataclass(frozen=True)
class TactileReading:
    """The tactile arrays of every pad at one instant.

    Attributes:
        time_s: simulated time, s.
        values: per pad, (N, width) taxel values in the touch function's
            units and frame (new arrays).
        total_force_in_pad: per pad, (3,) N, the summed contact force on the
            pad in its body frame, before noise.
        T_world_pad: per pad, its body's position (3,) m and quaternion (4,)
            (w, x, y, z) in the world (copies).
        contacts: every contact of the scene at that instant.
        slip: per pad, (N, 3) m/s its taxels' slip (``TactilePad.slip``, a
            new array), or None where the pad's ``slip`` setting is off.
    """

    time_s: float
    values: tuple[np.ndarray, ...]
    total_force_in_pad: tuple[np.ndarray, ...]
    T_world_pad: tuple[tuple[np.ndarray, np.ndarray], ...]
    contacts: Contacts
    slip: tuple[np.ndarray | None, ...] = ()


def contact_velocities(model: mujoco.MjModel, data: mujoco.MjData,
                       contacts: Contacts) -> np.ndarray:
    """Return (K, 3) m/s: geom2's body velocity relative to geom1's at each contact point.

    From ``data.cvel`` (each body's spatial velocity about its subtree's
    centre of mass, world axes), as ``mujoco.mj_objectVelocity`` gives it,
    for all contacts at once. Flex contacts (body -1) count as the world's.
    Read where the contacts were found (after ``mj_step``, before the next).
    """
    bodies = np.maximum(np.stack((contacts.body1, contacts.body2)), 0)  # (2, K)
    velocity = data.cvel[bodies]  # (2, K, 6): angular, linear
    arm = contacts.position_in_world[None] - data.subtree_com[model.body_rootid[bodies]]
    linear = velocity[..., 3:] + np.cross(velocity[..., :3], arm)
    return linear[1] - linear[0]


class SimTactileArrays:
    """The tactile pads of a simulator, computed from its contacts.

    Not thread-safe: call ``compute`` where the simulator's data is
    consistent (in a ``SimRunner`` tick callback, or holding its lock).

    Args:
        sim: the simulator.
        pads: the pads, with distinct names.

    Attributes:
        specs: the pad specs.
        pads: one ``TactilePad`` per spec, its layout in the pad body frame.

    Raises:
        ConfigError: repeated pad names, an unknown body (listing the valid
            ones), a body without collision geoms, or a bad setting.
    """

    def __init__(self, sim: Simulator, pads: Sequence[PadSpec]) -> None:
        self.sim = sim
        self.specs = tuple(pads)
        names = [spec.name for spec in self.specs]
        if not names or len(set(names)) != len(names):
            raise ConfigError(f'pads must be one or more with distinct names, got {names}')
        built = []
        for spec in self.specs:
            try:
                shapes = geom_shapes(sim.model, [spec.body])
                if not shapes:
                    raise ConfigError(f'body {spec.body!r} has no collision geoms to carry '
                                      'taxels')
                built.append(create_plugin('sensor', spec.plugin_config(), shapes=shapes,
                                           meshes=geom_meshes(sim.model, shapes)))
            except GraspMonitorError as error:
                raise ConfigError(f'tactile pad {spec.name!r}: {error}') from None
        self.pads: tuple[TactilePad, ...] = tuple(built)
        self._body_ids = np.array(
            [mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_BODY, spec.body)
             for spec in self.specs])
        self._slip = any(pad.slip is not None for pad in self.pads)

    def compute(self) -> TactileReading:
        """Return every pad's values at the simulator's current state.

        Raises:
            SimulationError: the state is not finite (a diverged simulation).
        """
        contacts = self.sim.contacts()
        data = self.sim.data
        # One fancy-indexed copy per array, then views of it: cheaper than a copy per pad.
        poses = tuple(zip(data.xpos[self._body_ids], data.xquat[self._body_ids]))
        velocity = contact_velocities(self.sim.model, data, contacts) if self._slip else None
        values = tuple(pad.compute(contacts, pose, velocity)
                       for pad, pose in zip(self.pads, poses))
        return TactileReading(contacts.time_s, values,
                              tuple(pad.total_force_in_pad for pad in self.pads), poses,
                              contacts, tuple(pad.slip for pad in self.pads))


# -- joint states --------------------------------------------------------------------------

class JointStateSensor:
    """The simulator's joint states with noise, clamped to each joint's range.

    Args:
        sim: the simulator.
        noise_type: one of ``NOISE_TYPES``.
        ranges: noise range of position (rad or m), velocity (rad/s or m/s)
            and effort (N·m or N).
        seed: noise seed (None: fresh entropy).
    """

    def __init__(self, sim: Simulator, noise_type: str = 'none',
                 ranges: tuple[float, float, float] = (0.0, 0.0, 0.0),
                 seed: int | None = None) -> None:
        self.sim = sim
        seeds = np.random.SeedSequence(seed).spawn(3)
        self.noise = tuple(
            NoiseModel(NoiseConfig(noise_type, spread, int(s.generate_state(1)[0])))
            for spread, s in zip(ranges, seeds))
        model = sim.model
        joint_ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
                     for name in sim.scene.joints]
        limited = model.jnt_limited[joint_ids].astype(bool)
        self.position_min = np.where(limited, model.jnt_range[joint_ids, 0], -math.inf)
        self.position_max = np.where(limited, model.jnt_range[joint_ids, 1], math.inf)

    def read(self) -> JointStates:
        """Return the joint states now, noise added and positions clamped."""
        states = self.sim.joint_states()
        position, velocity, effort = (
            model.apply(getattr(states, field))
            for model, field in zip(self.noise, ('position', 'velocity', 'effort')))
        np.clip(position, self.position_min, self.position_max, out=position)
        return JointStates(states.names, position, velocity, effort, states.time_s)


_NOISE = {setting.name: setting for setting in NOISE_SETTINGS}
#: Settings of the ``joint_state`` sensor plugin: one noise, a range per quantity.
JOINT_STATE_SETTINGS = (
    _NOISE['noise_type'],
    Setting('position_noise_range', 0.0,
            'Gaussian std or uniform half-width of positions, rad or m.', 0.0, math.inf),
    Setting('velocity_noise_range', 0.0, 'Same for velocities, rad/s or m/s.', 0.0, math.inf),
    Setting('effort_noise_range', 0.0, 'Same for efforts, N*m or N.', 0.0, math.inf),
    _NOISE['noise_seed'],
)


@register_plugin('sensor', 'joint_state', JOINT_STATE_SETTINGS,
                 "The simulator's actuated joints: position, velocity, effort, with noise "
                 '(context: sim=Simulator).')
def make_joint_state_sensor(parameters: Mapping[str, Any], *, sim: Simulator
                            ) -> JointStateSensor:
    """Build a JointStateSensor from checked plugin parameters."""
    seed = parameters['noise_seed']
    return JointStateSensor(
        sim, parameters['noise_type'],
        (parameters['position_noise_range'], parameters['velocity_noise_range'],
         parameters['effort_noise_range']), None if seed < 0 else seed)


# -- servo motor -----------------------------------------------------------------------------

@register_plugin('motor', 'servo', SERVO_SETTINGS,
                 'Moteus-style servos (upkie law: clamped feedforward + kp/kd terms), '
                 'watchdog and telemetry (context: joints=names).')
def make_servo(parameters: Mapping[str, Any], *, joints: Sequence[str]) -> ServoBank:
    """Build a ServoBank for ``joints`` from checked plugin parameters."""
    return ServoBank(ServoConfig(
        tuple(joints), parameters['kp'], parameters['kd'], parameters['maximum_torque'],
        command_timeout_s=parameters['command_timeout'],
        watchdog_action=parameters['watchdog_action'],
        motor_noise=motor_noise(parameters)))


def motor_noise(parameters: Mapping[str, Any]) -> NoiseConfig:
    """Return the motor noise of ``MOTOR_NOISE_SETTINGS`` values (by name)."""
    seed = parameters['motor_noise_seed']
    return NoiseConfig(parameters['motor_noise_type'], parameters['motor_noise_range'],
                       None if seed < 0 else seed)
