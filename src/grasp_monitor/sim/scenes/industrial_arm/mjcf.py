"""The scene's MJCF: links as DH segments with cylinder inertias, the gripper, the cube."""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.sim.mjcf import vec
from grasp_monitor.sim.scene import MUJOCO_SOLIMP, MUJOCO_SOLREF, SimSettings
from grasp_monitor.sim.scenes.industrial_arm.models import (
    ARM_BODIES, ARM_JOINTS, ArmModel, CUBE_BODY, FINGER_JOINTS, GripperModel, HAND_BODY,
    START_KEYFRAME)
import mujoco
import numpy as np


# Colours for pictures: UR-like grey links with blue joint housings.
_LINK_RGBA = '0.78 0.78 0.8 1'


_HOUSING_RGBA = '0.2 0.4 0.7 1'


_HAND_RGBA = '0.25 0.25 0.28 1'


_FINGER_RGBA = '0.2 0.6 0.3 1'


_CUBE_RGBA = '0.85 0.55 0.2 1'


#: Contact and finger-limit time constant in physics steps (MuJoCo advises >= 2).
_CONTACT_TIMECONST_STEPS = 2


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
                 contact: str, solref: str, rigid: bool, cube_in_hand: bool) -> str:
    """Return the hand body with its fingers (and the cube inside it, if so told).

    ``contact`` holds the finger geoms' contact attributes, ``solref`` the
    finger limits' reference. The cube is in the hand when ``rigid`` (welded)
    or ``cube_in_hand`` (its six joints in the hand's frame, ``cube_xml`` holding them).
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
    if rigid or cube_in_hand:
        cube_z_m = palm_top_m + gripper.palm_clearance_m + cube_half_m
        xml += f'<body name="{CUBE_BODY}" pos="{vec((0, 0, cube_z_m))}">{cube_xml}</body>'
    return xml + '</body>'


@dataclass(frozen=True)
class CubeStart:
    """Where the hand holds the cube at t = 0: pose and twist of its free joint."""

    position_in_world: np.ndarray
    quaternion_in_world: np.ndarray
    linear_velocity_in_world: np.ndarray
    angular_velocity_in_cube: np.ndarray


def scene_mjcf(settings: SimSettings, arm: ArmModel, gripper: GripperModel,
               cube_size_m: float, cube_mass_kg: float,
               start: tuple[np.ndarray, np.ndarray, CubeStart] | None,
               cube_joint: str = 'free') -> str:
    """Return the MJCF of the scene.

    Without ``start`` the model is rigid (fingers and cube welded to the hand,
    arm actuators only): the copy the drive's inverse dynamics and the start
    state are computed on. With ``start`` = (q0 (6,) rad, dq0 (6,) rad/s, cube
    start) the cube moves freely and a keyframe ``start`` holds the start state:
    on a free joint in the world (``cube_joint`` 'free'), or on three slides and
    a ball joint in the hand's frame ('hand'), starting where the hand holds it.
    """
    rigid = start is None
    cube_in_hand = not rigid and cube_joint == 'hand'
    # MuJoCo's default contact time constant (0.02 s) lets 100 N push a finger
    # centimetres into a 0.1 kg cube; the stiffest the step resolves is 2 steps.
    limit_solref = (_CONTACT_TIMECONST_STEPS * settings.timestep_s, 1.0)
    solref = vec(limit_solref)
    contact = (f'friction="{vec((settings.friction, 0.005, 0.0001))}"'
               + settings.contact_xml(solref=limit_solref))
    cube_half_m = 0.5 * cube_size_m
    cube_geom = (f'<geom name="{CUBE_BODY}" type="box" size="{vec([cube_half_m] * 3)}"'
                 f' mass="{cube_mass_kg!r}" {contact} rgba="{_CUBE_RGBA}"/>')
    cube_in_hand_xml = ''.join(
        f'<joint name="{CUBE_BODY}_{axis}" type="slide" axis="{direction}"/>'
        for axis, direction in (('x', '1 0 0'), ('y', '0 1 0'), ('z', '0 0 1'))
    ) + f'<joint name="{CUBE_BODY}_rotation" type="ball"/>' + cube_geom
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
                         cube_half_m, cube_in_hand_xml if cube_in_hand else cube_geom,
                         contact, solref, rigid, cube_in_hand)
    actuators = ''.join(
        f'<motor name="{joint}" joint="{joint}" gear="1" ctrllimited="true"'
        f' ctrlrange="{vec((-limit, limit))}"/>'
        for joint, limit in zip(ARM_JOINTS, arm.maximum_torque_nm))
    cube = keyframe = palm_pair = ''
    if start is not None:
        q0, dq0, cube_start = start
        if cube_in_hand:  # at rest in the hand: joints at zero, carried along
            cube_qpos, cube_qvel = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]), np.zeros(6)
            palm_pair = _palm_pair(settings, limit_solref)
        else:
            # A free body must hang from the world: it starts where the hand holds it.
            cube = (f'<body name="{CUBE_BODY}" pos="{vec(cube_start.position_in_world)}"'
                    f' quat="{vec(cube_start.quaternion_in_world)}">'
                    f'<freejoint name="{CUBE_BODY}"/>{cube_geom}</body>')
            cube_qpos = np.concatenate([cube_start.position_in_world,
                                        cube_start.quaternion_in_world])
            cube_qvel = np.concatenate([cube_start.linear_velocity_in_world,
                                        cube_start.angular_velocity_in_cube])
        actuators += ''.join(
            f'<motor name="{joint}" joint="{joint}" gear="1" ctrllimited="true"'
            f' ctrlrange="{vec((-gripper.grip_force_n, gripper.grip_force_n))}"/>'
            for joint in FINGER_JOINTS)
        # qpos order: arm, fingers, cube (the order of the bodies above).
        qpos = np.concatenate([q0, [0.0, 0.0], cube_qpos])
        qvel = np.concatenate([dq0, [0.0, 0.0], cube_qvel])
        keyframe = (f'<keyframe><key name="{START_KEYFRAME}" qpos="{vec(qpos)}"'
                    f' qvel="{vec(qvel)}"/></keyframe>')
    return (
        f'<mujoco model="industrial_arm{"_rigid" if rigid else ""}">'
        f'<compiler angle="radian"/>{settings.option_xml()}'
        '<worldbody><light pos="0 0 3" dir="0 0 -1"/>'
        + body + closing + cube +
        f'</worldbody>{palm_pair}<actuator>{actuators}</actuator>{keyframe}</mujoco>')


def _palm_pair(settings: SimSettings, cube_solref: tuple[float, float]) -> str:
    """Return the palm-cube contact of a cube in the hand, as it is for a free cube.

    MuJoCo skips contacts between a body and its parent; this explicit pair has
    the parameters MuJoCo mixes for the two geoms (the palm's are MuJoCo's
    defaults): the larger friction, the mean solref and solimp.
    """
    mu = max(1.0, settings.friction)
    solref = np.mean([settings.solref or cube_solref, MUJOCO_SOLREF], axis=0)
    solimp = np.mean([settings.solimp or MUJOCO_SOLIMP, MUJOCO_SOLIMP], axis=0)
    return (f'<contact><pair geom1="{HAND_BODY}" geom2="{CUBE_BODY}" condim="3"'
            f' friction="{vec((mu, mu, 0.005, 0.0001, 0.0001))}" solref="{vec(solref)}"'
            f' solimp="{vec(solimp)}"/></contact>')


def cube_start(rigid_model: mujoco.MjModel, q0: np.ndarray, dq0: np.ndarray) -> CubeStart:
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
    return CubeStart(data.xpos[cube].copy(), data.xquat[cube].copy(), twist[3:].copy(),
                     to_cube @ twist[:3])
