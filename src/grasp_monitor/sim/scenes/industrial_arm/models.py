"""The arm, its trajectory and the gripper: names, kinematics, masses, gains."""

from __future__ import annotations

from dataclasses import dataclass, field
import math

from grasp_monitor.core.errors import ConfigError
import numpy as np
import numpy.typing as npt


ARM_JOINTS = ('shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_1', 'wrist_2', 'wrist_3')


FINGER_JOINTS = ('finger_left', 'finger_right')


JOINTS = ARM_JOINTS + FINGER_JOINTS


#: Bodies of the arm, base first; link i carries joint i.
ARM_BODIES = ('base', 'shoulder_link', 'upper_arm_link', 'forearm_link', 'wrist_1_link',
              'wrist_2_link', 'wrist_3_link')


HAND_BODY = 'hand'


CUBE_BODY = 'cube'


#: The keyframe holding the start state: the arm on its trajectory at t = 0.
START_KEYFRAME = 'start'


def _numbers(values: npt.ArrayLike, name: str, count: int = 6) -> tuple[float, ...]:
    """Return ``values`` as a tuple of ``count`` finite floats, or raise ConfigError."""
    try:
        array = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        array = np.full(0, np.nan)
    if array.size != count or not np.all(np.isfinite(array)):
        raise ConfigError(f'{name} must be {count} finite numbers, got {values!r}')
    return tuple(float(v) for v in array)


def _positive(values: tuple[float, ...], name: str) -> None:
    if not all(v > 0 for v in values):
        raise ConfigError(f'{name} must all be > 0, got {list(values)}')


def _non_negative(values: tuple[float, ...], name: str) -> None:
    if not all(v >= 0 for v in values):
        raise ConfigError(f'{name} must all be >= 0, got {list(values)}')


@dataclass(frozen=True)
class ArmModel:
    """Kinematics, masses and torque limits of a 6-DOF arm with DH geometry.

    Attributes:
        d_m: (6,) DH offsets d1..d6, m.
        a_m: (6,) DH lengths a1..a6, m.
        alpha_rad: (6,) DH twists alpha1..alpha6, rad.
        link_masses_kg: (7,) masses of the base and links 1..6, kg.
        link_radius_m: radius of the solid cylinder each link's inertia is taken from, m.
        base_height_m: height of the base drum below the shoulder, m.
        maximum_torque_nm: (6,) torque limit of each joint, N·m.
        armature_kg_m2: (6,) rotor inertia each joint's gearbox reflects, kg·m².
    """

    d_m: tuple[float, ...]
    a_m: tuple[float, ...]
    alpha_rad: tuple[float, ...]
    link_masses_kg: tuple[float, ...]
    link_radius_m: float
    base_height_m: float
    maximum_torque_nm: tuple[float, ...]
    armature_kg_m2: tuple[float, ...] = (0.0,) * 6

    def __post_init__(self) -> None:
        for name in ('d_m', 'a_m', 'alpha_rad', 'maximum_torque_nm', 'armature_kg_m2'):
            object.__setattr__(self, name, _numbers(getattr(self, name), name))
        masses = _numbers(self.link_masses_kg, 'link_masses_kg', count=7)
        object.__setattr__(self, 'link_masses_kg', masses)
        _positive(masses, 'link_masses_kg')
        _positive(self.maximum_torque_nm, 'maximum_torque_nm')
        _non_negative(self.armature_kg_m2, 'armature_kg_m2')
        for name in ('link_radius_m', 'base_height_m'):
            if not getattr(self, name) > 0:
                raise ConfigError(f'{name} must be > 0, got {getattr(self, name)}')


#: The UR10: DH parameters as Universal Robots publishes them ("Parameters for
#: calculations of kinematics and dynamics"), link masses as REFERENCE.md
#: (ROS-Industrial ur_description), rated torques of its joint sizes 4, 4, 3, 2, 2, 2.
#: Armature 0.1 kg·m², as MuJoCo Menagerie's UR models take it: besides the
#: gearbox it models, it keeps the light wrist (3e-3 kg·m² about wrist 3)
#: stable under a servo law evaluated once per 1 ms step (Kd·dt/I = 1.9 without).
UR10 = ArmModel(
    d_m=(0.1273, 0.0, 0.0, 0.163941, 0.1157, 0.0922),
    a_m=(0.0, -0.612, -0.5723, 0.0, 0.0, 0.0),
    alpha_rad=(math.pi / 2, 0.0, 0.0, math.pi / 2, -math.pi / 2, 0.0),
    link_masses_kg=(4.0, 7.778, 12.93, 3.87, 1.96, 1.96, 0.202),
    link_radius_m=0.075,
    base_height_m=0.05,
    maximum_torque_nm=(330.0, 330.0, 150.0, 56.0, 56.0, 56.0),
    armature_kg_m2=(0.1,) * 6,
)


#: The arm joints' velocity target: the derivative of q_des, ``A w cos(w t)``, or
#: ``A cos(w t)`` (no w factor, the benchmark code's; docs/deviations.md).
VELOCITY_TARGETS = ('derivative', 'cosine')


@dataclass(frozen=True)
class ArmTrajectory:
    """Sinusoidal joint targets ``q = A sin(w t)`` and the PD gains that track them.

    Attributes:
        amplitude_rad: (6,) A per arm joint, rad.
        frequency_rad_s: (6,) w per arm joint, rad/s.
        kp_nm_per_rad: (6,) position gains, N·m/rad.
        kd_nm_s_per_rad: (6,) velocity gains, N·m·s/rad.
        velocity_target: what the PD law's velocity target is, one of
            VELOCITY_TARGETS; the start state and the feedforward take the true
            derivative either way.
    """

    amplitude_rad: tuple[float, ...]
    frequency_rad_s: tuple[float, ...]
    kp_nm_per_rad: tuple[float, ...]
    kd_nm_s_per_rad: tuple[float, ...]
    velocity_target: str = 'derivative'
    # The two as arrays, made once: a drive evaluates them at every 1 ms step.
    _amplitude: np.ndarray = field(init=False, repr=False, compare=False)
    _frequency: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ('amplitude_rad', 'frequency_rad_s', 'kp_nm_per_rad', 'kd_nm_s_per_rad'):
            object.__setattr__(self, name, _numbers(getattr(self, name), name))
        for name in ('frequency_rad_s', 'kp_nm_per_rad', 'kd_nm_s_per_rad'):
            _non_negative(getattr(self, name), name)
        if self.velocity_target not in VELOCITY_TARGETS:
            raise ConfigError(f'velocity_target {self.velocity_target!r} is not one of '
                              f'{", ".join(VELOCITY_TARGETS)}')
        object.__setattr__(self, '_amplitude', np.array(self.amplitude_rad))
        object.__setattr__(self, '_frequency', np.array(self.frequency_rad_s))

    def state(self, time_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return q_des (rad), dq_des/dt (rad/s) and d²q_des/dt² (rad/s²) at ``time_s``; (6,)."""
        amplitude, w = self._amplitude, self._frequency
        sine = np.sin(w * time_s)
        return amplitude * sine, amplitude * w * np.cos(w * time_s), -amplitude * w * w * sine

    def velocity_target_rad_s(self, time_s: float) -> np.ndarray:
        """Return the PD law's velocity target (6,) at ``time_s`` (``velocity_target``), rad/s."""
        cosine = self._amplitude * np.cos(self._frequency * time_s)
        return cosine * self._frequency if self.velocity_target == 'derivative' else cosine

    def position_rad(self, time_s: float) -> np.ndarray:
        """Return q_des (6,) at ``time_s``, rad."""
        return self.state(time_s)[0]

    def velocity_rad_s(self, time_s: float) -> np.ndarray:
        """Return dq_des/dt (6,) at ``time_s``, rad/s."""
        return self.state(time_s)[1]


#: The benchmark's table (REFERENCE.md section 4).
BENCHMARK_TRAJECTORY = ArmTrajectory(
    amplitude_rad=(2.5, 0.5, 1.667, 0.357, 0.455, 0.577),
    frequency_rad_s=(1.0, 2.0, 2.0 / 3.0, 1.0 / 7.0, 2.0 / 11.0, 3.0 / 13.0),
    kp_nm_per_rad=(300.0, 300.0, 60.0, 15.0, 15.0, 15.0),
    kd_nm_s_per_rad=(120.0, 120.0, 24.0, 6.0, 6.0, 6.0),
)


@dataclass(frozen=True)
class GripperModel:
    """A parallel gripper: a box hand on the flange and two box fingers.

    Attributes:
        hand_mass_kg: mass of the hand (the palm), kg.
        hand_size_m: hand extents (x, y, z) in the flange frame, m; it sits on
            the flange, extending along +z.
        finger_mass_kg: mass of each finger, kg.
        finger_size_m: finger extents (x: width, y: thickness, z: length), m.
        finger_stroke_m: travel of each finger joint, m; the start (touching
            the cube) is mid-stroke.
        grip_force_n: force each finger squeezes with, and its limit, N.
        finger_kp_n_per_m: finger position gain for outside position commands, N/m.
        finger_kd_n_s_per_m: finger velocity gain for outside commands, N·s/m.
        palm_clearance_m: gap between the palm and the cube, m; it keeps the
            palm out of the grasp, so only the fingers hold the cube.
        preload_depth_m: how far each finger starts pressed into the cube, m; a
            few micrometres, so both contacts exist at t = 0 whatever the rounding
            of the forward kinematics (exactly touching faces may miss).
    """

    hand_mass_kg: float = 0.96
    hand_size_m: tuple[float, float, float] = (0.06, 0.16, 0.06)
    finger_mass_kg: float = 0.12
    finger_size_m: tuple[float, float, float] = (0.04, 0.02, 0.06)
    finger_stroke_m: float = 0.014
    grip_force_n: float = 100.0
    finger_kp_n_per_m: float = 1000.0
    finger_kd_n_s_per_m: float = 10.0
    palm_clearance_m: float = 0.005
    preload_depth_m: float = 1e-5

    def __post_init__(self) -> None:
        for name in ('hand_size_m', 'finger_size_m'):
            sizes = _numbers(getattr(self, name), name, count=3)
            _positive(sizes, name)
            object.__setattr__(self, name, sizes)
        for name in ('hand_mass_kg', 'finger_mass_kg', 'finger_stroke_m', 'grip_force_n'):
            if not getattr(self, name) > 0:
                raise ConfigError(f'{name} must be > 0, got {getattr(self, name)}')
        for name in ('finger_kp_n_per_m', 'finger_kd_n_s_per_m', 'palm_clearance_m',
                     'preload_depth_m'):
            if not getattr(self, name) >= 0:
                raise ConfigError(f'{name} must be >= 0, got {getattr(self, name)}')
        if not self.palm_clearance_m < self.finger_size_m[2]:
            raise ConfigError(
                f'palm_clearance_m must be < the finger length {self.finger_size_m[2]} m '
                f'so the fingers reach the cube, got {self.palm_clearance_m}')


#: The benchmark's gripper: hand 0.96 kg, fingers 0.12 kg, stroke 0.014 m, 100 N.
DEFAULT_GRIPPER = GripperModel()
