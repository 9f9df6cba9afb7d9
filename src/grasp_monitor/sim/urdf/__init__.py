"""The URDF of a scene: what rviz's RobotModel draws, on the simulator's /tf frames.

``scene_urdf`` turns a scene (its compiled model) into URDF text: a link per body,
named as /tf names its frame, with the MJCF's geometry, colours and inertials, and a
joint per body (``robot``); geoms become URDF shapes and STL meshes (``geometry``).
"""

from __future__ import annotations

import os
from pathlib import Path

from grasp_monitor.sim.scene import Scene
from grasp_monitor.sim.urdf.robot import model_urdf, UNLIMITED_SLIDE_M, with_ancestors
import mujoco

__all__ = ['gripper_bodies', 'mesh_cache_dir', 'model_urdf', 'scene_urdf',
           'UNLIMITED_SLIDE_M', 'with_ancestors']


def gripper_bodies(scene: Scene) -> tuple[str, ...]:
    """Return the bodies of a scene's robot: its base and robot bodies (no objects)."""
    return tuple(dict.fromkeys((scene.base_body,) + scene.robot_bodies))


def mesh_cache_dir() -> Path:
    """Return where the nodes write mesh files: ``$XDG_CACHE_HOME/grasp_monitor/meshes``.

    The files are named by their content, so every process and scene shares them.
    """
    cache = os.environ.get('XDG_CACHE_HOME') or Path.home() / '.cache'
    return Path(cache) / 'grasp_monitor' / 'meshes'


def scene_urdf(scene: Scene, mesh_dir: Path | None = None, gripper_only: bool = False,
               model: mujoco.MjModel | None = None) -> str:
    """Return a scene as URDF text.

    Args:
        scene: the scene.
        mesh_dir: where its mesh STL files go (default ``mesh_cache_dir()``); only
            written when the scene has meshes or ellipsoids.
        gripper_only: only the robot (``gripper_bodies``) and the bodies above it: what
            hardware has, without the objects and the table.
        model: the scene's compiled model, if at hand (default: compiled here).

    Raises:
        ConfigError: the scene does not compile.
    """
    if model is None:
        model = mujoco.MjModel.from_xml_string(scene.mjcf)
    efforts = dict(zip(scene.joints, scene.maximum_torque.tolist()))
    return model_urdf(model, scene.name, mesh_dir if mesh_dir is not None else mesh_cache_dir(),
                      gripper_bodies(scene) if gripper_only else None, efforts)
