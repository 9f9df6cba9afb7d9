"""Pictures of tactile pads, as mimoTouch draws them: the layout, and the forces at a grasp.

``grasp-monitor tactile-plot`` runs a scenario offline with its default drive
(pick_lift: the scripted pick), watches for the grasp with the core grasp
event (the object still while two non-palm bodies touch it for a dwell),
computes every pad's tactile array at that tick and writes two PNGs per pad:

* ``<pad>_layout.png``: the taxels in the pad body frame as a 3D scatter,
  each with its outward normal;
* ``<pad>_forces.png``: a heat map of the normal force on each taxel of the
  pad's most loaded face, seen from outside the pad, with the shear (the
  force along the face) as arrows and the contact points as crosses.

The dwell defaults to 0.2 s, not rostok's 10 ticks: in pick_lift the fingers
close at about 0.5 m/s, and 10 ms after the first touch (when the 10-tick
grasp fires; the object rests on the table, so it is still) they are still
sinking up to 11 mm into the object, which puts MuJoCo's contact points
mid-pad and spreads the force onto the pad's sides. By 0.2 s the penetration
has settled below 1 mm and the map shows the hold.

matplotlib draws with its Agg backend, so no display is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from pathlib import Path
from typing import Sequence

from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.metrics.trial import summarize_object_contacts
from grasp_monitor.core.monitor import GraspMonitor, GraspSample, MonitorConfig
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile import TactilePad
from grasp_monitor.core.tactile.settings import BY_NAME as TACTILE_BY_NAME
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import PadSpec, SimTactileArrays, TactileReading
import mujoco
import numpy as np

#: How long the object must stay still in the grasp before the picture, s.
DEFAULT_DWELL_S = 0.2
_MM = 1e3
_PAD = TACTILE_BY_NAME


@dataclass(frozen=True)
class GraspSnapshot:
    """The tactile arrays at the tick the grasp event fired.

    Attributes:
        scenario: the scenario's name.
        arrays: the pads (layouts, specs).
        reading: their values, poses and the scene's contacts at the grasp.
    """

    scenario: str
    arrays: SimTactileArrays
    reading: TactileReading


def snapshot_at_grasp(scenario: str = 'pick_lift', pads: Sequence[str] = (),
                      settings: dict | None = None, duration_s: float = 5.0,
                      dwell_s: float = DEFAULT_DWELL_S,
                      control_rate_hz: float = 1000.0) -> GraspSnapshot:
    """Run ``scenario`` offline until the grasp event fires; return the tactile arrays then.

    Args:
        scenario: scenario name.
        pads: pad bodies to sense, or PadSpec values (default: the scene's pads
            at the tactile settings' default resolution).
        settings: SimSettings overrides.
        duration_s: give up after this much simulated time, s.
        dwell_s: the grasp event's dwell: how long the object must stay still
            with two bodies touching it, s.
        control_rate_hz: ticks per simulated second (the grasp monitor's rate).

    Raises:
        ConfigError: a bad scenario or pad.
        SimulationError: no grasp within ``duration_s``, or the simulation diverged.
    """
    scene = build_scene(scenario, settings)
    sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))
    specs = [pad if isinstance(pad, PadSpec) else
             PadSpec(pad)
             for pad in (pads or scene.pads)]
    arrays = SimTactileArrays(sim, specs)
    runner = SimRunner(sim, RunConfig(control_rate_hz, 0.0))
    tick_s = runner.steps_per_tick * sim.timestep_s
    monitor = GraspMonitor(MonitorConfig(
        sensor_period_s=tick_s, grasp_dwell=dwell_s, grasp_limit=duration_s,
        events=('contact', 'grasp'),
        robot_bodies=scene.robot_bodies))
    body_ids = [mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_BODY, name)
                for name in (scene.objects[0],) + scene.robot_bodies]
    palm = scene.robot_bodies.index(scene.palm_body) if scene.palm_body else -1
    tracked = sim.tracked_bodies.index(scene.objects[0])
    found: list[TactileReading] = []

    def watch(sim: Simulator) -> None:
        summary = summarize_object_contacts(sim.contacts(), body_ids[0], body_ids[1:])
        speed = float(np.linalg.norm(sim.body_arrays().linear_velocity[tracked]))
        update = monitor.update(GraspSample(sim.time_s, summary.body_mask, palm, speed))
        if any(record.kind == 'grasp' for record in update.records):
            found.append(arrays.compute())
            runner.stop()

    runner.add_tick_callback(watch)
    runner.run(duration_s)
    if sim.diverged:
        raise SimulationError(f'{scenario} diverged at t = {sim.time_s:.3f} s')
    if not found:
        raise SimulationError(f'no grasp in the first {duration_s:g} s of {scenario}: '
                              'nothing to plot')
    return GraspSnapshot(scenario, arrays, found[0])


def _pyplot():
    """Return matplotlib.pyplot on the Agg backend (files only, no display)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def plot_layout(pad: TactilePad, spec: PadSpec, path: Path) -> Path:
    """Write a 3D scatter of the pad's taxels with their normals, in the pad frame (mm)."""
    plt = _pyplot()
    positions = pad.positions_in_pad * _MM
    normals = pad.normals_in_pad
    resolution_mm = pad.layout.resolution_m * _MM
    figure = plt.figure(figsize=(7.5, 6.5), dpi=120)
    axes = figure.add_subplot(projection='3d')
    # Colour by face direction: taxels sharing a normal share a colour.
    colour = 0.5 + 0.5 * normals
    axes.scatter(*positions.T, c=np.clip(colour, 0.0, 1.0), s=9, depthshade=False)
    arrow = normals * resolution_mm
    axes.quiver(*positions.T, *arrow.T, color='0.35', linewidth=0.5, arrow_length_ratio=0.3)
    low, high = positions.min(axis=0) - resolution_mm, positions.max(axis=0) + resolution_mm
    for setter, lo, hi in zip((axes.set_xlim, axes.set_ylim, axes.set_zlim), low, high):
        setter(lo, hi)
    axes.set_box_aspect(high - low)
    axes.set_xlabel('x (mm)')
    axes.set_ylabel('y (mm)')
    axes.set_zlabel('z (mm)')
    axes.view_init(elev=22, azim=-60)
    axes.set_title(f'{spec.name}: {len(pad.layout)} taxels on body {spec.body}\n'
                   f'{spec.settings["layout"]} layout, resolution {resolution_mm:g} mm; '
                   'colours and arrows: outward normals; pad body frame', fontsize=10)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def _face(pad: TactilePad, normal_force: np.ndarray) -> np.ndarray:
    """Return the taxels of the most loaded face: same geom, same normal (to 1e-3)."""
    keys = np.column_stack([pad.layout.geom_ids, np.round(pad.normals_in_pad, 3)])
    _, group = np.unique(keys, axis=0, return_inverse=True)
    group = group.reshape(-1)
    load = np.bincount(group, weights=np.maximum(normal_force, 0.0))
    members = np.flatnonzero(group == int(np.argmax(load)))
    if members.size < 3:  # a curved surface: take the whole geom
        members = np.flatnonzero(pad.layout.geom_ids == pad.layout.geom_ids[members[0]])
    return members


def _face_axes(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool, str, str]:
    """Return the face's plot axes seen from outside: horizontal and vertical unit vectors.

    A face of the pad frame is drawn in pad coordinates with +z (else +y) up
    and the horizontal axis inverted where needed, so the picture is the face
    as seen from outside the pad. Returns (horizontal, vertical, inverted,
    horizontal label, vertical label).
    """
    names = 'xyz'
    axis = int(np.argmax(np.abs(normal)))
    if abs(normal[axis]) > 1.0 - 1e-6:
        up = 1 if axis == 2 else 2
        right = np.cross(np.eye(3)[up], normal)  # (right, up, normal) is right-handed
        across = int(np.argmax(np.abs(right)))
        return (np.eye(3)[across], np.eye(3)[up], bool(right[across] < 0),
                f'pad {names[across]} (mm)', f'pad {names[up]} (mm)')
    right = np.cross(np.array([0.0, 0.0, 1.0]) if abs(normal[2]) < 0.9
                     else np.array([0.0, 1.0, 0.0]), normal)
    right /= np.linalg.norm(right)
    return right, np.cross(normal, right), False, 'u (mm)', 'v (mm)'


def plot_forces(pad: TactilePad, spec: PadSpec, values: np.ndarray, reading: TactileReading,
                index: int, scenario: str, path: Path) -> Path:
    """Write a heat map of the normal force per taxel over the pad's most loaded face."""
    plt = _pyplot()
    normals = pad.normals_in_pad
    if values.shape[1] == 1:  # 'normal': magnitudes only, no shear
        normal_force = values[:, 0]
        shear = None
    else:
        normal_force = -np.einsum('ij,ij->i', values, normals)  # pressing in is positive
        shear = values + normal_force[:, None] * normals
    members = _face(pad, normal_force)
    face_normal = normals[members].mean(axis=0)
    face_normal /= np.linalg.norm(face_normal)
    u, v, inverted, u_label, v_label = _face_axes(face_normal)
    points = pad.positions_in_pad[members] * _MM
    uu, vv = points @ u, points @ v
    load = normal_force[members]
    figure, axes = plt.subplots(figsize=(7.0, 6.0), dpi=120)
    columns, rows = np.unique(np.round(uu, 6)), np.unique(np.round(vv, 6))
    top = max(float(load.max()), 1e-9)
    if columns.size * rows.size == members.size and columns.size > 1 and rows.size > 1:
        grid = np.full((rows.size, columns.size), np.nan)
        grid[np.searchsorted(rows, np.round(vv, 6)), np.searchsorted(columns, np.round(uu, 6))] \
            = load
        image = axes.pcolormesh(_edges(columns), _edges(rows), grid, cmap='inferno',
                                vmin=0.0, vmax=top, shading='flat')
    else:
        image = axes.tripcolor(uu, vv, load, cmap='inferno', vmin=0.0, vmax=top,
                               shading='gouraud')
    axes.plot(uu, vv, '.', color='0.6', markersize=2, label='taxels')
    resolution_mm = pad.layout.resolution_m * _MM
    total_shear = math.nan
    if shear is not None:
        face_shear = np.column_stack([shear[members] @ u, shear[members] @ v])
        total_shear = float(np.linalg.norm(face_shear.sum(axis=0)))
        largest = float(np.max(np.linalg.norm(face_shear, axis=1)))
        if largest > 0:
            # The largest shear arrow is one taxel spacing long.
            arrows = axes.quiver(uu, vv, *face_shear.T, color='cyan', angles='xy',
                                 scale_units='xy', scale=largest / resolution_mm, width=0.005)
            axes.quiverkey(arrows, 0.62, -0.115, largest, f'shear on a taxel, {largest:.2g} N',
                           labelpos='E', coordinates='axes', fontproperties={'size': 8})
    on_pad = _contact_points_in_pad(pad, reading, index)
    if on_pad.size:
        axes.plot(on_pad @ u * _MM, on_pad @ v * _MM, 'x', color='lime', markersize=9,
                  markeredgewidth=2, clip_on=False, label='contact points')
    axes.legend(loc='upper left', bbox_to_anchor=(0.0, -0.09), ncol=2, fontsize=8,
                frameon=False)
    colorbar = figure.colorbar(image, ax=axes)
    colorbar.set_label('normal force on the taxel (N)')
    axes.set_aspect('equal')
    margin = resolution_mm
    axes.set_xlim(uu.min() - margin, uu.max() + margin)
    if inverted:
        axes.invert_xaxis()
    axes.set_ylim(vv.min() - margin, vv.max() + margin)
    axes.set_xlabel(u_label)
    axes.set_ylabel(v_label)
    whole_pad = -float(reading.total_force_in_pad[index] @ face_normal)
    settings = spec.settings
    axes.set_title(
        f'{spec.name} at the grasp in {scenario}, t = {reading.time_s:.3f} s\n'
        f'face with normal {np.round(face_normal, 2).tolist()}, seen from outside: '
        f'{members.size} of {len(pad.layout)} taxels\n'
        f'on this face: normal {load.sum():.2f} N, shear {total_shear:.2f} N; '
        f'whole pad: {whole_pad:.2f} N (the rest on the neighbouring faces)\n'
        f'touch {settings["touch"]}, response {settings["response"]}, '
        f'resolution {settings["resolution"] * _MM:g} mm', fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def _edges(centres: np.ndarray) -> np.ndarray:
    """Return cell edges around sorted, evenly spaced cell centres."""
    half = 0.5 * (centres[1] - centres[0])
    return np.concatenate([centres - half, centres[-1:] + half])


def _contact_points_in_pad(pad: TactilePad, reading: TactileReading, index: int) -> np.ndarray:
    """Return the (K, 3) points of the contacts touching the pad, in the pad frame, m."""
    contacts = reading.contacts
    on_pad = np.isin(contacts.geom1, pad.geom_ids) ^ np.isin(contacts.geom2, pad.geom_ids)
    position, quaternion = reading.T_world_pad[index]
    rotation = quat_to_matrix(quaternion)
    return (contacts.position_in_world[on_pad] - position) @ rotation


def tactile_plots(output_dir: str | Path, scenario: str = 'pick_lift',
                  pads: Sequence[str] = (), resolution_m: float = _PAD['resolution'].default,
                  touch: str = _PAD['touch'].default, response: str = _PAD['response'].default,
                  duration_s: float = 5.0, dwell_s: float = DEFAULT_DWELL_S
                  ) -> tuple[GraspSnapshot, list[Path]]:
    """Run ``scenario`` to its grasp and write each pad's layout and force PNGs.

    Returns:
        The snapshot and the files written, two per pad.

    Raises:
        ConfigError: a bad scenario, pad or setting.
        SimulationError: no grasp, or the simulation diverged.
    """
    if touch == 'force_vector_global':
        raise ConfigError('touch force_vector_global is in the world frame; plots need the pad '
                          'frame: normal, normal_force or force_vector')
    scene_pads = pads or build_scene(scenario).pads
    specs = [PadSpec(name, settings={'resolution': resolution_m, 'touch': touch,
                                     'response': response}) for name in scene_pads]
    snapshot = snapshot_at_grasp(scenario, specs, duration_s=duration_s, dwell_s=dwell_s)
    output = Path(output_dir)
    output.mkdir(parents=True, exist_ok=True)
    written = []
    for index, (spec, pad) in enumerate(zip(snapshot.arrays.specs, snapshot.arrays.pads)):
        written.append(plot_layout(pad, spec, output / f'{spec.name}_layout.png'))
        written.append(plot_forces(pad, spec, snapshot.reading.values[index], snapshot.reading,
                                   index, scenario, output / f'{spec.name}_forces.png'))
    return snapshot, written
