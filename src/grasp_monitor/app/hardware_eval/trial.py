"""One hardware-eval trial: the simulator's truth, and a monitor fed as hardware feeds it.

The trial runs offline (the pipeline, block by block). Its own monitor is the
referee: it reads the pads' contacts with the object and the object's speed
(``contacts``, ground truth). Beside it, for each realism preset, a monitor built
from ``config/hardware.yaml`` sees only what a real robot gives: each pad's taxel
forces and the finger joints' positions and velocities, through the preset's
realism model (``core.monitor.SensorFeed``, fed as the node feeds ``MonitorInputs``
from ``tactile/<pad>`` and ``joint_states``: no ground truth, no contacts, no slip
channel, the friction coefficient unknown).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

from grasp_monitor.app.hardware_eval.family import HardwareTrial, pull_start_s
from grasp_monitor.app.slip_eval.family import DIRECTIONS, HOLD_S, RAMP_RAD_PER_S, SCRIPT
from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.monitor.sensor_feed import SensorFeed
import numpy as np

#: The monitors' sample rate, Hz (the tactile sensor's publish rate).
RATE_HZ = 500.0
#: The fingers (the pick_lift servos that close).
FINGERS = ('finger_left', 'finger_right')
#: A finger closing faster than this (its true velocity averaged over the last
#: ``CLOSING_WINDOW_S``) before anything is held is still closing, m/s.
CLOSING_SPEED_M_PER_S = 0.002
CLOSING_WINDOW_S = 0.05
#: Events scored.
EVENTS = ('contact', 'contact_timeout', 'slip_out', 'grasp', 'incipient_slip')


def hardware_values(overrides: Mapping[str, Any] = ()) -> dict[str, Any]:
    """Return ``grasp_monitor``'s values of ``config/hardware.yaml``, the eval's on top.

    The eval's: every event scored (incipient_slip added), the tactile rate, a dwell of
    0.1 s (the file's 10 samples at 100 Hz), no event log; ``overrides`` last.
    """
    from grasp_monitor.app.scenario_config import ScenarioConfig
    config = ScenarioConfig.for_scenario('hardware')
    return config.node('grasp_monitor') | {
        'events': ['contact', 'contact_timeout', 'slip_out', 'grasp', 'incipient_slip'],
        'rate': RATE_HZ, 'grasp_dwell': 0.1, 'event_log': ''} | dict(overrides)


def trial_values(trial: HardwareTrial, monitor: Mapping[str, Any]) -> dict[str, Any]:
    """Return the trial's values as ``batch`` sweeps them (scenario, physics, node)."""
    pull = trial.pull
    values = {'object_mass_kg': pull.mass_kg, 'friction': pull.friction,
              'grasp_controller.grip_force': pull.grip_force_n,
              'grasp_controller.close_speed': trial.close_speed_m_per_s,
              'grasp_monitor.rate': RATE_HZ, 'grasp_monitor.simulator': '',
              'grasp_monitor.events': ['contact', 'contact_timeout', 'slip_out', 'grasp'],
              'grasp_monitor.contact_timeout': monitor['contact_timeout'],
              'grasp_monitor.grasp_limit': monitor['grasp_limit'],
              'grasp_monitor.slip_out': monitor['slip_out'],
              'grasp_monitor.grasp_dwell': monitor['grasp_dwell'],
              'tactile_sensor.slip': [True],
              'mujoco_sim.motor_noise_type': 'gaussian',
              'mujoco_sim.motor_noise_range': pull.motor_noise_n,
              'mujoco_sim.motor_noise_seed': pull.seed, 'noslip_iterations':
              pull.noslip_iterations, **SCRIPT}
    if trial.close_speed_m_per_s:
        values['grasp_controller.close_duration'] = 1.5
    return values


def hardware_feed(monitor: Mapping[str, Any], realism: tuple[Any, Any],
                  positions: Sequence[np.ndarray], seed: int) -> SensorFeed:
    """Return a ``SensorFeed`` of the ``grasp_monitor`` values ``monitor`` (no ground truth).

    Args:
        monitor: the ``grasp_monitor`` parameter values (``hardware_values``).
        realism: the preset's (tactile, joints) configurations.
        positions: per pad, its taxels' positions in the pad frame.
        seed: the sensors' seed.
    """
    from grasp_monitor.nodes.grasp_monitor_parameters import inputs_config, monitor_config
    inputs = inputs_config(monitor)  # as the node builds it: no object, no /tf on hardware
    return SensorFeed(inputs, monitor_config(monitor, auto_start=True), *realism, positions,
                      seed)


def first_times(records: Sequence[Any]) -> dict[str, float]:
    """Return the first time of each scored event (and grasp_timeout) in ``records``, s."""
    times: dict[str, float] = {}
    for record in records:
        if record.kind in EVENTS or record.kind == 'grasp_timeout':
            times.setdefault(record.kind, record.time_s)
    return times


def trial_pipeline(trial: HardwareTrial, monitor: Mapping[str, Any]) -> tuple[Any, list]:
    """Return the trial's offline pipeline (its own monitor the referee) and pad positions.

    The positions: each pad's taxels in the pad frame, as a cloud carries them, m.

    Args:
        trial: the trial.
        monitor: the hardware monitor's values (``hardware_values``).
    """
    from grasp_monitor.app.batch.names import split
    from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
    from grasp_monitor.sim.offline import OfflinePipeline
    from grasp_monitor.sim.offline.block_evaluation import as_cloud
    from grasp_monitor.sim.scenes import build_scene
    kinds = split('pick_lift', trial_values(trial, monitor))
    config = ScenarioConfig.for_scenario('pick_lift').with_values(kinds['node'],
                                                                  'hardware-eval')
    params = dict(kinds['param'], finger_gap_m=trial.finger_gap_m)
    settings, params, setup = offline_run(config, kinds['set'], params)
    pull = trial.pull
    start_s = pull_start_s(trial)
    force = None if math.isinf(start_s) else ExternalForceTest(
        'sine', pull.pull_n / pull.mass_kg, RAMP_RAD_PER_S, 0.0, DIRECTIONS[pull.direction])
    pipeline_config = dataclasses.replace(
        setup.pipeline, force_test=force,
        force_test_start_time_s=0.0 if force is None else start_s,
        force_on_grasp=False, joints=FINGERS)
    pipeline = OfflinePipeline(build_scene('pick_lift', settings, **params), pipeline_config,
                               setup.pads, setup.monitor, setup.drive)
    return pipeline, [as_cloud(pad.positions_in_pad) for pad in pipeline.arrays.pads]


def trial_ticks(pipeline: Any, duration_s: float,
                report: Optional[Callable[[float], None]] = None
                ) -> Iterator[tuple[np.ndarray, ...]]:
    """Step ``pipeline`` for ``duration_s``; yield its monitor ticks block by block.

    Each block: the ticks' stamps (T,), s; the pipeline's record rows at them; the
    fingers' true positions and velocities (T, J); then each pad's true taxel forces
    (T, N, C) in the pad frame, N. Ticks come once each, in time order.
    """
    layout = pipeline.evaluation.layout
    per_sample = pipeline.steps_per_monitor_sample
    dt = pipeline.sim.timestep_s
    # A block stepped again in parts (a command of the referee) is evaluated again from
    # the same step: each part's ticks are kept by the step it starts at, the last wins.
    ticks: dict[int, tuple[np.ndarray, ...]] = {}
    evaluate = pipeline.evaluation.evaluate

    def keep_ticks(record: np.ndarray, state_time_s: np.ndarray, first_step: int,
                   stop_at_command: bool = False) -> int | None:
        result = evaluate(record, state_time_s, first_step, stop_at_command)
        rows = np.flatnonzero((first_step + np.arange(1, record.shape[0] + 1))
                              % per_sample == 0)
        at_rows = record[rows]
        ticks[first_step] = ((first_step + rows + 1) * dt, at_rows,
                             *layout.joint_states(at_rows),
                             *(block[rows] for block in pipeline.values))
        return result

    pipeline.evaluation.evaluate = keep_ticks  # type: ignore[method-assign]
    total = round(duration_s / dt)
    while pipeline.steps < total and not pipeline.sim.diverged:
        pipeline.step_block(min(pipeline.block_steps, total - pipeline.steps))
        for first in sorted(ticks):
            if ticks[first][0].size:
                yield ticks[first]
        ticks.clear()
        if report is not None:
            report(pipeline.steps * dt)


def run_hardware_trial(item: tuple[HardwareTrial, Mapping[str, Any], Mapping[str, Any]],
                       report: Optional[Callable[[float], None]] = None) -> dict[str, Any]:
    """Run one trial; return the truth and what each preset's monitor made of it.

    ``item``: the trial, the hardware monitor's values, the presets by name
    ((tactile, joints) realism configurations). ``sim.process_pool`` work.

    Returns:
        ``truth``: event -> time, s, the referee's (and ``gross_slip`` when the object
        moved 2 mm relative to the pads after the hold); ``seen``: preset -> event -> time,
        s; ``closing``: preset -> whether a finger still closed when its grasp fired;
        ``held_s``: simulated time of stable holding (from the truth's grasp to the end,
        the pull or the gross slip), s; ``kind``, ``index``, ``tuning``.
    """
    from grasp_monitor.sim.slip_truth import drift_m, GROSS_SLIP_M, object_in_pad
    trial, monitor, presets = item
    pipeline, positions = trial_pipeline(trial, monitor)
    views = {name: hardware_feed(monitor, realism, positions, trial.pull.seed)
             for name, realism in presets.items()}
    layout = pipeline.evaluation.layout
    stamps_all, finger_all, drift_rows = [], [], []
    for stamps, at_rows, finger_positions, finger_velocities, *forces in trial_ticks(
            pipeline, trial.duration_s, report):
        for view in views.values():
            view.feed(stamps, forces, finger_positions, finger_velocities)
        stamps_all.append(stamps)
        finger_all.append(finger_velocities)
        drift_rows.append(object_in_pad(layout, at_rows, 'object'))
    stamps = np.concatenate(stamps_all)
    finger_velocity = np.concatenate(finger_all)
    truth = {r.kind: r.time_s for r in reversed(pipeline.evaluation.events)
             if r.kind in EVENTS or r.kind == 'grasp_timeout'}
    where = np.flatnonzero(stamps >= HOLD_S - 1e-9)
    if where.size and 'grasp' in truth and trial.kind in ('hold', 'slip'):
        moved = drift_m(np.concatenate(drift_rows), int(where[0]))
        gross = np.flatnonzero((moved > GROSS_SLIP_M) & (stamps >= HOLD_S))
        if gross.size:
            truth['gross_slip'] = float(stamps[gross[0]])
    end_s = float(stamps[-1])
    start_s = pull_start_s(trial)
    held_until = min(end_s, start_s, truth.get('gross_slip', math.inf),
                     truth.get('slip_out', math.inf))
    held_s = max(0.0, held_until - truth['grasp']) if 'grasp' in truth else 0.0
    return {'index': trial.index, 'kind': trial.kind, 'tuning': trial.tuning,
            'truth': truth, 'end_s': end_s, 'held_s': held_s,
            'seen': {name: first_times(view.records) for name, view in views.items()},
            'closing': {name: _closing(first_times(view.records).get('grasp'),
                                       truth.get('grasp'), stamps, finger_velocity)
                        for name, view in views.items()},
            'diverged': pipeline.sim.diverged}


def _closing(grasp_s: float | None, truth_s: float | None, stamps: np.ndarray,
             velocity: np.ndarray) -> bool:
    """Whether a grasp fired at ``grasp_s`` while a finger still closed, nothing held yet.

    Nothing is held before the truth's grasp (``truth_s``; None: never). Closing is
    positive: a finger bouncing back off the object is not closing; one that sinks into
    the held object's soft contact as the grip force rises is not either (held).
    """
    if grasp_s is None or (truth_s is not None and grasp_s >= truth_s):
        return False
    window = (stamps > grasp_s - CLOSING_WINDOW_S - 1e-9) & (stamps <= grasp_s + 1e-9)
    return bool(velocity[window].mean(axis=0).max() > CLOSING_SPEED_M_PER_S)
