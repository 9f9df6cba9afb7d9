"""``OfflinePipeline``: a scene run offline, its pieces tied together.

The simulator with the pipeline's sensors (``sensor_layout``), the tactile pads,
the energy metric, the monitor and the metrics, evaluated a block at a time
(``block_evaluation``) of steps recorded and, on a monitor's command, stepped
again (``block_stepper``).
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

from grasp_monitor.core.energy import compile_block_scoring, EnergyTracker, EnergyTrackerConfig
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics import MetricsConfig
from grasp_monitor.core.monitor import EventRecord, GraspMonitor, InputsConfig, MonitorConfig
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.offline.block_evaluation import BlockEvaluation
from grasp_monitor.sim.offline.block_stepper import BlockStepper
from grasp_monitor.sim.offline.sensor_layout import SensorLayout, with_pipeline_sensors
from grasp_monitor.sim.offline.taxel_feed import TaxelFeed
from grasp_monitor.sim.offline.values import PipelineConfig, PipelineResult
from grasp_monitor.sim.scene import Drive, Scene
from grasp_monitor.sim.sensors import pad_specs, PadSpec, SimTactileArrays
import mujoco
import numpy as np


def _forward(owner: str, name: str) -> Any:
    """Return a read-only property for ``self.<owner>.<name>``."""
    return property(lambda self: getattr(getattr(self, owner), name))


class OfflinePipeline:
    """A scene run offline: physics every step, the rest in blocks (package docstring).

    Args:
        scene: the scenario (two pads: left, right).
        config: rates, block size, sensor slots, force test.
        pads: tactile pads (default: every pad of the scene with default settings).
        monitor: the monitor's configuration (default: rostok's constants at the
            control rate, the pads as the robot bodies).
        drive: commands over time (default: the scene's).
        metrics: the grasp criteria and their reward, as the metrics node computes
            them (None: none); its object and pads must be the scene's objects
            and pads, its pads tactile pads too.

    Attributes:
        sim: the simulator (its model has the pipeline's sensors).
        arrays: the tactile pads.
        tactile: the pads as one group, computed together every block.
        tracker: the energy metric.
        monitor: the grasp monitor.
        metrics: the trial's metrics (None without a ``metrics`` config).
        report: the criteria of the trial, once it ended (None before).
        values: per pad, the (S, N, width) taxel values of the last block.
        block_time_s: (S,) time stamps of the last block's steps, s.
        evaluation: what evaluates each block (``BlockEvaluation``).
        stepper: what steps the blocks (``BlockStepper``).
    """

    tracker = _forward('evaluation', 'tracker')
    monitor = _forward('evaluation', 'monitor')
    metrics = _forward('evaluation', 'metrics')
    report = _forward('evaluation', 'report')
    values = _forward('evaluation', 'values')
    events = _forward('evaluation', 'events')
    peak_contact_force_n = _forward('evaluation', 'peak_contact_force_n')
    contact_overflows = _forward('evaluation', 'contact_overflows')
    qualities = _forward('evaluation', 'qualities')
    steps = _forward('stepper', 'steps')
    block_time_s = _forward('stepper', 'block_time_s')

    def __init__(self, scene: Scene, config: PipelineConfig | None = None,
                 pads: Sequence[PadSpec] | None = None,
                 monitor: MonitorConfig | None = None, drive: Drive | None = None,
                 metrics: MetricsConfig | None = None) -> None:
        self.config = config if config is not None else PipelineConfig()
        specs = tuple(pads) if pads is not None else pad_specs(scene.pads)
        bodies = [spec.body or spec.name for spec in specs]
        # The bodies the graph has ground truth of: the monitor's object, the metrics'.
        truth = [self.config.object_body or scene.objects[0]]
        if metrics is not None:
            truth += [metrics.object, *metrics.pads]
            tactile = [spec.name for spec in specs]
            missing = [pad for pad in metrics.pads if pad not in tactile]
            if missing:
                raise ConfigError(f'metrics pad {missing[0]!r} is no tactile pad; valid: '
                                  f'{", ".join(tactile)}')
        tracked = scene.objects + scene.pads
        for body in truth:
            if body not in tracked:
                raise ConfigError(f'body {body!r} has no ground truth in scene {scene.name}; '
                                  f'valid: {", ".join(tracked)}')
        truth = list(dict.fromkeys(truth))
        if self.config.contacts and metrics is not None and metrics.object != truth[0]:
            raise ConfigError(f'the metrics object {metrics.object!r} must be the '
                              f"monitor's, {truth[0]!r}: the contacts are those with it")
        # Only a pad that moves contact points onto its surface needs their distances.
        distances = any(spec.settings['contact_point'] == 'surface' for spec in specs)
        velocities = any(spec.settings['slip'] for spec in specs)
        # read from taxels, the monitor hears joint_states: the scene's joints, first
        joints = self.config.joints if self.config.contacts else tuple(scene.joints) + tuple(
            joint for joint in self.config.joints if joint not in scene.joints)
        scene = with_pipeline_sensors(scene, bodies, self.config.contact_slots, truth,
                                      truth[0] if self.config.contacts else '', distances,
                                      velocities, joints)
        self.sim = Simulator(scene, command_timeout_s=0.0, drive=drive,
                             motor_noise=self.config.motor_noise)
        self.sim.body_mass_kg(self.config.force_test_body or scene.objects[0])  # a known body
        if self.config.force_test_start_time_s > 0.0 and self.config.force_test is not None:
            self.sim.schedule_force_test(self.config.force_test, self.config.force_test_body,
                                         self.config.force_test_start_time_s)
        arrays = SimTactileArrays(self.sim, specs)
        self.arrays = arrays
        model = self.sim.model
        dt = self.sim.timestep_s
        self.steps_per_tick = max(1, round(1.0 / (self.config.control_rate_hz * dt)))
        rate = self.config.sample_rate_hz or self.config.control_rate_hz
        self.steps_per_monitor_sample = max(1, round(1.0 / (rate * dt)))
        if self.steps_per_monitor_sample % self.steps_per_tick:
            raise ConfigError(f'the monitor samples every {self.steps_per_monitor_sample} '
                              f'steps, not a whole number of control ticks of '
                              f'{self.steps_per_tick} steps: make sample_rate_hz divide '
                              f'control_rate_hz ({self.config.control_rate_hz} Hz)')
        self.ticks_per_block = max(1, round(self.config.block_s / (self.steps_per_tick * dt)))
        self.block_steps = self.steps_per_tick * self.ticks_per_block
        objects = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
                   for name in scene.objects]
        tracker = EnergyTracker(EnergyTrackerConfig(
            scene.objects, model.body_mass[objects], model.body_inertia[objects],
            gripper_names=scene.pads, dt_s=dt))
        compile_block_scoring()  # here, not in the first block
        sample_s = self.steps_per_monitor_sample * dt
        grasp_monitor = GraspMonitor(monitor if monitor is not None else MonitorConfig(
            sensor_period_s=sample_s, robot_bodies=tuple(spec.name for spec in specs)))
        layout = SensorLayout(model, scene, bodies, self.config.contact_slots, truth,
                              self.config.contacts, distances, velocities, joints)
        self.evaluation = BlockEvaluation(
            self.config, self.sim, arrays, layout, tracker, grasp_monitor,
            self.steps_per_monitor_sample, metrics,
            None if self.config.contacts else self._taxel_feed(specs, sample_s, grasp_monitor),
            self.steps_per_tick)
        self.tactile = self.evaluation.tactile
        self.stepper = BlockStepper(self.sim, self.evaluation, self.steps_per_tick,
                                    self.block_steps)

    def _taxel_feed(self, specs: Sequence[PadSpec], sample_s: float,
                    monitor: GraspMonitor) -> TaxelFeed:
        """Return the monitor's inputs as the node hears them: clouds, joints, truth, /tf."""
        config = self.config
        inputs = config.inputs if config.inputs is not None else InputsConfig(
            tuple(spec.name for spec in specs), contact_force=config.contact_force_n,
            period_s=sample_s, use_distances=True, palm=monitor.config.palm,
            slip_signals='incipient_slip' in monitor.config.events,
            incipient_slip_normal_axis=monitor.config.incipient_slip_normal_axis)
        tick_s = self.steps_per_tick * self.sim.timestep_s
        rate_hz = config.tactile_rate_hz or 1.0 / sample_s
        return TaxelFeed(inputs, [(spec.name, pad.positions_in_pad) for spec, pad in
                                  zip(specs, self.arrays.pads)],
                         self.sim.scene.joints, tick_s, max(1, round(1.0 / (tick_s * rate_hz))),
                         config.tactile_realism, config.joint_realism, config.tactile_seed,
                         config.joint_seed)

    def run(self, duration_s: float, real_time_factor: float = 0.0,
            stop_at_end: bool = False) -> PipelineResult:
        """Simulate ``duration_s`` of simulated time (whole control ticks) and report.

        Args:
            duration_s: simulated seconds (at most, with ``stop_at_end``).
            real_time_factor: pace blocks against the wall clock; 0 runs as
                fast as possible.
            stop_at_end: stop at the monitor's verdict (its trial_end): at the
                sample of a command that stopped the force test, else at the end of
                the verdict's block.
        """
        sim = self.sim
        dt = sim.timestep_s
        total = max(1, round(duration_s / (self.steps_per_tick * dt))) * self.steps_per_tick
        start = time.perf_counter()
        sim_start_s = sim.time_s
        first = self.steps
        self.stepper.stop_at_end = stop_at_end
        while self.steps - first < total and not sim.diverged and \
                not (stop_at_end and self.evaluation.trial_ended):
            self.step_block(min(self.block_steps, total - (self.steps - first)))
            if real_time_factor > 0:
                delay = start + (sim.time_s - sim_start_s) / real_time_factor \
                    - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
        wall_s = time.perf_counter() - start
        peak_j, peak_s, failed = self.energy_peak()
        return PipelineResult(
            steps=self.steps, sim_time_s=sim.time_s, wall_time_s=wall_s,
            diverged=sim.diverged, events=tuple(self.events),
            peak_contact_force_n=tuple(float(f) for f in self.peak_contact_force_n),
            peak_energy_j=peak_j, peak_energy_time_s=peak_s,
            energy_failed=failed, contact_overflows=self.contact_overflows)

    def energy_peak(self) -> tuple[float, float, bool]:
        """Return the run's energy peak, J, its time, s, and whether the metric failed.

        With metrics, theirs: the trial's samples from the reference ``energy_from``
        names, as the metrics node publishes them (one definition of the run's energy
        whichever path runs the trial). Without, the tracker's: every step from the
        run's first, the benchmark's scenes, whose objects are held from the start.
        """
        if self.metrics is not None:
            samples = self.evaluation.metrics_energy
            if not samples:
                return math.nan, math.nan, False
            values = np.array([sample.max_energy_j for sample in samples])
            best = int(np.where(np.isnan(values), -np.inf, values).argmax())
            return (float(values[best]), samples[best].time_s,
                    any(sample.failed for sample in samples))
        peak = self.tracker.peak_energy_j
        best = int(np.where(np.isnan(peak), -np.inf, peak).argmax())
        return float(peak[best]), float(self.tracker.peak_time_s[best]), self.tracker.failed

    def step_block(self, count: int) -> None:
        """Step ``count`` physics steps (whole ticks, at most ``block_steps``), then evaluate.

        A monitor command before the block's last sample sends the block back to its
        start, to be stepped to that sample, commanded, then stepped on (``block_stepper``).

        Raises:
            ConfigError: ``count`` out of range or not whole ticks.
        """
        self.stepper.step_block(count)

    def contact_inputs(self, record: np.ndarray) -> tuple[Any, ...]:
        """Return the ``PadGroup.compute_block`` arguments of every pad from recorded rows.

        Counts the steps in which a pad had more contacts than slots.
        """
        return self.evaluation.contact_inputs(record)

    def end_trial(self, reason: str = 'end of run') -> tuple[EventRecord, ...]:
        """End the open trial (as the monitor's stop service does); return its records."""
        return self.evaluation.end_trial(reason)
