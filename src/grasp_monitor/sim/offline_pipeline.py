"""The offline pipeline: physics, tactile on every step, monitors and energy, in blocks.

Per physics step only MuJoCo runs plus one copy of ``sensordata`` into a
block buffer; everything else is computed per block of steps, vectorised:

* sensors appended to the scene's MJCF: per pad, a contact sensor on the pad
  body (``num`` slots of found, force, pos, normal, tangent; contacts seen
  from the pad) and the pad body's pose; with ``contacts``, per pad a contact
  sensor of the pad with the object (the contacts the simulator node publishes
  on ``contacts`` that the monitor and metrics nodes keep); the frame sensors of
  ``with_frame_sensors`` (objects and pads, inertial frames) for the energy
  metric and the object's speed; the base body's position;
* the control (the scene's drive, the force test) is applied every control
  tick with ``Simulator.apply_control``, between steps;
* every block (``block_s``): the tactile arrays of every step of the block
  (``PadGroup.compute_block``, all pads in one call; equal to
  ``SimTactileArrays.compute`` after each step), ``EnergyTracker.update_block``
  over its steps, and one ``GraspMonitor`` sample per control tick built from
  the pads' contacts with the object (a pad touches when one of them reaches
  ``contact_force_n``, as the monitor node reads ``contacts``) or, without
  ``contacts``, from the tactile arrays (when the norm of its summed taxel
  forces reaches it, as the monitor node reads tactile clouds), the object's
  speed and the pads' distances from the base; the metrics' samples likewise
  from the contacts with the object or from the taxels.

A command of the monitor (ACTIVATE on a grasp, STOP) acts at its own sample,
as the lockstep graph does: a block in which the monitor commanded before its
last sample is stepped again from its start up to that sample (MuJoCo steps
deterministically, and the block's evaluation is undone), the command applied
there, and the rest of the block stepped after it. Steps report the state
they started from (MuJoCo computes sensors before it integrates), stamped
with the time after the step as the ROS graph stamps them; the energy metric
keeps the benchmark's stamps (the state's own time).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
import logging
import math
import time
from typing import Any, Sequence

from grasp_monitor.core.criteria import CriteriaReport
from grasp_monitor.core.energy import compile_block_scoring, EnergyTracker, EnergyTrackerConfig
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.metrics import MetricsConfig, TrialMetrics
from grasp_monitor.core.monitor import (
    Command, EventRecord, GraspMonitor, GraspSample, MonitorConfig)
from grasp_monitor.core.tactile import PadGroup
from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
from grasp_monitor.core.values import BodyState
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.frame_sensors import split_frame_sensors, with_frame_sensors
from grasp_monitor.sim.scene import Drive, Scene
from grasp_monitor.sim.sensors import pad_specs, PadSpec, SimTactileArrays
import mujoco
import numpy as np

_log = logging.getLogger(__name__)

#: Values per contact sensor slot: found, force (3), pos (3), normal (3), tangent (3).
_SLOT_WIDTH = 13
#: Offsets of force, pos, normal and tangent from a slot's first value (found).
_SLOT_VALUES = np.arange(1, _SLOT_WIDTH)
#: A pad touches when the norm of its summed taxel forces reaches this, N (the monitor's).
CONTACT_FORCE_N = 1e-3


@dataclass(frozen=True)
class PipelineConfig:
    """How the offline pipeline runs.

    Attributes:
        control_rate_hz: how often the drive and the force test are applied, Hz
            (the simulator node's ticks: ``publish_rate``).
        sample_rate_hz: how often the monitor takes a sample, Hz (0: every control
            tick); a whole number of control ticks.
        block_s: simulated time between two evaluations of tactile, energy
            and monitors, s (rounded to whole control ticks); also the longest
            delay between a monitor sample and the force test's start or stop.
            0.5 s: each evaluation has a fixed cost of about 1 ms of numpy
            calls, which at 0.1 s blocks costs as much as MuJoCo's step.
        contact_slots: contacts per pad the contact sensor reports per step;
            more are counted in ``PipelineResult.contact_overflows`` and lost.
        force_test: the external force test (None: none).
        force_on_grasp: a grasp (ACTIVATE) starts ``force_test``, as the monitor asks its
            simulator to; False: only ``force_start_s`` does (a monitor without a
            simulator asks nothing).
        force_body: the body the force test pulls ('' = the scene's first object).
        force_start_s: also start the force test by itself at this simulated
            time, s (0 = only on a grasp), as the simulator's ``force_test.start_time``.
        contact_force_n: a pad touches when the norm of its summed taxel forces
            reaches this, N (the monitor node's ``contact_force``).
        object_body: the body whose speed the monitor reads ('' = the scene's
            first object), as the monitor node reads ``ground_truth/<object>``.
        contacts: the monitor and metrics read the pads' contacts with the object
            (their ``contacts`` parameter set), not the taxels (an estimate).
    """

    control_rate_hz: float = 100.0
    sample_rate_hz: float = 0.0
    block_s: float = 0.5
    contact_slots: int = 16
    force_test: ExternalForceTest | None = ExternalForceTest()
    force_on_grasp: bool = True
    force_body: str = ''
    force_start_s: float = 0.0
    contact_force_n: float = CONTACT_FORCE_N
    object_body: str = ''
    contacts: bool = True

    def __post_init__(self) -> None:
        if not (math.isfinite(self.control_rate_hz) and 0 < self.control_rate_hz <= 10000):
            raise ConfigError(
                f'control_rate_hz must be in (0, 10000], got {self.control_rate_hz}')
        if not (math.isfinite(self.sample_rate_hz) and 0 <= self.sample_rate_hz
                <= self.control_rate_hz):
            raise ConfigError(f'sample_rate_hz must be in [0, control_rate_hz='
                              f'{self.control_rate_hz}], got {self.sample_rate_hz}')
        if not (math.isfinite(self.block_s) and self.block_s > 0):
            raise ConfigError(f'block_s must be finite and > 0, got {self.block_s}')
        if not (math.isfinite(self.force_start_s) and self.force_start_s >= 0):
            raise ConfigError(f'force_start_s must be finite and >= 0, got {self.force_start_s}')
        if not 1 <= self.contact_slots <= 1024:
            raise ConfigError(f'contact_slots must be in [1, 1024], got {self.contact_slots}')
        if not (math.isfinite(self.contact_force_n) and self.contact_force_n > 0):
            raise ConfigError(
                f'contact_force_n must be finite and > 0, got {self.contact_force_n}')


#: Ground-truth sensors of a body frame (XBODY, as ``ground_truth/<body>`` carries it).
TRUTH_SENSORS = ('framepos', 'framequat', 'framelinvel', 'frameangvel')


def truth_sensor(body: str, kind: str) -> str:
    """Return the name of the ground-truth sensor ``kind`` of ``body``."""
    return f'grasp_monitor/truth/{body}/{kind}'


def object_sensor(pad_body: str) -> str:
    """Return the name of the contact sensor of ``pad_body`` with the object."""
    return f'grasp_monitor/contacts/{pad_body}'


def with_pipeline_sensors(scene: Scene, pad_bodies: Sequence[str], slots: int,
                          truth_bodies: Sequence[str] = (), object_body: str = '') -> Scene:
    """Return ``scene`` with the pipeline's sensors appended (module docstring).

    Order in ``sensordata``: with ``object_body``, per pad body its contact sensor
    with that body (named by ``object_sensor``); the ground-truth sensors of ``truth_bodies``
    (``TRUTH_SENSORS`` of the body frame, named by ``truth_sensor``); per pad
    body, its contact sensor then its body pose (framepos, framequat); the base
    body's framepos; then the sensors of ``with_frame_sensors``.
    """
    scene = with_frame_sensors(scene)
    end = scene.mjcf.rfind('<sensor>')
    sensors = ''.join(
        f'<contact name="{object_sensor(body)}" body1="{body}" body2="{object_body}" '
        f'num="{slots}" data="found force pos normal tangent" reduce="none"/>'
        for body in (pad_bodies if object_body else ()))
    sensors += ''.join(f'<{kind} name="{truth_sensor(body, kind)}" objtype="xbody" '
                       f'objname="{body}"/>' for body in truth_bodies for kind in TRUTH_SENSORS)
    sensors += ''.join(
        f'<contact body1="{body}" num="{slots}" data="found force pos normal tangent"'
        f' reduce="none"/><framepos objtype="xbody" objname="{body}"/>'
        f'<framequat objtype="xbody" objname="{body}"/>' for body in pad_bodies)
    sensors += f'<framepos objtype="xbody" objname="{scene.base_body}"/>'
    mjcf = f'{scene.mjcf[:end]}<sensor>{sensors}</sensor>{scene.mjcf[end:]}'
    return dataclasses.replace(scene, mjcf=mjcf)


@dataclass(frozen=True)
class PipelineResult:
    """What an offline run measured.

    Attributes:
        steps: physics steps taken.
        sim_time_s: simulated time at the end, s.
        wall_time_s: wall time of the run, s.
        diverged: whether the simulation diverged (the run stops there).
        events: every record the monitor emitted, in order.
        peak_contact_force_n: per pad, the highest norm of its summed taxel forces, N.
        peak_energy_j: the highest energy metric over objects and steps, J.
        peak_energy_time_s: its time, s.
        energy_failed: whether the energy metric exceeded its threshold.
        contact_overflows: steps in which a pad had more contacts than slots.
    """

    steps: int
    sim_time_s: float
    wall_time_s: float
    diverged: bool
    events: tuple[EventRecord, ...]
    peak_contact_force_n: tuple[float, ...]
    peak_energy_j: float
    peak_energy_time_s: float
    energy_failed: bool
    contact_overflows: int


class OfflinePipeline:
    """A scene run offline: physics every step, the rest in blocks (module docstring).

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
    """

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
            truth += [metrics.object_name, *metrics.pads]
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
        if self.config.contacts and metrics is not None and metrics.object_name != truth[0]:
            raise ConfigError(f'the metrics object {metrics.object_name!r} must be the '
                              f"monitor's, {truth[0]!r}: the contacts are those with it")
        scene = with_pipeline_sensors(scene, bodies, self.config.contact_slots, truth,
                                      truth[0] if self.config.contacts else '')
        self.sim = Simulator(scene, command_timeout_s=0.0, drive=drive)
        self.sim.body_mass_kg(self.config.force_body or scene.objects[0])  # a known body
        if self.config.force_start_s > 0.0 and self.config.force_test is not None:
            self.sim.schedule_force_test(self.config.force_test, self.config.force_body,
                                         self.config.force_start_s)
        self.arrays = SimTactileArrays(self.sim, specs)
        self.tactile = PadGroup(self.arrays.pads)
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
        self.tracker = EnergyTracker(EnergyTrackerConfig(
            scene.objects, model.body_mass[objects], model.body_inertia[objects],
            gripper_names=scene.pads, dt_s=dt))
        compile_block_scoring()  # here, not in the first block
        sample_s = self.steps_per_monitor_sample * dt
        self.monitor = GraspMonitor(monitor if monitor is not None else MonitorConfig(
            sensor_period_s=sample_s, robot_bodies=tuple(spec.name for spec in specs)))
        # Where each sensor's values sit in sensordata.
        slots = self.config.contact_slots
        # Ours come after any sensor of the scene's own and before the frame sensors.
        ours = model.nsensor - 4 * (len(scene.objects) + 2) - (3 * len(specs) + 1)
        self._pad_columns = []
        for index in range(len(specs)):
            first = int(model.sensor_adr[ours + 3 * index])
            self._pad_columns.append((
                slice(first, first + slots * _SLOT_WIDTH),
                slice(first + slots * _SLOT_WIDTH, first + slots * _SLOT_WIDTH + 3),
                slice(first + slots * _SLOT_WIDTH + 3, first + slots * _SLOT_WIDTH + 7)))
        base = int(model.sensor_adr[ours + 3 * len(specs)])
        self._base_columns = slice(base, base + 3)
        self._frame_columns = slice(base + 3, model.nsensordata)
        self._objects = len(scene.objects)
        self._truth = {body: [_columns(model, truth_sensor(body, kind)) for kind in TRUTH_SENSORS]
                       for body in truth}
        self._speed_columns = self._truth[truth[0]][2]
        # The object contact sensors of the pads, per pad: (slots, 13) values each.
        self._object_columns = [_columns(model, object_sensor(body)) for body in bodies] \
            if self.config.contacts else []
        self.metrics = TrialMetrics(metrics) if metrics is not None else None
        self.report: CriteriaReport | None = None
        if metrics is not None:
            self._metrics_pads = [[spec.name for spec in specs].index(pad)
                                  for pad in metrics.pads]
            if not self.config.contacts and any(
                    specs[i].settings['touch'] not in PAD_FRAME_TOUCH_FUNCTIONS
                    for i in self._metrics_pads):
                raise ConfigError('the metrics read taxel forces in the pad frame: touch must '
                                  f'be one of {", ".join(PAD_FRAME_TOUCH_FUNCTIONS)}')
            # as a tactile cloud carries them: float32
            self._taxels_in_pad = [
                _as_cloud(self.arrays.pads[i].positions_in_pad) for i in self._metrics_pads]
            self.steps_per_sample = max(1, round(metrics.sample_period_s / dt))
        self._record = np.empty((self.block_steps, model.nsensordata))
        # Memoryviews of the rows: a slice assignment between two is a plain memcpy, a
        # third cheaper per step than numpy's item assignment.
        self._rows = [memoryview(row) for row in self._record]
        self.values: tuple[np.ndarray, ...] = ()
        self.block_time_s = np.zeros(0)
        self.events: list[EventRecord] = []
        self.peak_contact_force_n = np.zeros(len(specs))
        self.contact_overflows = 0
        self.steps = 0
        self._grasped = False
        self._command_step: int | None = None

    def run(self, duration_s: float, real_time_factor: float = 0.0) -> PipelineResult:
        """Simulate ``duration_s`` of simulated time (whole control ticks) and report.

        Args:
            duration_s: simulated seconds.
            real_time_factor: pace blocks against the wall clock; 0 runs as
                fast as possible.
        """
        sim = self.sim
        dt = sim.timestep_s
        total = max(1, round(duration_s / (self.steps_per_tick * dt))) * self.steps_per_tick
        start = time.perf_counter()
        sim_start_s = sim.time_s
        done = 0
        while done < total and not sim.diverged:
            count = min(self.block_steps, total - done)
            self.step_block(count)
            done += count
            if real_time_factor > 0:
                delay = start + (sim.time_s - sim_start_s) / real_time_factor \
                    - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
        wall_s = time.perf_counter() - start
        peak = self.tracker.peak_energy_j
        finite = np.where(np.isnan(peak), -np.inf, peak)
        best = int(finite.argmax())
        return PipelineResult(
            steps=self.steps, sim_time_s=sim.time_s, wall_time_s=wall_s,
            diverged=sim.diverged, events=tuple(self.events),
            peak_contact_force_n=tuple(float(f) for f in self.peak_contact_force_n),
            peak_energy_j=float(peak[best]),
            peak_energy_time_s=float(self.tracker.peak_time_s[best]),
            energy_failed=self.tracker.failed, contact_overflows=self.contact_overflows)

    def step_block(self, count: int) -> None:
        """Step ``count`` physics steps (whole ticks, at most ``block_steps``), then evaluate.

        A monitor command before the block's last sample sends the block back to its
        start, to be stepped to that sample, commanded, then stepped on (module docstring).

        Raises:
            ConfigError: ``count`` out of range or not whole ticks.
        """
        per_tick = self.steps_per_tick
        if not (0 < count <= self.block_steps and count % per_tick == 0):
            raise ConfigError(f'count must be whole ticks of {per_tick} steps, at most '
                              f'{self.block_steps}, got {count}')
        saved = self._checkpoint() if count > per_tick else None
        self._command_step = None
        first_step = self.steps
        self._step_and_evaluate(count, stop_at_command=saved is not None)
        if self._command_step is None or self._command_step >= first_step + count:
            return
        # The monitor commanded at a sample inside the block: step again up to it.
        head = self._command_step - first_step
        self._rollback(saved)
        self._step_and_evaluate(head, stop_at_command=False)
        self.step_block(count - head)

    def _checkpoint(self) -> tuple:
        """Return everything a block changes, to step it again."""
        return (self.sim.checkpoint(), copy.deepcopy((
            self.monitor, self.tracker, self.metrics, self.report, self._grasped,
            self.peak_contact_force_n, self.contact_overflows, self.steps,
            self.values, self.block_time_s)), len(self.events))

    def _rollback(self, saved: tuple) -> None:
        sim_state, state, events = saved
        self.sim.rollback(sim_state)
        (self.monitor, self.tracker, self.metrics, self.report, self._grasped,
         self.peak_contact_force_n, self.contact_overflows, self.steps,
         self.values, self.block_time_s) = copy.deepcopy(state)
        del self.events[events:]

    def _step_and_evaluate(self, count: int, stop_at_command: bool) -> None:
        sim = self.sim
        model, data = sim.model, sim.data
        per_tick = self.steps_per_tick
        rows, sensordata = self._rows, memoryview(data.sensordata)
        step, apply_control = mujoco.mj_step, sim.apply_control
        first_time_s = sim.time_s
        warnings_before = sim.instability_warnings()
        for tick_start in range(0, count, per_tick):
            apply_control()
            for row in range(tick_start, tick_start + per_tick):
                step(model, data)
                rows[row][:] = sensordata
        record = self._record[:count]
        dt = sim.timestep_s
        # The state of each row is the one its step started from.
        state_time_s = first_time_s + np.arange(count) * dt
        if not (sim.check_steps(first_time_s, warnings_before)
                and np.isfinite(record).all()):
            sim.mark_diverged(first_time_s)
            self.steps += count
            return
        self.steps += count
        self.block_time_s = state_time_s + dt
        self._evaluate(record, state_time_s, stop_at_command)

    def contact_inputs(self, record: np.ndarray) -> tuple[Any, ...]:
        """Return the ``PadGroup.compute_block`` arguments of every pad from recorded rows.

        Counts the steps in which a pad had more contacts than slots.
        """
        slots = self.config.contact_slots
        width = record.shape[1]
        flat = record.reshape(-1)
        counts, starts = [], []
        for pad, (contact, _, _) in enumerate(self._pad_columns):
            # Slot j's values start at contact.start + 13 j; its first value is `found`.
            found = record[:, contact.start:contact.stop:_SLOT_WIDTH]
            overflows = int(np.count_nonzero(found[:, 0] > slots))
            if overflows and not self.contact_overflows:
                _log.warning('pad %r had %d contacts, more than its %d sensor slots; the rest '
                             'are lost (raise contact_slots)', self.arrays.specs[pad].name,
                             int(found[:, 0].max()), slots)
            self.contact_overflows += overflows
            filled = np.flatnonzero(found > 0.0)  # sample * slots + slot
            counts.append(filled.size)
            # Where each filled slot starts in the flattened record.
            start = filled * _SLOT_WIDTH
            start += (filled // slots) * (width - slots * _SLOT_WIDTH) + contact.start
            starts.append(start)
        start = np.concatenate(starts)
        sample = start // width
        # force (3), pos (3), normal (3), tangent (3) of every touching slot, component by
        # component (rows): one gather, and the cross product below on contiguous rows.
        touching = np.take(flat, start + _SLOT_VALUES[:, None])
        # The (3, 3, K) frames: rows normal, tangent and tangent2 = normal x tangent.
        frames = np.empty((3, 3, start.size))
        frames[:2] = touching[6:12].reshape(2, 3, -1)
        normal, tangent, cross = frames
        np.multiply(normal[1], tangent[2], out=cross[0])
        cross[0] -= normal[2] * tangent[1]
        np.multiply(normal[2], tangent[0], out=cross[1])
        cross[1] -= normal[0] * tangent[2]
        np.multiply(normal[0], tangent[1], out=cross[2])
        cross[2] -= normal[1] * tangent[0]
        position = np.stack([record[:, columns] for _, columns, _ in self._pad_columns])
        quaternion = np.stack([record[:, columns] for _, _, columns in self._pad_columns])
        return (counts, sample, touching[3:6].T, frames.transpose(2, 0, 1), touching[0:3].T,
                position, quaternion)

    def _evaluate(self, record: np.ndarray, state_time_s: np.ndarray,
                  stop_at_command: bool = False) -> None:
        """Tactile, energy and monitor samples of one block of recorded rows.

        With ``stop_at_command``, a command of the monitor before the block's last sample
        ends the evaluation there (the block is to be stepped again): ``_command_step``
        says after which step it came.
        """
        self.values = self.tactile.compute_block(*self.contact_inputs(record))
        first_step = self.steps - record.shape[0]  # steps before the block
        events_before = len(self.events)
        self.tracker.update_block(
            state_time_s, *split_frame_sensors(record[:, self._frame_columns], self._objects))
        # One monitor sample every steps_per_monitor_sample steps of the run.
        ticks = np.flatnonzero(
            (first_step + np.arange(1, record.shape[0] + 1)) % self.steps_per_monitor_sample == 0)
        every = np.stack([_norm(pad.value_sum) for pad in self.arrays.pads], axis=1)
        np.maximum(self.peak_contact_force_n, every.max(axis=0), out=self.peak_contact_force_n)
        at_ticks = record[ticks]
        totals = self._strongest_object_contacts(at_ticks) if self.config.contacts \
            else every[ticks]
        velocity = at_ticks[:, self._speed_columns]
        speed = np.sqrt(np.einsum('ti,ti->t', velocity, velocity))
        offset = np.stack([at_ticks[:, p] for _, p, _ in self._pad_columns], axis=1)
        offset -= at_ticks[:, None, self._base_columns]
        distance = np.sqrt(np.einsum('tpi,tpi->tp', offset, offset))
        stamps = state_time_s[ticks] + self.sim.timestep_s
        update = self.monitor.update
        for index, sample in enumerate(GraspSample.trusted_series(
                stamps, totals >= self.config.contact_force_n, speed, distance)):
            result = update(sample)
            if result.records:
                self.events.extend(result.records)
            if self._acts(result.command):
                self._command_step = first_step + int(ticks[index]) + 1
                if stop_at_command and ticks[index] < record.shape[0] - 1:
                    return
                self._react(result.command)
        if self.metrics is not None:
            self._measure(record, state_time_s, first_step, self.events[events_before:])

    def _measure(self, record: np.ndarray, state_time_s: np.ndarray, first_step: int,
                 records: Sequence[EventRecord]) -> None:
        """Take the block's metrics samples and monitor records in stamp order.

        At one stamp: the trial's start and events, then the sample, then its end,
        as the metrics node orders them by stamp whatever the order they came in.
        """
        per_sample = self.steps_per_sample
        rows = np.flatnonzero((first_step + np.arange(1, record.shape[0] + 1)) % per_sample == 0)
        stamps = state_time_s + self.sim.timestep_s
        queue = [(r.time_s, 2 if r.kind == 'trial_end' else 0, index, r)
                 for index, r in enumerate(records)]
        queue += [(float(stamps[row]), 1, int(row), None) for row in rows]
        for _, order, row, event in sorted(queue, key=lambda item: item[:3]):
            if event is not None:
                self._metrics_event(event)
            elif self.report is None:  # one trial per run
                add = self.metrics.add_contacts if self.config.contacts else self.metrics.add
                add(float(stamps[row]), *self._metrics_sample(record[row], row))

    def _object_slots(self, rows: np.ndarray, pad: int) -> np.ndarray:
        """Return (R, slots, 13) the object contact sensor slots of pad ``pad`` in ``rows``."""
        return rows[:, self._object_columns[pad]].reshape(rows.shape[0], -1, _SLOT_WIDTH)

    def _strongest_object_contacts(self, rows: np.ndarray) -> np.ndarray:
        """Return (R, pads) each pad's strongest contact force with the object, N."""
        strongest = np.empty((rows.shape[0], len(self._object_columns)))
        for pad in range(len(self._object_columns)):
            slots = self._object_slots(rows, pad)
            force = slots[:, :, 1:4]  # the contact frame is orthonormal: its norm is the world's
            magnitude = np.sqrt(np.einsum('rsi,rsi->rs', force, force))
            strongest[:, pad] = np.where(slots[:, :, 0] > 0, magnitude, 0.0).max(axis=1)
        return strongest

    def _object_contacts(self, values: np.ndarray) -> tuple[np.ndarray, ...]:
        """Return one row's contacts of the metrics' pads with the object (``add_contacts``)."""
        points, forces, index = [], [], []
        for i, pad in enumerate(self._metrics_pads):
            slots = self._object_slots(values[None], pad)[0]
            slots = slots[slots[:, 0] > 0]
            normal, tangent = slots[:, 7:10], slots[:, 10:13]
            frame = np.stack([normal, tangent, np.cross(normal, tangent)], axis=1)
            points.append(slots[:, 4:7])
            forces.append(np.einsum('kji,kj->ki', frame, slots[:, 1:4]))
            index.append(np.full(len(slots), i))
        return np.concatenate(points), np.concatenate(forces), np.concatenate(index)

    def _metrics_sample(self, values: np.ndarray, row: int) -> tuple[Any, ...]:
        """Return one row as the metrics node's inputs: object, pads, taxels in the pads.

        With ``contacts``: object, pads, and the contacts of the pads with the object.
        """
        config = self.metrics.config
        obj, *pads = (BodyState(body, *(values[c] for c in self._truth[body]))
                      for body in (config.object_name, *config.pads))
        if self.config.contacts:
            return (obj, pads, *self._object_contacts(values))
        forces = []
        for pad in self._metrics_pads:
            force = self.values[pad][row]
            if force.shape[1] == 1:  # a scalar touch function: the cloud's fz
                force = np.concatenate([np.zeros((force.shape[0], 2)), force], axis=1)
            forces.append(_as_cloud(force))
        return obj, pads, self._taxels_in_pad, forces

    def _metrics_event(self, record: EventRecord) -> None:
        """Pass a monitor record to the metrics, as the node takes them from the topic."""
        if record.kind == 'trial_start':
            self.metrics.start(record.trial_id, record.time_s, record.reset_from_s)
        elif record.kind == 'trial_end':
            self.metrics.add_event(record)
            reports = self.metrics.end(record.time_s,
                                       record.details.get('reason') == 'time_reset')[1]
            if reports:
                self.report = reports[-1]
        else:
            self.metrics.add_event(record)

    def end_trial(self, reason: str = 'end of run') -> tuple[EventRecord, ...]:
        """End the open trial (as the monitor's stop service does); return its records."""
        records = tuple(self.monitor.stop_trial(reason))
        self.events.extend(records)
        if self.metrics is not None:
            for record in records:
                self._metrics_event(record)
        if records and self.sim.force_test_active:
            self.sim.stop_force_test()
        return records

    def _acts(self, command: Command) -> bool:
        """Whether ``command`` changes the physics: starts or stops the force test."""
        if command is Command.ACTIVATE:
            return self.config.force_test is not None and self.config.force_on_grasp \
                and not self._grasped
        return command is Command.STOP and self.sim.force_test_active

    def _react(self, command: Command) -> None:
        """Start the force test on a grasp, stop it when the trial stops."""
        test = self.config.force_test
        if command is Command.ACTIVATE and test is not None and self.config.force_on_grasp \
                and not self._grasped:
            self._grasped = True
            self.sim.start_force_test(test, self.config.force_body)
        elif command is Command.STOP and self.sim.force_test_active:
            self.sim.stop_force_test()


def _columns(model: mujoco.MjModel, name: str) -> slice:
    """Return where sensor ``name``'s values sit in ``sensordata``."""
    index = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SENSOR, name)
    start = int(model.sensor_adr[index])
    return slice(start, start + int(model.sensor_dim[index]))


def _as_cloud(values: np.ndarray) -> np.ndarray:
    """Return ``values`` rounded to float32, as a tactile cloud carries them."""
    return np.asarray(values, np.float32).astype(float)


def _norm(value_sum: np.ndarray) -> np.ndarray:
    """Return (S,) the magnitude of each sample's summed taxel values (S, width), N."""
    if value_sum.shape[1] == 1:
        return np.abs(value_sum[:, 0])
    return np.sqrt(np.einsum('si,si->s', value_sum, value_sum))
