"""Industrial arm grasping (physics-engine grasp benchmark, REFERENCE.md section 4).

A 6-DOF arm with the UR10's published Denavit-Hartenberg kinematics and the
link masses of REFERENCE.md carries a parallel gripper that holds a cube from
the start. The arm joints track ``q_des = A sin(w t)`` under the PD gains of
the benchmark, plus (by default) the inverse-dynamics torque along q_des; the
fingers squeeze the cube with a constant force. The base is fixed at the world
origin; no ground plane; gravity -9.8 m/s² along z. The keyframe ``start``
puts the arm at q_des(0) moving at dq_des(0), the cube carried along.

Frames: the body of link i carries joint i and, at joint angle 0, coincides
with DH frame {i-1} (standard DH: ``T = Rz(theta) Tz(d) Tx(a) Rx(alpha)``), so
every joint turns about its body's z axis. The hand is fixed to the flange,
DH frame {6}; its fingers slide along the hand's y axis (left finger at +y),
each axis pointing at the cube, so a positive force closes the gripper.
Finger position 0 is the start, touching the cube, at mid-stroke.

Inertias: each arm link is a solid cylinder of radius ``link_radius_m`` laid
along its DH segment (joint i to joint i+1) with its centre of mass at the
segment's midpoint; the base, fixed, is a drum under the mounting plane.
The hand, the fingers and the cube are solid boxes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import math
import threading

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.sim.mjcf import vec
from grasp_monitor.sim.scene import Scene, SimSettings
import mujoco
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
#: What the arm joints add to the scenario's PD law: nothing, the gravity
#: torque at q_des, or the full inverse dynamics along q_des (payload included).
FEEDFORWARDS = ('none', 'gravity', 'inverse_dynamics')

# Colours for pictures: UR-like grey links with blue joint housings.
_LINK_RGBA = '0.78 0.78 0.8 1'
_HOUSING_RGBA = '0.2 0.4 0.7 1'
_HAND_RGBA = '0.25 0.25 0.28 1'
_FINGER_RGBA = '0.2 0.6 0.3 1'
_CUBE_RGBA = '0.85 0.55 0.2 1'
#: Contact and finger-limit time constant in physics steps (MuJoCo advises >= 2).
_CONTACT_TIMECONST_STEPS = 2


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


@dataclass(frozen=True)
class ArmTrajectory:
    """Sinusoidal joint targets ``q = A sin(w t)`` and the PD gains that track them.

    Attributes:
        amplitude_rad: (6,) A per arm joint, rad.
        frequency_rad_s: (6,) w per arm joint, rad/s.
        kp_nm_per_rad: (6,) position gains, N·m/rad.
        kd_nm_s_per_rad: (6,) velocity gains, N·m·s/rad.
    """

    amplitude_rad: tuple[float, ...]
    frequency_rad_s: tuple[float, ...]
    kp_nm_per_rad: tuple[float, ...]
    kd_nm_s_per_rad: tuple[float, ...]

    def __post_init__(self) -> None:
        for name in ('amplitude_rad', 'frequency_rad_s', 'kp_nm_per_rad', 'kd_nm_s_per_rad'):
            object.__setattr__(self, name, _numbers(getattr(self, name), name))
        for name in ('frequency_rad_s', 'kp_nm_per_rad', 'kd_nm_s_per_rad'):
            _non_negative(getattr(self, name), name)

    def position_rad(self, time_s: float) -> np.ndarray:
        """Return q_des (6,) at ``time_s``, rad."""
        return np.asarray(self.amplitude_rad) * np.sin(np.asarray(self.frequency_rad_s) * time_s)

    def velocity_rad_s(self, time_s: float) -> np.ndarray:
        """Return dq_des/dt (6,) at ``time_s``, rad/s."""
        w = np.asarray(self.frequency_rad_s)
        return np.asarray(self.amplitude_rad) * w * np.cos(w * time_s)

    def acceleration_rad_s2(self, time_s: float) -> np.ndarray:
        """Return d²q_des/dt² (6,) at ``time_s``, rad/s²."""
        w = np.asarray(self.frequency_rad_s)
        return -np.asarray(self.amplitude_rad) * w * w * np.sin(w * time_s)


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


def _cylinder_inertia(mass_kg: float, radius_m: float, axis: np.ndarray,
                      length_m: float) -> np.ndarray:
    """Return the inertia tensor (3, 3) of a solid cylinder about its centre, kg·m²."""
    axial = 0.5 * mass_kg * radius_m ** 2
    transverse = mass_kg * (3.0 * radius_m ** 2 + length_m ** 2) / 12.0
    outer = np.outer(axis, axis)
    return transverse * (np.eye(3) - outer) + axial * outer


def _inertial(mass_kg: float, pos: np.ndarray, inertia: np.ndarray) -> str:
    full = (inertia[0, 0], inertia[1, 1], inertia[2, 2],
            inertia[0, 1], inertia[0, 2], inertia[1, 2])
    return (f'<inertial pos="{vec(pos)}" mass="{mass_kg!r}" fullinertia="{vec(full)}"/>')


def _quat_about_x(angle_rad: float) -> tuple[float, float, float, float]:
    return (math.cos(angle_rad / 2), math.sin(angle_rad / 2), 0.0, 0.0)


def _arm_link(arm: ArmModel, index: int, joint: str) -> tuple[str, np.ndarray]:
    """Open the body of link ``index`` (1..6): joint, inertia, pictures; return the child offset.

    The returned (3,) is the origin of DH frame {index} in this body, m.
    """
    segment = np.array([arm.a_m[index - 1], 0.0, arm.d_m[index - 1]])
    length_m = float(np.linalg.norm(segment))
    # A zero-length link (a spherical wrist) is a disc about the joint axis.
    axis = segment / length_m if length_m > 0 else np.array([0.0, 0.0, 1.0])
    mass_kg = arm.link_masses_kg[index]
    radius = arm.link_radius_m
    inertia = _cylinder_inertia(mass_kg, radius, axis, length_m)
    # The joint range is the UR10's: one turn either way.
    xml = (
        f'<joint name="{joint}" type="hinge" axis="0 0 1" limited="true"'
        f' range="{vec((-2 * math.pi, 2 * math.pi))}"'
        f' armature="{arm.armature_kg_m2[index - 1]!r}"/>'
        + _inertial(mass_kg, 0.5 * segment, inertia)
        + f'<geom name="{joint}_housing" type="cylinder" size="{vec((radius, radius))}"'
        f' contype="0" conaffinity="0" mass="0" rgba="{_HOUSING_RGBA}"/>')
    if length_m > 0:
        xml += (f'<geom name="{ARM_BODIES[index]}" type="capsule" size="{0.6 * radius!r}"'
                f' fromto="{vec(np.concatenate([np.zeros(3), segment]))}"'
                f' contype="0" conaffinity="0" mass="0" rgba="{_LINK_RGBA}"/>')
    return xml, segment


def _gripper_xml(gripper: GripperModel, placement: str, cube_half_m: float, cube_xml: str,
                 contact: str, solref: str, rigid: bool) -> str:
    """Return the hand body with its fingers (and, when ``rigid``, the cube inside it).

    ``contact`` holds the finger geoms' contact attributes, ``solref`` the
    finger limits' reference.
    """
    hand = np.asarray(gripper.hand_size_m)
    finger_half = 0.5 * np.asarray(gripper.finger_size_m)
    palm_top_m = hand[2]
    finger_y_m = cube_half_m + finger_half[1] - gripper.preload_depth_m
    finger_z_m = palm_top_m + finger_half[2]
    half_stroke = 0.5 * gripper.finger_stroke_m
    xml = (f'<body name="{HAND_BODY}" {placement}>'
           f'<geom name="{HAND_BODY}" type="box" size="{vec(0.5 * hand)}"'
           f' pos="{vec((0, 0, 0.5 * hand[2]))}" mass="{gripper.hand_mass_kg!r}"'
           f' rgba="{_HAND_RGBA}"/>')
    for joint, sign in zip(FINGER_JOINTS, (1.0, -1.0)):
        joint_xml = '' if rigid else (
            f'<joint name="{joint}" type="slide" axis="{vec((0, -sign, 0))}" limited="true"'
            f' range="{vec((-half_stroke, half_stroke))}" solreflimit="{solref}"/>')
        xml += (f'<body name="{joint}" pos="{vec((0, sign * finger_y_m, finger_z_m))}">'
                + joint_xml +
                f'<geom name="{joint}" type="box" size="{vec(finger_half)}"'
                f' mass="{gripper.finger_mass_kg!r}" {contact}'
                f' rgba="{_FINGER_RGBA}"/></body>')
    if rigid:
        cube_z_m = palm_top_m + gripper.palm_clearance_m + cube_half_m
        xml += f'<body name="{CUBE_BODY}" pos="{vec((0, 0, cube_z_m))}">{cube_xml}</body>'
    return xml + '</body>'


@dataclass(frozen=True)
class _CubeStart:
    """Where the hand holds the cube at t = 0: pose and twist of its free joint."""

    position_in_world: np.ndarray
    quaternion_in_world: np.ndarray
    linear_velocity_in_world: np.ndarray
    angular_velocity_in_cube: np.ndarray


def _mjcf(settings: SimSettings, arm: ArmModel, gripper: GripperModel, cube_size_m: float,
          cube_mass_kg: float, start: tuple[np.ndarray, np.ndarray, _CubeStart] | None) -> str:
    """Return the MJCF of the scene.

    Without ``start`` the model is rigid (fingers and cube welded to the hand,
    arm actuators only): the copy the drive's inverse dynamics and the start
    state are computed on. With ``start`` = (q0 (6,) rad, dq0 (6,) rad/s, cube
    start) the cube is free and a keyframe ``start`` holds the start state.
    """
    rigid = start is None
    # MuJoCo's default contact time constant (0.02 s) lets 100 N push a finger
    # centimetres into a 0.1 kg cube; the stiffest the step resolves is 2 steps.
    solref = vec((_CONTACT_TIMECONST_STEPS * settings.timestep_s, 1.0))
    contact = f'friction="{vec((settings.friction, 0.005, 0.0001))}" solref="{solref}"'
    cube_half_m = 0.5 * cube_size_m
    cube_geom = (f'<geom name="{CUBE_BODY}" type="box" size="{vec([cube_half_m] * 3)}"'
                 f' mass="{cube_mass_kg!r}" {contact} rgba="{_CUBE_RGBA}"/>')
    base_inertia = _cylinder_inertia(
        arm.link_masses_kg[0], arm.link_radius_m, np.array([0.0, 0.0, 1.0]), arm.base_height_m)
    base_pos = np.array([0.0, 0.0, -0.5 * arm.base_height_m])
    body = (f'<body name="{ARM_BODIES[0]}" pos="0 0 0">'
            + _inertial(arm.link_masses_kg[0], base_pos, base_inertia)
            + f'<geom name="{ARM_BODIES[0]}" type="cylinder" pos="{vec(base_pos)}"'
            f' size="{vec((arm.link_radius_m, 0.5 * arm.base_height_m))}" contype="0"'
            f' conaffinity="0" mass="0" rgba="{_HOUSING_RGBA}"/>')
    closing = '</body>'
    # Link i starts at DH frame {i-1}: the offset and twist of link i-1 place it.
    offset, twist = np.zeros(3), 0.0
    for index, joint in enumerate(ARM_JOINTS, start=1):
        link_xml, next_offset = _arm_link(arm, index, joint)
        body += (f'<body name="{ARM_BODIES[index]}" pos="{vec(offset)}"'
                 f' quat="{vec(_quat_about_x(twist))}">' + link_xml)
        closing += '</body>'
        offset, twist = next_offset, arm.alpha_rad[index - 1]
    # The hand sits on the flange, DH frame {6}.
    body += _gripper_xml(gripper, f'pos="{vec(offset)}" quat="{vec(_quat_about_x(twist))}"',
                         cube_half_m, cube_geom, contact, solref, rigid)
    actuators = ''.join(
        f'<motor name="{joint}" joint="{joint}" gear="1" ctrllimited="true"'
        f' ctrlrange="{vec((-limit, limit))}"/>'
        for joint, limit in zip(ARM_JOINTS, arm.maximum_torque_nm))
    cube = keyframe = ''
    if start is not None:
        q0, dq0, cube_start = start
        # A free body must hang from the world: it starts where the hand holds it.
        cube = (f'<body name="{CUBE_BODY}" pos="{vec(cube_start.position_in_world)}"'
                f' quat="{vec(cube_start.quaternion_in_world)}">'
                f'<freejoint name="{CUBE_BODY}"/>{cube_geom}</body>')
        actuators += ''.join(
            f'<motor name="{joint}" joint="{joint}" gear="1" ctrllimited="true"'
            f' ctrlrange="{vec((-gripper.grip_force_n, gripper.grip_force_n))}"/>'
            for joint in FINGER_JOINTS)
        # qpos order: arm, fingers, cube (the order of the bodies above).
        qpos = np.concatenate([q0, [0.0, 0.0], cube_start.position_in_world,
                               cube_start.quaternion_in_world])
        qvel = np.concatenate([dq0, [0.0, 0.0], cube_start.linear_velocity_in_world,
                               cube_start.angular_velocity_in_cube])
        keyframe = (f'<keyframe><key name="{START_KEYFRAME}" qpos="{vec(qpos)}"'
                    f' qvel="{vec(qvel)}"/></keyframe>')
    return (
        f'<mujoco model="industrial_arm{"_rigid" if rigid else ""}">'
        f'<compiler angle="radian"/>{settings.option_xml()}'
        '<worldbody><light pos="0 0 3" dir="0 0 -1"/>'
        + body + closing + cube +
        f'</worldbody><actuator>{actuators}</actuator>{keyframe}</mujoco>')


def _cube_start(rigid_model: mujoco.MjModel, q0: np.ndarray, dq0: np.ndarray) -> _CubeStart:
    """Return the pose and twist of the cube carried by the hand at (q0, dq0)."""
    data = mujoco.MjData(rigid_model)
    data.qpos[:] = q0
    data.qvel[:] = dq0
    mujoco.mj_forward(rigid_model, data)
    cube = mujoco.mj_name2id(rigid_model, mujoco.mjtObj.mjOBJ_BODY, CUBE_BODY)
    twist = np.zeros(6)
    # [angular, linear] of the cube's origin (its centre of mass) in the world frame.
    mujoco.mj_objectVelocity(rigid_model, data, mujoco.mjtObj.mjOBJ_BODY, cube, twist, 0)
    to_cube = data.xmat[cube].reshape(3, 3).T
    # A free joint's angular velocity is in the body frame, its linear one in the world.
    return _CubeStart(data.xpos[cube].copy(), data.xquat[cube].copy(), twist[3:].copy(),
                      to_cube @ twist[:3])


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


#: The benchmark's physics step; friction and solver as every scenario's defaults.
DEFAULT_SETTINGS = SimSettings()
#: The benchmark's gripper: hand 0.96 kg, fingers 0.12 kg, stroke 0.014 m, 100 N.
DEFAULT_GRIPPER = GripperModel()


def make_industrial_arm(
    settings: SimSettings = DEFAULT_SETTINGS,
    arm: ArmModel = UR10,
    trajectory: ArmTrajectory = BENCHMARK_TRAJECTORY,
    gripper: GripperModel = DEFAULT_GRIPPER,
    cube_size_m: float = 0.05,
    cube_mass_kg: float = 0.1,
    feedforward: str = 'inverse_dynamics',
    duration_s: float = 100.0,
) -> Scene:
    """Generate the scene.

    Args:
        settings: physics settings; ``friction`` applies to the fingers and the cube.
        arm: kinematics, masses and torque limits of the arm.
        trajectory: the arm's sinusoidal targets and PD gains.
        gripper: hand, fingers and squeeze force.
        cube_size_m: cube edge, m.
        cube_mass_kg: cube mass, kg.
        feedforward: what the arm joints add to the PD law, one of FEEDFORWARDS.
        duration_s: trial length, s.

    Raises:
        ConfigError: an invalid parameter; the message says what is valid.
    """
    for name, value, kind in (('arm', arm, ArmModel), ('trajectory', trajectory, ArmTrajectory),
                              ('gripper', gripper, GripperModel)):
        if not isinstance(value, kind):
            raise ConfigError(
                f'{name} must be of type {kind.__name__}, got {type(value).__name__}')
    for name, value in (('cube_size_m', cube_size_m), ('cube_mass_kg', cube_mass_kg),
                        ('duration_s', duration_s)):
        if not value > 0:
            raise ConfigError(f'{name} must be > 0, got {value}')
    if feedforward not in FEEDFORWARDS:
        raise ConfigError(
            f'feedforward {feedforward!r} is not one of {", ".join(FEEDFORWARDS)}')
    rigid_model = mujoco.MjModel.from_xml_string(
        _mjcf(settings, arm, gripper, cube_size_m, cube_mass_kg, start=None))
    # The welded fingers touch the welded cube; those contacts must not enter the torques.
    rigid_model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    # The arm starts on its trajectory, moving, so tracking begins without a jolt.
    q0, dq0 = trajectory.position_rad(0.0), trajectory.velocity_rad_s(0.0)
    start = (q0, dq0, _cube_start(rigid_model, q0, dq0))
    drive = ArmDrive(trajectory, arm, gripper, feedforward, rigid_model)
    return Scene(
        name='industrial_arm',
        mjcf=_mjcf(settings, arm, gripper, cube_size_m, cube_mass_kg, start),
        settings=settings,
        joints=JOINTS,
        kp=trajectory.kp_nm_per_rad + (gripper.finger_kp_n_per_m,) * 2,
        kd=trajectory.kd_nm_s_per_rad + (gripper.finger_kd_n_s_per_m,) * 2,
        maximum_torque=arm.maximum_torque_nm + (gripper.grip_force_n,) * 2,
        pads=FINGER_JOINTS,
        objects=(CUBE_BODY,),
        base_body=ARM_BODIES[0],
        palm_body=HAND_BODY,
        robot_bodies=ARM_BODIES + (HAND_BODY,) + FINGER_JOINTS,
        duration_s=duration_s,
        drive=drive,
        metadata={'arm': 'UR10' if arm == UR10 else 'custom', 'feedforward': feedforward,
                  'cube_size_m': cube_size_m, 'cube_mass_kg': cube_mass_kg,
                  'grip_force_n': gripper.grip_force_n,
                  'settings': dataclasses.asdict(settings)},
    )
