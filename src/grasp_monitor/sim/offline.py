"""Run a scenario without ROS: the engine behind ``grasp-monitor run``."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Mapping

from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.runner import RunConfig, SimRunner
from grasp_monitor.sim.scene import Drive, Scene
from grasp_monitor.sim.scenes import build_scene
import mujoco


@dataclasses.dataclass(frozen=True)
class RunResult:
    """What a run did: steps, simulated and wall time, final object poses."""

    scenario: str
    steps: int
    sim_time_s: float
    wall_time_s: float
    real_time_factor: float
    diverged: bool
    final_objects: Mapping[str, Mapping[str, list[float]]]
    parameters: Mapping[str, Any]
    settings: Mapping[str, Any]

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
    control_rate_hz: float = 1000.0,
    real_time_factor: float = 0.0,
    **params: Any,
) -> RunResult:
    """Simulate scenario ``name`` for ``duration_s`` (default: the scenario's) and report.

    Args:
        name: scenario name.
        duration_s: simulated seconds.
        settings: SimSettings overrides.
        control_rate_hz: how often commands and the watchdog are evaluated, Hz.
        real_time_factor: pacing; 0 runs as fast as possible.
        **params: scenario parameters.
    """
    scene = build_scene(name, settings, **params)
    sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))
    runner = SimRunner(sim, RunConfig(control_rate_hz, real_time_factor))
    duration_s = scene.duration_s if duration_s is None else duration_s
    start = time.perf_counter()
    runner.run(duration_s)
    wall_s = time.perf_counter() - start
    bodies = sim.body_arrays()
    objects = {
        body: {'position_m': bodies.position[i].round(6).tolist(),
               'quaternion_wxyz': bodies.quaternion[i].round(6).tolist()}
        for i, body in enumerate(bodies.names) if body in scene.objects}
    return RunResult(
        scenario=name, steps=runner.ticks * runner.steps_per_tick, sim_time_s=sim.time_s,
        wall_time_s=wall_s, real_time_factor=sim.time_s / wall_s if wall_s > 0 else 0.0,
        diverged=sim.diverged, final_objects=objects, parameters=dict(params),
        settings=dataclasses.asdict(scene.settings) | {'mujoco': mujoco.__version__})
