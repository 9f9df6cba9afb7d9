"""A picture of a grasp as rviz shows it: MuJoCo's offscreen renderer with the taxels and forces.

The scene is rendered from an orbit camera, with each pad's taxels added as small
spheres coloured from blue (no pressure) to red (full scale), as rviz colours the
tactile clouds, and each contact of a pad as an arrow along the force the pad
exerts, as ``contacts/markers`` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
import importlib
import math
import os
from typing import Sequence

from grasp_monitor.core.errors import SimulationError
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.contacts import pad_contacts
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import PadSpec, SimTactileArrays
from grasp_monitor.sim.tactile_plot import GraspSnapshot
import mujoco
import numpy as np

#: rviz's Intensity colours: blue at no pressure, red at full scale.
_LOW, _HIGH = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
_ARROW = np.array([0.1, 0.9, 0.2, 1.0])


@dataclass(frozen=True)
class TaxelColours:
    """How one pad's taxels are coloured: the value along its inward normal.

    Attributes:
        axis: index of the taxel force component along the normal (0, 1, 2).
        sign: +1 when that component grows with pressure, -1 when it falls.
        full_scale_n: drawn reddest, N.
        radius_m: sphere radius, m.
    """

    axis: int
    sign: float
    full_scale_n: float
    radius_m: float


def use_offscreen_gl() -> None:
    """Render with EGL when no display is set and ``MUJOCO_GL`` says nothing.

    MuJoCo reads ``MUJOCO_GL`` when first imported: its context module is read again.
    """
    if os.environ.get('MUJOCO_GL') or os.environ.get('DISPLAY') or \
            os.environ.get('WAYLAND_DISPLAY'):
        return
    os.environ['MUJOCO_GL'] = 'egl'
    from mujoco.rendering.classic import gl_context
    importlib.reload(gl_context)


def snapshot_at(scenario: str, pads: Sequence[PadSpec], time_s: float) -> GraspSnapshot:
    """Run ``scenario`` offline with its default drive for ``time_s``; return its pads then.

    Raises:
        SimulationError: the simulation diverged.
    """
    scene = build_scene(scenario)
    sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))
    arrays = SimTactileArrays(sim, pads)
    SimRunner(sim, RunConfig(1000.0, 0.0)).run(time_s)
    if sim.diverged:
        raise SimulationError(f'{scenario} diverged at t = {sim.time_s:.3f} s')
    return GraspSnapshot(scenario, arrays, arrays.compute())


def _add(scene: mujoco.MjvScene, kind: int, size: Sequence[float], position: np.ndarray,
         rotation: np.ndarray, rgba: np.ndarray) -> mujoco.MjvGeom | None:
    if scene.ngeom >= scene.maxgeom:
        return None
    geom = scene.geoms[scene.ngeom]
    mujoco.mjv_initGeom(geom, kind, np.asarray(size, float), np.asarray(position, float),
                        np.asarray(rotation, float).reshape(9), np.asarray(rgba, np.float32))
    scene.ngeom += 1
    return geom


def render_grasp(snapshot: GraspSnapshot, colours: Sequence[TaxelColours],
                 lookat: Sequence[float], distance_m: float, yaw_rad: float,
                 pitch_rad: float, arrow_m_per_n: float, width: int = 1200,
                 height: int = 800, fovy_deg: float = 45.0, alpha: float = 0.3) -> np.ndarray:
    """Render the snapshot's state with its taxels and contact forces; return RGB pixels.

    Args:
        snapshot: the grasp (its simulator still holds that state).
        colours: per pad of ``snapshot.arrays``, how its taxels are coloured.
        lookat: (3,) the camera's focal point, world, m.
        distance_m: from it to the eye, m.
        yaw_rad, pitch_rad: the eye's azimuth about world z from +x and its elevation, rad
            (rviz's Orbit view).
        arrow_m_per_n: arrow length per newton, m/N.
        width, height: pixels.
        fovy_deg: vertical field of view, degrees.
        alpha: opacity of the robot's and the objects' geoms.

    Returns:
        (height, width, 3) uint8.
    """
    sim = snapshot.arrays.sim
    model, data = sim.model, sim.data
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    model.vis.global_.fovy = fovy_deg
    taxels = sum(len(pad.layout) for pad in snapshot.arrays.pads)
    contacts = snapshot.reading.contacts
    renderer = mujoco.Renderer(model, height, width,
                               max_geom=model.ngeom + taxels + len(contacts.body1) + 100)
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.lookat[:] = lookat
    camera.distance = distance_m
    # MuJoCo's eye sits behind the look direction: azimuth opposite rviz's yaw
    camera.azimuth = math.degrees(yaw_rad) + 180.0
    camera.elevation = -math.degrees(pitch_rad)
    try:
        renderer.update_scene(data, camera)
        scene = renderer.scene
        # the robot and the objects see-through, as rviz's RobotModel at alpha < 1:
        # the pads' inner faces and the contacts between them stay visible
        bodies = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
                  for name in sim.scene.robot_bodies + sim.scene.objects]
        see_through = set(np.flatnonzero(np.isin(model.geom_bodyid, bodies)).tolist())
        for i in range(scene.ngeom):
            if scene.geoms[i].objtype == mujoco.mjtObj.mjOBJ_GEOM and \
                    scene.geoms[i].objid in see_through:
                scene.geoms[i].rgba[3] = min(scene.geoms[i].rgba[3], alpha)
        eye = np.eye(3)
        for pad, values, (position, quaternion), colour in zip(
                snapshot.arrays.pads, snapshot.reading.values, snapshot.reading.T_world_pad,
                colours):
            rotation = quat_to_matrix(quaternion)
            points = position + pad.positions_in_pad @ rotation.T
            pressure = colour.sign * values[:, colour.axis] if values.shape[1] == 3 \
                else values[:, 0]
            ratio = np.clip(pressure / colour.full_scale_n, 0.0, 1.0)
            for point, r in zip(points, ratio):
                _add(scene, mujoco.mjtGeom.mjGEOM_SPHERE, [colour.radius_m, 0, 0], point, eye,
                     np.append(_LOW + r * (_HIGH - _LOW), 1.0))
        touching = pad_contacts(contacts, [
            mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, spec.body)
            for spec in snapshot.arrays.specs])
        # the force each pad exerts
        for point, force in zip(touching.position_in_world, touching.force_in_world):
            tip = point + arrow_m_per_n * force
            geom = _add(scene, mujoco.mjtGeom.mjGEOM_ARROW, [0, 0, 0], point, eye, _ARROW)
            if geom is not None:
                mujoco.mjv_connector(geom, mujoco.mjtGeom.mjGEOM_ARROW,
                                     0.004 * distance_m, point, tip)
        return renderer.render().copy()
    finally:
        renderer.close()
