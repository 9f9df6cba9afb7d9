"""Run a scenario without ROS: the engine behind ``grasp-monitor run``.

The engine is ``OfflinePipeline`` (``sim.offline``): physics every step,
the tactile arrays of every step, the grasp monitor at the control rate, the
energy metric of every step and, given a metrics configuration, the grasp
criteria and reward of the trial, evaluated in blocks. ``OfflineSetup`` holds
what a scenario's parameter file sets (``grasp_monitor.app.scenario_config``
builds it), so the offline run and the ROS graph run one configuration.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.core.metrics import MetricsConfig
from grasp_monitor.core.monitor import MonitorConfig
from grasp_monitor.core.pad_contacts import basis_name
from grasp_monitor.core.quality import epsilon_summary
from grasp_monitor.sim.offline import OfflinePipeline, PipelineConfig
from grasp_monitor.sim.scene import Drive, Scene
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import PadSpec
import mujoco


@dataclasses.dataclass(frozen=True)
class RunResult:
    """What a run did: steps, times, final object poses, events, contact force, energy.

    ``events`` are the monitor's records as flat strings (``EventRecord.as_strings``);
    ``peak_contact_force_n`` is per pad the highest norm of its summed taxel
    forces, N; ``peak_energy_j`` the highest energy metric, J, at
    ``peak_energy_time_s``: with metrics, over the trial's metrics samples from
    their reference (``energy_from``), as the metrics node publishes them; without,
    over objects and steps from the first; ``criteria`` each criterion's reward
    and ``reward`` their weighted total, as the metrics node reports them (empty
    and None without a metrics configuration or a sample in the trial); ``basis``
    what the events and criteria come from: ``contacts`` (the pads' contacts with
    the object) or ``taxels (estimate)``; ``epsilon`` the grasp quality of the
    metrics' samples (``core.quality.epsilon_summary`` of the configured variant, and
    ``variant``; empty without metrics).
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
    criteria: Mapping[str, float] = dataclasses.field(default_factory=dict)
    reward: float | None = None
    basis: str = ''
    epsilon: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    params_file: str = ''

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


@dataclasses.dataclass(frozen=True)
class OfflineSetup:
    """What a scenario configuration sets in an offline run besides the scene.

    Attributes:
        pipeline: rates, force test, contact threshold (its ``control_rate_hz``
            is how often the drive is applied and the monitor samples, Hz).
        pads: the tactile pads (None: the scene's, with default settings).
        monitor: the monitor (None: rostok's constants at the control rate).
        metrics: the criteria and reward (None: none computed).
        drive: the commands (None: ``default_drive``).
        params_file: the parameter file it came from, for the report.
    """

    pipeline: PipelineConfig = PipelineConfig()
    pads: tuple[PadSpec, ...] | None = None
    monitor: MonitorConfig | None = None
    metrics: MetricsConfig | None = None
    drive: Drive | None = None
    params_file: str = ''


def run_scenario(
    name: str,
    duration_s: float | None = None,
    settings: Mapping[str, Any] | None = None,
    real_time_factor: float = 0.0,
    setup: OfflineSetup | None = None,
    continue_after_end: bool = False,
    **params: Any,
) -> RunResult:
    """Simulate scenario ``name`` up to its verdict or ``duration_s`` and report.

    The simulation stops at the monitor's verdict (trial_end) unless
    ``continue_after_end``. A trial still open at the end is ended there (reason
    'end of run'), as the demo ends one through the monitor's stop service, so its
    criteria come out.

    Args:
        name: scenario name.
        duration_s: simulated seconds.
        settings: SimSettings overrides.
        real_time_factor: pacing; 0 runs as fast as possible.
        setup: pipeline, pads, monitor, metrics and drive (default: ``OfflineSetup()``).
        continue_after_end: simulate the whole duration after the verdict too.
        **params: scenario parameters.
    """
    setup = setup if setup is not None else OfflineSetup()
    scene = build_scene(name, settings, **params)
    pipeline = OfflinePipeline(
        scene, setup.pipeline, setup.pads, setup.monitor,
        drive=setup.drive if setup.drive is not None else default_drive(scene),
        metrics=setup.metrics)
    duration_s = scene.duration_s if duration_s is None else duration_s
    result = pipeline.run(duration_s, real_time_factor, stop_at_end=not continue_after_end)
    pipeline.end_trial()
    report = pipeline.report
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
        control_rate_hz=setup.pipeline.control_rate_hz,
        events=tuple(record.as_strings() for record in pipeline.events),
        peak_contact_force_n={spec.name: force for spec, force in zip(
            pipeline.arrays.specs, result.peak_contact_force_n)},
        peak_energy_j=result.peak_energy_j, peak_energy_time_s=result.peak_energy_time_s,
        energy_failed=result.energy_failed,
        criteria=dict(report.partials) if report is not None else {},
        reward=report.total if report is not None else None,
        basis=basis_name(setup.pipeline.contacts),
        epsilon=_epsilon(pipeline, setup.metrics), params_file=setup.params_file)


def _epsilon(pipeline: OfflinePipeline, metrics: MetricsConfig | None) -> dict[str, Any]:
    """Return the summary of the grasp quality series of the run's metrics samples."""
    if metrics is None or not pipeline.qualities:
        return {}
    variant = metrics.epsilon.variant
    times = [time_s for time_s, _ in pipeline.qualities]
    grasp = next((record.time_s for record in pipeline.events if record.kind == 'grasp'),
                 None)
    return {'variant': variant} | epsilon_summary(
        times, [quality.value(variant) for _, quality in pipeline.qualities], grasp)
