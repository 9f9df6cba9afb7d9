"""One slip-eval trial run offline: the detector's score and the simulator's truth, per tick.

The trial is a pick_lift configuration (``config/pick_lift.yaml`` with the trial's
values, read as ``grasp-monitor run`` and ``batch`` read it) run by the offline
pipeline, block by block. The pipeline's monitor reads the taxels as the monitor node
does (``taxel_feed``: each pad's clouds, through the preset's realism model, into
``MonitorInputs``); at every one of its samples after the grasp is established, the
pads' slip signals it computed (from the taxels alone, as a hardware array gives them,
or with the slip channel) are fed to a ``GraspMonitor`` running ``incipient_slip``,
beside the ground truth (``sim.slip_truth``) at that sample's step.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from grasp_monitor.app.slip_eval.family import DIRECTIONS, HOLD_S, PULL_S, RAMP_RAD_PER_S, \
    SCRIPT, SlipTrial
from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.monitor import GraspMonitor, GraspSample, MonitorConfig
from grasp_monitor.core.monitor.incipient_slip import SlipScore
import numpy as np

#: The monitor's sample rate, Hz (the tactile sensor's publish rate).
RATE_HZ = 500.0


@dataclasses.dataclass(frozen=True)
class Detector:
    """The incipient_slip settings a run uses (``grasp_monitor`` parameters by name).

    Attributes:
        values: ``incipient_slip.*`` parameters; ``incipient_slip.friction`` is the
            trial's own unless given.
        slip_channel: the pads' slip channel reaches the detector (else forces only).
        preset: the tactile arrays' realism preset (``tactile_sensor.realism.preset``;
            each trial draws its sensors from its own seed).
    """

    values: tuple[tuple[str, Any], ...] = ()
    slip_channel: bool = False
    preset: str = 'ideal'


def trial_values(trial: SlipTrial, detector: Detector) -> dict[str, Any]:
    """Return the trial's values as ``batch`` sweeps them (scenario, physics, node)."""
    values = {'object_mass_kg': trial.mass_kg, 'friction': trial.friction,
              'grasp_controller.grip_force': trial.grip_force_n,
              'grasp_monitor.rate': RATE_HZ, 'grasp_monitor.contacts': '',
              'grasp_monitor.simulator': '', 'grasp_metrics.contacts': '',
              'grasp_monitor.events': ['contact', 'incipient_slip'],
              'grasp_monitor.incipient_slip.friction': trial.friction,
              'tactile_sensor.slip': [True],
              'mujoco_sim.motor_noise_type': 'gaussian',
              'mujoco_sim.motor_noise_range': trial.motor_noise_n,
              'mujoco_sim.motor_noise_seed': trial.seed, **SCRIPT}
    if trial.noslip_iterations:
        values['noslip_iterations'] = trial.noslip_iterations
    values.update({f'grasp_monitor.{name}': value for name, value in detector.values})
    if detector.preset != 'ideal':
        values.update({'tactile_sensor.realism.preset': detector.preset,
                       'tactile_sensor.realism.seed': trial.seed})
    return values


def run_slip_trial(item: tuple[SlipTrial, Detector],
                   report: Optional[Callable[[float], None]] = None) -> dict[str, Any]:
    """Run one trial; return its ticks (``sim.process_pool`` work: ``report`` unused).

    Returns:
        ``time_s`` (T,) tick stamps from the grasp on, s; ``cues`` (T, 4) the detector's
        cues (``incipient_slip.CUES``), unscaled, each the largest over the pads;
        ``slip_speed`` (T,) the fastest relative tangential speed at a pad contact,
        m/s; ``drift_m`` (T,) the object's displacement relative to the pads since
        the grasp, m; ``event_s`` when incipient_slip fired (NaN: never); ``friction``
        the trial's friction coefficient (the detector's cone assumes it);
        ``pipeline_event_s`` when the pipeline's own monitor fired it, from the trial's
        start (NaN: never).
    """
    from grasp_monitor.app.batch.names import split
    from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
    from grasp_monitor.sim.offline import OfflinePipeline
    from grasp_monitor.sim.scenes import build_scene
    from grasp_monitor.sim.slip_truth import contact_slip_speed, drift_m, object_in_pad
    trial, detector = item
    kinds = split('pick_lift', trial_values(trial, detector))
    config = ScenarioConfig.for_scenario('pick_lift').with_values(kinds['node'], 'slip-eval')
    settings, params, setup = offline_run(config, kinds['set'], kinds['param'])
    pull = ExternalForceTest('sine', trial.pull_n / trial.mass_kg, RAMP_RAD_PER_S, 0.0,
                             DIRECTIONS[trial.direction])
    pipeline_config = dataclasses.replace(setup.pipeline, force_test=pull,
                                          force_test_start_time_s=PULL_S)
    monitor_config: MonitorConfig = setup.monitor
    # the pipeline's own monitor counts contacts and runs incipient_slip as
    # `grasp-monitor run` does (its time is the result's pipeline_event_s): neither
    # commands, so no block is stepped twice and the recorded rows are the run's
    pipeline = OfflinePipeline(
        build_scene('pick_lift', settings, **params), pipeline_config, setup.pads,
        dataclasses.replace(monitor_config, events=('contact', 'incipient_slip')),
        setup.drive)
    monitor = GraspMonitor(monitor_config)
    # the same cues, unscaled (every threshold 1), and scored after the event fired too
    scorer = SlipScore(monitor_config.incipient_slip_friction, 1.0, 1.0, 1.0, 1.0,
                       monitor_config.incipient_slip_min_force,
                       monitor_config.incipient_slip_high_pass,
                       monitor_config.incipient_slip_cop_window)
    layout = pipeline.evaluation.layout
    per_sample = pipeline.steps_per_monitor_sample
    # the truth at every sample's step, by sample index k (stamp k / RATE_HZ)
    truth: dict[str, list[np.ndarray]] = {'k': [], 'slip_speed': [], 'object_in_pad': []}
    samples: list[GraspSample] = []
    total = round(trial.duration_s / pipeline.sim.timestep_s)
    while pipeline.steps < total and not pipeline.sim.diverged:
        first = pipeline.steps
        count = min(pipeline.block_steps, total - first)
        pipeline.evaluation.feed.kept = []  # the samples the pipeline's monitor takes
        pipeline.step_block(count)
        samples += [s for s in pipeline.evaluation.feed.kept if s.time_s >= HOLD_S - 1e-9]
        record = pipeline.stepper.record[:count]
        rows = np.flatnonzero((first + np.arange(1, count + 1)) % per_sample == 0)
        stamps = pipeline.block_time_s[rows]
        rows, stamps = rows[stamps >= HOLD_S - 1e-9], stamps[stamps >= HOLD_S - 1e-9]
        truth['k'].append(np.rint(stamps * RATE_HZ).astype(np.int64))
        truth['slip_speed'].append(contact_slip_speed(layout, record)[rows])
        truth['object_in_pad'].append(object_in_pad(layout, record, 'object')[rows])
    at = {int(k): i for i, k in enumerate(np.concatenate(truth['k']).tolist())}
    # a sample still owed at the end (its pad frame came late) has no tick to score
    samples = [s for s in samples if round(s.time_s * RATE_HZ) in at]
    index = np.array([at[round(s.time_s * RATE_HZ)] for s in samples], np.int64)
    event_s = np.nan
    period_s = 1.0 / RATE_HZ
    cues = []
    for sample in samples:
        signals = np.asarray(sample.pad_signals)
        # (pads, 5); the monitor sees the slip channel only where the detector has it
        seen = signals.copy()
        if not detector.slip_channel:
            seen[:, 4] = np.nan
        update = monitor.update(GraspSample(
            sample.time_s, seen[:, 0] >= monitor_config.incipient_slip_min_force,
            pad_signals=seen))
        if any(r.kind == 'incipient_slip' for r in update.records):
            event_s = sample.time_s
        cues.append(scorer.update(signals, period_s).max(axis=0))
    position = np.concatenate(truth['object_in_pad'])[index]
    return {'time_s': np.array([s.time_s for s in samples]), 'cues': np.array(cues),
            'slip_speed': np.concatenate(truth['slip_speed'])[index],
            'drift_m': drift_m(position, 0), 'event_s': event_s, 'friction': trial.friction,
            'diverged': pipeline.sim.diverged,
            'pipeline_event_s': next((r.time_s for r in pipeline.evaluation.events
                                      if r.kind == 'incipient_slip'), np.nan)}
