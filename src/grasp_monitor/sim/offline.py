"""Run a scenario without ROS: the engine behind ``grasp-monitor run``.

The engine is ``OfflinePipeline`` (``sim.pipeline``): physics every step,
the tactile arrays of every step, the grasp monitor at the control rate and
the energy metric of every step, evaluated in blocks.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.sim.pipeline import OfflinePipeline, PipelineConfig
from grasp_monitor.sim.scene import Drive, Scene
from grasp_monitor.sim.scenes import build_scene
import mujoco


@dataclasses.dataclass(frozen=True)
class RunResult:
    """What a run did: steps, times, final object poses, events, contact force, energy.

    ``events`` are the monitor's records as flat strings (``EventRecord.as_strings``);
    ``peak_contact_force_n`` is per pad the highest norm of its summed taxel
    forces, N; ``peak_energy_j`` the highest energy metric over objects and
    steps, J, at ``peak_energy_time_s``.
    """

    scenario: str
    steps: int
    sim_time_s: float
    wall_time_s: float
    real_time_factor: float
    diverged: bool
    final_objects: Mapping[str, Mapping[str, list[float]]]
    parameters: Mapping[str, Any]
    settings: Mapping[str, Any]
    control_rate_hz: float = 0.0
    events: tuple[Mapping[str, str], ...] = ()
    peak_contact_force_n: Mapping[str, float] = dataclasses.field(default_factory=dict)
    peak_energy_j: float = math.nan
    peak_energy_time_s: float = math.nan
    energy_failed: bool = False

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict."""
        return dataclasses.asdict(self)


def default_drive(scene: Scene) -> Drive | None:
    """Return the commands a scenario runs with when nothing else commands it."""
    if scene.drive is not None:
        return scene.drive
    if scene.name == 'pick_lift':
        return PickLiftScript(
            approach_height_m=float(scene.metadata['approach_height_m'])).command
    return None


def run_scenario(
    name: str,
    duration_s: float | None = None,
    settings: Mapping[str, Any] | None = None,
    control_rate_hz: float = 100.0,
    real_time_factor: float = 0.0,
    **params: Any,
) -> RunResult:
    """Simulate scenario ``name`` for ``duration_s`` (default: the scenario's) and report.

    Args:
        name: scenario name.
        duration_s: simulated seconds.
        settings: SimSettings overrides.
        control_rate_hz: how often the drive is applied and the monitor
            samples, Hz (physics, tactile and energy run every step).
        real_time_factor: pacing; 0 runs as fast as possible.
        **params: scenario parameters.
    """
    scene = build_scene(name, settings, **params)
    pipeline = OfflinePipeline(scene, PipelineConfig(control_rate_hz=control_rate_hz),
                               drive=default_drive(scene))
    duration_s = scene.duration_s if duration_s is None else duration_s
    result = pipeline.run(duration_s, real_time_factor)
    sim = pipeline.sim
    bodies = sim.body_arrays()
    objects = {
        body: {'position_m': bodies.position[i].round(6).tolist(),
               'quaternion_wxyz': bodies.quaternion[i].round(6).tolist()}
        for i, body in enumerate(bodies.names) if body in scene.objects}
    wall_s = result.wall_time_s
    return RunResult(
        scenario=name, steps=result.steps, sim_time_s=result.sim_time_s,
        wall_time_s=wall_s, real_time_factor=result.sim_time_s / wall_s if wall_s > 0 else 0.0,
        diverged=result.diverged, final_objects=objects, parameters=dict(params),
        settings=dataclasses.asdict(scene.settings) | {'mujoco': mujoco.__version__},
        control_rate_hz=control_rate_hz,
        events=tuple(record.as_strings() for record in result.events),
        peak_contact_force_n={spec.name: force for spec, force in zip(
            pipeline.arrays.specs, result.peak_contact_force_n)},
        peak_energy_j=result.peak_energy_j, peak_energy_time_s=result.peak_energy_time_s,
        energy_failed=result.energy_failed)
