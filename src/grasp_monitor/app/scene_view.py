"""What a viewer of a scenario needs to know: its pads, objects and where to look.

One reading of ``config/<scenario>.yaml`` (the scene as ``mujoco_sim`` builds it,
the pads as ``tactile_sensor`` senses them) feeds the rviz configs, the layouts
of the other tools and the snapshot picture, so they all show the same thing
from the same camera.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from pathlib import Path

from grasp_monitor.app.scenario_config import ScenarioConfig
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
from grasp_monitor.nodes.mujoco_sim_parameters import scenario_params, scene_settings
from grasp_monitor.nodes.tactile_sensor_parameters import PER_PAD
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import pad_specs, PadSpec
import mujoco
import numpy as np

#: Vertical field of view of the camera, rad: rviz's and MuJoCo's default (45 deg).
FIELD_OF_VIEW_RAD = math.pi / 4
#: Orbit angles of the camera, rad: yaw about world z from +x, pitch above the horizon.
CAMERA_YAW_RAD = 0.8
CAMERA_PITCH_RAD = 0.45
#: Distance to the eye as a fraction of the one whose view's height holds the box's sphere.
_FILL = 0.75


@dataclass(frozen=True)
class Camera:
    """An orbit camera, as rviz's Orbit view and MuJoCo's free camera take it.

    Attributes:
        focal_point: (3,) the point looked at, world frame, m.
        distance_m: from the focal point to the eye, m.
        yaw_rad: azimuth of the eye about world z, from +x, rad.
        pitch_rad: elevation of the eye above the focal point's horizon, rad.
    """

    focal_point: tuple[float, float, float]
    distance_m: float
    yaw_rad: float = CAMERA_YAW_RAD
    pitch_rad: float = CAMERA_PITCH_RAD

    @classmethod
    def framing(cls, low: np.ndarray, high: np.ndarray) -> Camera:
        """Return the camera whose view holds the box ``low``..``high`` (world, m)."""
        centre = (np.asarray(low) + np.asarray(high)) / 2
        radius = float(np.linalg.norm(np.asarray(high) - np.asarray(low))) / 2
        # the sphere about the box a little wider than the view's height: the view is wider
        distance = _FILL * radius / math.tan(FIELD_OF_VIEW_RAD / 2)
        return cls(tuple(round(float(c), 3) for c in centre), round(distance, 3))


@dataclass(frozen=True)
class PadView:
    """One tactile pad as a viewer draws it.

    Attributes:
        name: the pad (topic ``tactile/<name>``).
        frame: its body, the cloud's frame.
        channel: the cloud field along the pad's inward normal (``fx``, ``fy`` or ``fz``):
            the taxels' pressure, as the object pushes on the pad.
        sign: +1 when that field grows with pressure, -1 when it falls.
        full_scale_n: a taxel force drawn reddest, N (``markers_full_scale``).
        spacing_m: the taxel spacing, m.
    """

    name: str
    frame: str
    channel: str
    sign: float
    full_scale_n: float
    spacing_m: float


@dataclass(frozen=True)
class SceneView:
    """A scenario as its viewers show it.

    Attributes:
        scenario: its name.
        pads: the tactile pads (none when ``tactile`` is off).
        objects: the grasped objects (``ground_truth/<object>``).
        camera: the camera framing the robot and the objects.
        low, high: (3,) their bounding box at the start, world, m.
        pad_specs: the pads as ``tactile_sensor`` builds them (for the snapshot).
    """

    scenario: str
    pads: tuple[PadView, ...]
    objects: tuple[str, ...]
    camera: Camera
    low: tuple[float, ...]
    high: tuple[float, ...]
    pad_specs: tuple[PadSpec, ...] = ()

    @classmethod
    def from_config(cls, config: ScenarioConfig) -> SceneView:
        """Build the view of the scene ``config`` simulates, as its nodes build it."""
        sim_params = config.node('mujoco_sim')
        scene = build_scene(sim_params['scenario'], scene_settings(sim_params),
                            **scenario_params(sim_params))
        sim = Simulator(scene)
        model, data = sim.model, sim.data
        mujoco.mj_forward(model, data)
        shown = _subtree_bodies(model, scene.robot_bodies + scene.objects)
        geoms = np.flatnonzero(np.isin(model.geom_bodyid, shown))
        radius = model.geom_rbound[geoms][:, None]
        low = (data.geom_xpos[geoms] - radius).min(axis=0)
        high = (data.geom_xpos[geoms] + radius).max(axis=0)
        # an arm swings about its base: its reach about the base's vertical, not its pose
        base = data.xpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, scene.base_body)]
        reach = float((np.linalg.norm(data.geom_xpos[geoms, :2] - base[:2], axis=1)
                       + model.geom_rbound[geoms]).max())
        low[:2] = np.minimum(low[:2], base[:2] - reach)
        high[:2] = np.maximum(high[:2], base[:2] + reach)
        # as tactile_sensor: the scene's pads unless the file names them
        tactile = config.node('tactile_sensor') | {'pads': list(scene.pads)} \
            | dict(config.given.get('tactile_sensor', {}))
        names = list(tactile['pads'])
        pads, specs = [], ()
        if sim_params['tactile']:
            specs = pad_specs(names, tactile['bodies'], PAD_FRAME_TOUCH_FUNCTIONS,
                              **{key: tactile[key] for key in PER_PAD})
            bodies = _per_pad(tactile['bodies'], len(names))
            spacing = _per_pad(tactile['resolution'], len(names))
            bodies = [body or name for name, body in zip(names, bodies)]
            for name, body, spacing_m in zip(names, bodies, spacing):
                others = [b for b in bodies if b != body] or list(scene.objects)
                channel, sign = _inward_axis(model, data, body, others)
                pads.append(PadView(name, body, channel, sign,
                                    float(tactile['markers_full_scale']), float(spacing_m)))
        sim.close()
        return cls(config.scenario, tuple(pads), tuple(scene.objects), Camera.framing(low, high),
                   tuple(float(v) for v in low), tuple(float(v) for v in high), specs)

    @classmethod
    def for_scenario(cls, scenario: str, params_file: Path | None = None) -> SceneView:
        """Build the view of ``scenario`` from its parameter file (default its own)."""
        config = ScenarioConfig.from_file(params_file) if params_file else \
            ScenarioConfig.for_scenario(scenario)
        return cls.from_config(config)


def _per_pad(values: list, count: int) -> list:
    return list(values) * count if len(values) == 1 else list(values)


def _subtree_bodies(model: mujoco.MjModel, roots: tuple[str, ...]) -> np.ndarray:
    ids = {mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name) for name in roots}
    for body in range(1, model.nbody):  # parents come before their children
        if model.body_parentid[body] in ids:
            ids.add(body)
    return np.array(sorted(ids))


def _inward_axis(model: mujoco.MjModel, data: mujoco.MjData, body: str,
                 facing: list[str]) -> tuple[str, float]:
    """Return the pad frame's axis away from what it grips, and the sign of pressure on it.

    ``facing``: the bodies across the grip (the other pads, else the objects). They push
    the pad away from themselves: the taxel force along that axis grows with pressure.
    """
    pad = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
    across = np.mean([data.xpos[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)]
                      for name in facing], axis=0)
    away_in_pad = quat_to_matrix(data.xquat[pad]).T @ (data.xpos[pad] - across)
    axis = int(np.argmax(np.abs(away_in_pad)))
    return 'f' + 'xyz'[axis], 1.0 if away_in_pad[axis] > 0 else -1.0
