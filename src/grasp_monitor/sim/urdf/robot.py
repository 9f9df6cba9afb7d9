"""A MuJoCo model's bodies as URDF links and joints, named as the simulator's /tf frames.

Every body is a link named as ``FrameTree`` names its frame (the world body is
``world``, the root link). Each link's joint to its parent body:

- a jointless body: ``fixed``, at its constant pose (what /tf_static carries);
- one hinge through the body's origin: ``revolute`` with ``jnt_range`` when limited,
  else ``continuous``; one slide: ``prismatic``; each named as the MuJoCo joint, with
  its axis, and its origin the body's pose at joint position 0 (so joint_states
  positions drive it, as robot_state_publisher would);
- a free joint, a mocap body, and any motion one URDF joint cannot express (a ball,
  several joints, a hinge off the body's origin): ``floating``, at the model's pose;
  rviz places it from /tf, where the simulator publishes every moving body.

Inertials are the bodies' (mass, centre of mass, principal inertia); geometry and
colours come from ``geometry.GeomWriter``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence
import xml.etree.ElementTree as ET

from grasp_monitor.core.rotations import quat_multiply, rotate
from grasp_monitor.sim.backend.frame_tree import FrameTree
from grasp_monitor.sim.backend.names import resolve_ids
from grasp_monitor.sim.urdf.geometry import GeomWriter, number, numbers, origin
import mujoco
import numpy as np

_JOINT = mujoco.mjtJoint
#: Limits written for a slide MuJoCo leaves unlimited (a URDF prismatic joint needs some), m.
UNLIMITED_SLIDE_M = 1000.0
#: A hinge whose axis passes this close to its body's origin turns the body about it, m.
_ON_ORIGIN_M = 1e-9


def with_ancestors(model: mujoco.MjModel, bodies: Sequence[str] | None) -> list[int]:
    """Return the ids of ``bodies`` and of every body above them, in tree order (all: None).

    Raises:
        ConfigError: an unknown body (listing the valid ones).
    """
    if bodies is None:
        return list(range(model.nbody))
    keep = {0}
    for body in resolve_ids(model, mujoco.mjtObj.mjOBJ_BODY, tuple(bodies), 'body'):
        while int(body) not in keep:
            keep.add(int(body))
            body = model.body_parentid[body]
    return sorted(keep)  # MuJoCo numbers a parent before its children


def zero_pose(model: mujoco.MjModel, body: int, joint: int) -> tuple[np.ndarray, np.ndarray]:
    """Return a hinge's or slide's body pose in its parent at joint position 0.

    MuJoCo's ``body_pos``/``body_quat`` are the pose at the joint's reference
    (``qpos0``, the MJCF ``ref``); URDF measures the joint from its origin.
    """
    reference = float(model.qpos0[model.jnt_qposadr[joint]])
    axis = model.jnt_axis[joint]
    position, quaternion = model.body_pos[body].copy(), model.body_quat[body].copy()
    if reference == 0.0:
        return position, quaternion
    if model.jnt_type[joint] == _JOINT.mjJNT_SLIDE:
        return position - reference * rotate(quaternion, axis), quaternion
    half = -0.5 * reference
    turn = np.concatenate([[np.cos(half)], np.sin(half) * axis])
    return position, quat_multiply(quaternion, turn)


def _single_joint(model: mujoco.MjModel, body: int) -> int | None:
    """Return the body's one hinge (through its origin) or slide, else None."""
    if model.body_jntnum[body] != 1 or model.body_mocapid[body] >= 0:
        return None
    joint = int(model.body_jntadr[body])
    kind = model.jnt_type[joint]
    if kind == _JOINT.mjJNT_SLIDE or (
            kind == _JOINT.mjJNT_HINGE and np.linalg.norm(model.jnt_pos[joint]) <= _ON_ORIGIN_M):
        return joint
    return None


class _Names:
    """Unique URDF joint names: MuJoCo's where given, else ``<parent>_to_<child>``."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, wanted: str) -> str:
        name, n = wanted, 1
        while name in self.used:
            name, n = f'{wanted}_{n}', n + 1
        self.used.add(name)
        return name


def _joint(robot: ET.Element, model: mujoco.MjModel, body: int, frames: Sequence[str],
           efforts: Mapping[str, float], names: _Names) -> None:
    parent, child = frames[model.body_parentid[body]], frames[body]
    joint = _single_joint(model, body)
    mujoco_name = (mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT,
                                     int(model.body_jntadr[body])) or ''
                   if model.body_jntnum[body] == 1 else '')
    if joint is None:
        moving = model.body_jntnum[body] > 0 or model.body_mocapid[body] >= 0
        if moving and not (model.body_jntnum[body] == 1 and
                           model.jnt_type[model.body_jntadr[body]] == _JOINT.mjJNT_FREE):
            robot.append(ET.Comment(f' {child}: no single URDF joint moves it as MuJoCo '
                                    'does; floating, placed by /tf '))
        element = ET.SubElement(robot, 'joint', name=names.take(
            mujoco_name or f'{parent}_to_{child}'), type='floating' if moving else 'fixed')
        ET.SubElement(element, 'parent', link=parent)
        ET.SubElement(element, 'child', link=child)
        origin(element, model.body_pos[body], model.body_quat[body])
        return
    slide = model.jnt_type[joint] == _JOINT.mjJNT_SLIDE
    limited = bool(model.jnt_limited[joint])
    kind = 'prismatic' if slide else 'revolute' if limited else 'continuous'
    element = ET.SubElement(robot, 'joint', name=names.take(mujoco_name or f'{child}_joint'),
                            type=kind)
    ET.SubElement(element, 'parent', link=parent)
    ET.SubElement(element, 'child', link=child)
    origin(element, *zero_pose(model, body, joint))
    ET.SubElement(element, 'axis', xyz=numbers(model.jnt_axis[joint]))
    effort = efforts.get(mujoco_name, 0.0)
    if model.jnt_actfrclimited[joint]:
        effort = float(np.abs(model.jnt_actfrcrange[joint]).max())
    limit = {'effort': number(effort), 'velocity': '0'}
    if limited:
        limit.update(lower=number(model.jnt_range[joint][0]),
                     upper=number(model.jnt_range[joint][1]))
    elif slide:
        limit.update(lower=number(-UNLIMITED_SLIDE_M), upper=number(UNLIMITED_SLIDE_M))
    ET.SubElement(element, 'limit', **limit)
    dof = int(model.jnt_dofadr[joint])
    ET.SubElement(element, 'dynamics', damping=number(model.dof_damping[dof]),
                  friction=number(model.dof_frictionloss[dof]))


def _inertial(link: ET.Element, model: mujoco.MjModel, body: int) -> None:
    if model.body_mass[body] <= 0.0:
        return
    inertial = ET.SubElement(link, 'inertial')
    origin(inertial, model.body_ipos[body], model.body_iquat[body])
    ET.SubElement(inertial, 'mass', value=number(model.body_mass[body]))
    ixx, iyy, izz = model.body_inertia[body]
    ET.SubElement(inertial, 'inertia', ixx=number(ixx), iyy=number(iyy), izz=number(izz),
                  ixy='0', ixz='0', iyz='0')


def model_urdf(model: mujoco.MjModel, name: str, mesh_dir: Path | None = None,
               bodies: Sequence[str] | None = None,
               efforts: Mapping[str, float] | None = None) -> str:
    """Return a model as URDF text.

    Args:
        model: the compiled model.
        name: the robot's name.
        mesh_dir: where mesh (and ellipsoid) STL files are written; the URDF names
            them by ``file://`` URI. None: a model with meshes is refused.
        bodies: keep only these bodies and those above them (default: every body).
        efforts: the effort limit of each joint by name, N*m or N, where MuJoCo
            sets none on the joint (0 otherwise).

    Raises:
        ConfigError: an unknown body, or a mesh without ``mesh_dir``.
    """
    frames = FrameTree(model).names
    keep = with_ancestors(model, bodies)
    robot = ET.Element('robot', name=name)
    writer = GeomWriter(model, mesh_dir)
    for body in keep:
        link = ET.SubElement(robot, 'link', name=frames[body])
        if body:
            _inertial(link, model, body)
        first = int(model.body_geomadr[body])
        for geom in range(first, first + int(model.body_geomnum[body])):
            writer.add(link, geom)
    names = _Names()
    for body in keep[1:]:
        _joint(robot, model, body, frames, efforts or {}, names)
    for index, (material, colour) in enumerate(sorted(writer.materials.items())):
        element = ET.Element('material', name=material)
        ET.SubElement(element, 'color', rgba=numbers(colour))
        robot.insert(index, element)
    ET.indent(robot)
    return '<?xml version="1.0"?>\n' + ET.tostring(robot, encoding='unicode') + '\n'
