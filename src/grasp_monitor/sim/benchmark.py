"""The physics-engine grasp benchmark on MuJoCo (REFERENCE.md sections 3 and 4).

Taylor & Drumwright's benchmark asks whether a simulator keeps grasped
objects where the grippers hold them: each run simulates a scenario for
``duration_s`` (100 s) and scores every physics step with the energy metric
of every object (``EnergyTracker``, the mean over the left and the right
gripper); a run fails at the first step where any object's metric exceeds
the threshold (1e7 J) or is NaN, and ends there.

How a run is measured (choices the reference leaves open):

* The scene's own drive is applied at every physics step: ``Simulator.step``
  takes as many steps per call as its command holds (``Scene.drive_hold_s``;
  a whole block for the multiple block scene's constant squeeze, one step for
  the arm's trajectory), which gives the same states as a call per step.
* States: frame sensors on ``objtype="body"`` for the objects and the two pads
  are appended to the scene's MJCF. That frame is the inertial frame (centre
  of mass, principal axes), so the object inertia is MuJoCo's
  ``body_inertia`` as it is, and the velocities are the world-frame linear
  velocity of the centre of mass and the angular velocity. Each sensor keeps
  a block of samples in MuJoCo's history buffer, which ``mj_step`` fills at
  every step without Python (``FrameHistory``). ``mj_step`` computes the
  sensors before it integrates, so the sample of step i holds the state at
  ``t_i = i dt`` the step started from, and is stamped so.
* Every ``block_s`` of simulated time (2 s) the block is evaluated at once
  with ``EnergyTracker.update_block``: every step still has its energy, the
  failure time is exact to the step, and the run stops at the end of the
  block in which it failed; its results are cut at the failure.
* A diverged simulation (a non-finite state, or one MuJoCo finds unstable;
  its automatic reset is turned off, the run ends there anyway) fails the run
  at the step it diverged: a call of many steps that diverged is taken again
  one step at a time from a saved state, copying each step's sensor values.
* Reported per run: time to termination (the failure time, or the duration),
  peak and final metric (max over objects; final = at the last step of the
  trial), wall time of the stepping and tracking loop and its real-time
  factor, and the metric every ``series_interval_s`` (10 ms: the max over
  objects and over the steps of each interval) for plots.

Runs go to separate processes (``run_benchmark``); each builds its own scene
and ``Simulator``.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
import csv
import dataclasses
from dataclasses import dataclass
import math
import multiprocessing
import os
from pathlib import Path
import queue
import sys
import textwrap
import time
from typing import Any, Callable, Iterable, Sequence, TextIO

from grasp_monitor.core.compiled import Compiled, float_array
from grasp_monitor.core.energy import (
    compile_block_scoring, DEFAULT_THRESHOLD_J, EnergyTracker, EnergyTrackerConfig)
from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.threads import single_threaded_children
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.scene import Scene, SimSettings
from grasp_monitor.sim.scenes import build_scene
import mujoco
import numpy as np

#: The benchmark's scenarios, as the command names them.
SCENARIOS = {'multi-block': 'multi_block', 'industrial-arm': 'industrial_arm'}
#: Cube counts and friction coefficients of the multiple block runs.
DEFAULT_CUBES = tuple(range(1, 12))
DEFAULT_FRICTIONS = (100.0, 1e8)
#: MuJoCo's own defaults for every setting but the step, which is the benchmark's 1 ms
#: (MuJoCo's default is 2 ms).
MUJOCO_DEFAULTS = SimSettings(
    timestep_s=0.001, friction=1.0, cone='pyramidal', solver='Newton', iterations=100,
    noslip_iterations=0, impratio=1.0, integrator='Euler')
#: Frame sensors per tracked body, in ``sensordata`` order, with their widths.
_FRAME_SENSORS = (('framepos', 3), ('framequat', 4), ('framelinvel', 3), ('frameangvel', 3))
_SENSOR_WIDTH = sum(width for _, width in _FRAME_SENSORS)


@dataclass(frozen=True)
class BenchmarkCase:
    """One run of the benchmark.

    Attributes:
        scenario: 'multi_block' or 'industrial_arm'.
        settings: physics settings (friction included).
        n_cubes: cubes in the row (multi_block only; 1 for the arm's one cube).
        duration_s: simulated time unless the metric fails first, s.
        threshold_j: the metric fails above this, J.
        block_s: simulated time between two evaluations of the metric, s (2 s:
            1 s blocks cost 1 to 2 % more of a 1-cube step, from the fixed cost
            of each evaluation).
        series_interval_s: interval of the energy time series, s.
    """

    scenario: str
    settings: SimSettings = MUJOCO_DEFAULTS
    n_cubes: int = 1
    duration_s: float = 100.0
    threshold_j: float = DEFAULT_THRESHOLD_J
    block_s: float = 2.0
    series_interval_s: float = 0.01

    def __post_init__(self) -> None:
        valid = tuple(SCENARIOS.values())
        if self.scenario not in valid:
            raise ConfigError(f'scenario {self.scenario!r} is not one of {", ".join(valid)}')
        if not isinstance(self.settings, SimSettings):
            raise ConfigError(f'settings must be SimSettings, got {type(self.settings).__name__}')
        if self.scenario == 'industrial_arm' and self.n_cubes != 1:
            raise ConfigError(f'the industrial arm holds one cube, got n_cubes={self.n_cubes}')
        if not 1 <= self.n_cubes <= 11:
            raise ConfigError(f'n_cubes must be in 1..11, got {self.n_cubes}')
        for name in ('duration_s', 'threshold_j', 'block_s', 'series_interval_s'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f'{name} must be finite and > 0, got {value!r}')

    @property
    def label(self) -> str:
        """Short name of the run, e.g. ``n=3 μ=100``."""
        if self.scenario == 'multi_block':
            return f'n={self.n_cubes} μ={self.settings.friction:g}'
        return f'arm μ={self.settings.friction:g}'

    @property
    def series_steps(self) -> int:
        """Physics steps per interval of the energy time series."""
        return max(1, round(self.series_interval_s / self.settings.timestep_s))

    @property
    def block_steps(self) -> int:
        """Physics steps per evaluation of the metric: whole series intervals."""
        window = self.series_steps
        return window * max(1, round(self.block_s / (window * self.settings.timestep_s)))

    def build_scene(self, sensors: bool = True) -> Scene:
        """Generate the scene, with the frame sensors the run reads appended (``sensors``).

        The sensors keep a block of samples each (``block_steps``), which MuJoCo
        records at every step.
        """
        params: dict[str, Any] = {'duration_s': self.duration_s}
        if self.scenario == 'multi_block':
            params['n_cubes'] = self.n_cubes
        scene = build_scene(self.scenario, dataclasses.asdict(self.settings), **params)
        return with_frame_sensors(scene, self.block_steps) if sensors else scene


def with_frame_sensors(scene: Scene, nsample: int = 0) -> Scene:
    """Return ``scene`` with frame sensors on its objects, then its left and right pad.

    Per body, in that order: framepos (3), framequat (4), framelinvel (3),
    frameangvel (3), all of the inertial frame (``objtype="body"``) in the
    world frame. Sensors do not change the dynamics. With ``nsample`` > 0 each
    keeps its last ``nsample`` values in MuJoCo's history buffer
    (``FrameHistory`` reads them).

    Raises:
        ConfigError: if the scene has no two pads or its MJCF has no closing tag.
    """
    if len(scene.pads) != 2:
        raise ConfigError(f'scene {scene.name} needs two pads (left, right), got {scene.pads}')
    end = scene.mjcf.rfind('</mujoco>')
    if end < 0:
        raise ConfigError(f'scene {scene.name}: MJCF has no closing </mujoco>')
    history = f' nsample="{int(nsample)}"' if nsample > 0 else ''
    sensors = ''.join(f'<{kind} objtype="body" objname="{body}"{history}/>'
                      for body in scene.objects + scene.pads for kind, _ in _FRAME_SENSORS)
    mjcf = f'{scene.mjcf[:end]}<sensor>{sensors}</sensor>{scene.mjcf[end:]}'
    return dataclasses.replace(scene, mjcf=mjcf)


def split_frame_sensors(record: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    """Return views of ``(N, nsensordata)`` rows as ``EnergyTracker.update_block`` arrays.

    Args:
        record: rows of the sensors ``with_frame_sensors`` added (the last
            ``13 (K + 2)`` values of ``sensordata``).
        k: the number of objects.

    Returns:
        The objects' position (N, K, 3), quaternion (N, K, 4), linear and
        angular velocity (N, K, 3), then the same four of the pads (N, 2, ...).
    """
    bodies = record.reshape(record.shape[0], -1, _SENSOR_WIDTH)
    fields, offset = [], 0
    for _, width in _FRAME_SENSORS:
        fields.append(bodies[:, :, offset:offset + width])
        offset += width
    return (*(f[:, :k] for f in fields), *(f[:, k:k + 2] for f in fields))


def _first_kept_slot(history: np.ndarray, cursors: np.ndarray, stamps: np.ndarray,
                     times: np.ndarray) -> int:
    """Return the ring slot of the sample of ``times[0]``, or -1 if any time has none.

    The ring's slots run oldest first from the one after the cursor; the
    samples of ``times`` must be consecutive there, each stamped with its
    time (to 1e-6 relative), and every sensor's cursor the same (sampled
    together). One compiled pass: the same checks as numpy calls would cost
    more than the block's energies, each call slowed by the cache that
    stepping took.
    """
    n, count = stamps.shape[0], times.shape[0]
    cursor = history[cursors[0]]
    for i in range(cursors.shape[0]):
        if history[cursors[i]] != cursor:
            return -1
    if count == 0 or count > n:
        return -1
    largest = 1.0
    for i in range(count):
        largest = max(largest, abs(times[i]))
    tolerance = 1e-6 * largest
    oldest = int(cursor) + 1
    start = 0  # the first kept sample not older than times[0] (stamps rise along the ring)
    while start < n and stamps[(oldest + start) % n] < times[0] - tolerance:
        start += 1
    if start + count > n:
        return -1
    for i in range(count):
        if not abs(stamps[(oldest + start + i) % n] - times[i]) <= tolerance:
            return -1
    return (oldest + start) % n


_FIRST_KEPT_SLOT = Compiled(_first_kept_slot, lambda nb: nb.int64(
    float_array(nb, 1), nb.types.Array(nb.int64, 1, 'A', readonly=True), float_array(nb, 1),
    float_array(nb, 1)))


class FrameHistory:
    """Reads the samples MuJoCo kept of the ``with_frame_sensors`` sensors, a block at a time.

    MuJoCo inserts every sensor's value, stamped with the time of the state it
    was computed from, into its history buffer at every step (``nsample``
    samples, oldest overwritten; each buffer is ``[tick, cursor, times,
    values]``, ``cursor`` the newest slot). Reading them after a block
    replaces a Python copy of ``sensordata`` per step.

    Args:
        model: the model with the sensors, each keeping ``nsample`` > 0 samples.
        history: its ``MjData.history``.
        objects: the number of objects (the sensors of ``objects + 2`` bodies
            are the model's last ones).

    Raises:
        ConfigError: if the model's last sensors are not those, or keep no samples.
    """

    def __init__(self, model: mujoco.MjModel, history: np.ndarray, objects: int) -> None:
        bodies = objects + 2
        ids = np.arange(model.nsensor - len(_FRAME_SENSORS) * bodies, model.nsensor)
        kinds = [getattr(mujoco.mjtSensor, f'mjSENS_{kind.upper()}') for kind, _ in _FRAME_SENSORS]
        nsample = model.sensor_history[ids, 0] if ids.size and ids[0] >= 0 else np.zeros(1)
        if (ids.size == 0 or ids[0] < 0
                or list(model.sensor_type[ids]) != kinds * bodies
                or not np.all(nsample == nsample[0]) or nsample[0] < 1):
            raise ConfigError('the last sensors of the model must be the frame sensors of '
                              'with_frame_sensors, each keeping nsample > 0 samples')
        self.nsample = n = int(nsample[0])
        self.objects = objects
        self.width = int(model.sensor_dim[ids].sum())
        start = model.sensor_historyadr[ids].reshape(bodies, len(_FRAME_SENSORS))
        # One body's buffers follow another's at a fixed distance: each kind of
        # sensor is then one strided (bodies, n, width) view of the history.
        group = start[1:, 0] - start[:-1, 0] if bodies > 1 else np.zeros(0, int)
        if np.any(start - start[:, :1] != start[0] - start[0, 0]) or np.any(group != group[:1]):
            raise ConfigError('the frame sensors of with_frame_sensors are not laid out '
                              'body after body')
        stride = history.strides[0]
        body_stride = int(group[0]) * stride if bodies > 1 else 0
        self._values = [np.lib.stride_tricks.as_strided(
            history[int(start[0, j]) + 2 + n:], (bodies, n, width),
            (body_stride, width * stride, stride), writeable=False)
            for j, (_, width) in enumerate(_FRAME_SENSORS)]
        self._history = history
        self._cursors = (start.ravel() + 1).astype(np.int64)
        self._stamps = history[int(start[0, 0]) + 2:int(start[0, 0]) + 2 + n]
        _FIRST_KEPT_SLOT.compiled  # now, not in the first read

    def read(self, times: np.ndarray) -> tuple[np.ndarray, ...]:
        """Return the samples of the states at ``times`` (N,) as ``update_block`` arrays.

        Samples are found by their stamps (MuJoCo keeps them in time order: it
        files none older than the newest). Samples in one run of the ring come
        as views of the history, valid until the next step. The arrays are those of
        ``split_frame_sensors``: the objects' position, quaternion, linear and
        angular velocity, then the pads'.

        Raises:
            SimulationError: if a sample is not kept (any more), or the
                sensors were not sampled together.
        """
        n, count = self.nsample, times.size
        first = _FIRST_KEPT_SLOT(self._history, self._cursors, self._stamps, times)
        if first < 0:
            cursors = self._history[self._cursors]
            together = bool(np.all(cursors == cursors[0]))
            span = f'{times[0]:.4f}..{times[-1]:.4f} s' if count else 'no time'
            raise SimulationError(f'the frame sensors hold no samples of t = {span} '
                                  f'(kept: {n}, together: {together})')
        k = self.objects
        if first + count <= n:  # one run of the ring: views, valid until the next step
            kept = slice(first, first + count)
            fields = [values[:, kept].swapaxes(0, 1) for values in self._values]
            return (*(f[:, :k] for f in fields), *(f[:, k:] for f in fields))
        # Two runs around the ring's end: copies.
        split = n - first
        runs = ((slice(0, split), slice(first, n)), (slice(split, count), slice(0, count - split)))
        fields = []
        for values in self._values:
            # Body by body: each a contiguous run of the buffer, copied as one.
            field = np.empty((values.shape[0], count, values.shape[2]))
            for out, kept in runs:
                field[:, out] = values[:, kept]
            fields.append(field.swapaxes(0, 1))
        return (*(f[:, :k] for f in fields), *(f[:, k:] for f in fields))


@dataclass(frozen=True)
class BenchmarkRun:
    """What one run measured.

    Attributes:
        case: the run.
        steps: physics steps taken.
        failed: whether the metric failed (or the simulation diverged).
        diverged: whether the simulation diverged.
        termination_time_s: time of the failure, or the duration, s.
        peak_energy_j: highest metric over objects and steps up to termination, J.
        peak_time_s: its time, s.
        final_energy_j: metric (max over objects) at the last step of the trial, J.
        wall_time_s: wall time of stepping and tracking, s.
        series_time_s: (M,) start of each series interval, s.
        series_energy_j: (M,) highest metric over objects and over the interval, J.
        mujoco_version: the engine's version.
    """

    case: BenchmarkCase
    steps: int
    failed: bool
    diverged: bool
    termination_time_s: float
    peak_energy_j: float
    peak_time_s: float
    final_energy_j: float
    wall_time_s: float
    series_time_s: np.ndarray
    series_energy_j: np.ndarray
    mujoco_version: str = mujoco.__version__

    @property
    def simulated_time_s(self) -> float:
        """Simulated time the run stepped through, s."""
        return self.steps * self.case.settings.timestep_s

    @property
    def real_time_factor(self) -> float:
        """Simulated seconds per wall second."""
        return self.simulated_time_s / self.wall_time_s if self.wall_time_s > 0 else math.inf

    @property
    def result(self) -> str:
        """'held', 'failed' or 'diverged'."""
        return 'diverged' if self.diverged else 'failed' if self.failed else 'held'

    def row(self) -> dict[str, Any]:
        """Return the run as one CSV row, keyed by ``CSV_COLUMNS``."""
        settings = self.case.settings
        return {
            'scenario': self.case.scenario, 'n_cubes': self.case.n_cubes,
            'friction': settings.friction, 'cone': settings.cone, 'solver': settings.solver,
            'iterations': settings.iterations, 'noslip_iterations': settings.noslip_iterations,
            'impratio': settings.impratio, 'timestep_s': settings.timestep_s,
            'integrator': settings.integrator, 'duration_s': self.case.duration_s,
            'threshold_j': self.case.threshold_j, 'result': self.result,
            'time_to_termination_s': round(self.termination_time_s, 9),
            'peak_energy_j': self.peak_energy_j, 'peak_time_s': round(self.peak_time_s, 9),
            'final_energy_j': self.final_energy_j, 'steps': self.steps,
            'wall_time_s': round(self.wall_time_s, 3),
            'real_time_factor': round(self.real_time_factor, 2),
            'mujoco_version': self.mujoco_version,
        }


CSV_COLUMNS = (
    'scenario', 'n_cubes', 'friction', 'cone', 'solver', 'iterations', 'noslip_iterations',
    'impratio', 'timestep_s', 'integrator', 'duration_s', 'threshold_j', 'result',
    'time_to_termination_s', 'peak_energy_j', 'peak_time_s', 'final_energy_j', 'steps',
    'wall_time_s', 'real_time_factor', 'mujoco_version')


def run_case(case: BenchmarkCase,
             progress: Callable[[float], None] | None = None,
             clock: Callable[[], float] = time.perf_counter) -> BenchmarkRun:
    """Simulate one run and score every step with the energy metric.

    Args:
        case: the run.
        progress: called after every evaluated block with the simulated
            seconds it covered.
        clock: the clock of ``wall_time_s`` (``time.process_time`` measures
            CPU time, which other jobs on the machine do not inflate).

    Returns:
        What the run measured.
    """
    scene = case.build_scene()
    sim = Simulator(scene, command_timeout_s=0.0)
    model = sim.model
    dt = sim.timestep_s
    objects = np.array([mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
                        for name in scene.objects])
    k = objects.size
    total_steps = max(1, round(case.duration_s / dt))
    window = case.series_steps
    block = case.block_steps
    # The inertial frame's inertia is diagonal: the principal moments.
    tracker = EnergyTracker(EnergyTrackerConfig(
        scene.objects, model.body_mass[objects], model.body_inertia[objects],
        gripper_names=scene.pads, dt_s=dt, threshold_j=case.threshold_j,
        initial_capacity=min(total_steps, 16 * block)))
    frames = FrameHistory(model, sim.data.history, k)
    # MuJoCo's reset of a diverged state would empty the sensors' history too; the run
    # ends at a divergence anyway, so keep the state and the samples before it.
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)
    per_call = steps_per_call(scene, dt, block)
    series_time, series_energy = [], []
    peak_j, peak_time_s, final_j = -math.inf, math.nan, math.nan
    failed = diverged = stopped = False
    termination_s = total_steps * dt
    done = 0
    compile_block_scoring()  # before the clock: the first block would wait for it
    start = clock()
    while done < total_steps and not failed:
        count = min(block, total_steps - done)
        good, replayed = _step_until_diverged(sim, count, per_call, frames.width)
        if good < count:
            # The state of that step is unusable: the run ends there.
            diverged = failed = stopped = True
            termination_s = (done + good) * dt
            count = good
        if count:
            times = (done + np.arange(count)) * dt
            if replayed is None:
                samples = frames.read(times)
            else:  # the steps taken again were copied; those before them are in the history
                earlier = count - replayed.shape[0]
                samples = split_frame_sensors(replayed, k)
                if earlier:
                    samples = tuple(np.concatenate(pair) for pair in zip(
                        frames.read(times[:earlier]), samples, strict=True))
            energy = tracker.update_block(times, *samples).energy_mean_j
            worst = energy.max(axis=1)  # NaN propagates: a NaN metric fails
            bad = ~(worst <= case.threshold_j)
            if bad.any():
                # The trial ends here, before any divergence later in the block.
                failed, diverged = True, False
                stop = int(bad.argmax())
                termination_s = float(times[stop])
                worst, times = worst[:stop + 1], times[:stop + 1]
            starts = np.arange(0, worst.size, window)
            series_time.append(times[starts])
            series_energy.append(np.maximum.reduceat(worst, starts))
            finite = np.where(np.isnan(worst), -np.inf, worst)
            best = int(finite.argmax())
            if finite[best] > peak_j:
                peak_j, peak_time_s = float(finite[best]), float(times[best])
            final_j = float(worst[-1])
        done += count
        if progress is not None:
            progress(count * dt)
        if stopped:
            break
    wall_s = clock() - start
    steps = done + int(stopped)  # the step that diverged counts
    return BenchmarkRun(
        case=case, steps=steps, failed=failed, diverged=diverged,
        termination_time_s=termination_s,
        peak_energy_j=peak_j if math.isfinite(peak_j) else math.nan,
        peak_time_s=peak_time_s, final_energy_j=final_j, wall_time_s=wall_s,
        series_time_s=np.concatenate(series_time) if series_time else np.zeros(0),
        series_energy_j=np.concatenate(series_energy) if series_energy else np.zeros(0))


def steps_per_call(scene: Scene, dt: float, limit: int) -> int:
    """Physics steps per ``Simulator.step`` call under the scene's drive, at most ``limit``.

    As many as the drive's command holds (``Scene.drive_hold_s``): the same
    states as one call per step, without Python between the steps.
    """
    hold = scene.drive_hold_s if scene.drive is not None else 0.0
    if math.isinf(hold):
        return max(1, limit)
    return max(1, min(limit, int(hold / dt + 1e-9)))


def _step_until_diverged(sim: Simulator, count: int, per_call: int,
                         width: int) -> tuple[int, np.ndarray | None]:
    """Take ``count`` steps, ``per_call`` at a time; return how many were good.

    A call that diverged is taken again from its start one step at a time, so
    the divergence is dated to its step; the state is left at that step. The
    good steps taken again come back as rows of ``sensordata`` (its last
    ``width`` values), as MuJoCo's history does not take them again; None
    when there are none.

    Raises:
        SimulationError: if the steps taken again do not diverge (MuJoCo's
            stepping is deterministic, so they must).
    """
    good = 0
    while good < count:
        n = min(per_call, count - good)
        saved = sim.save_state() if n > 1 else None
        if sim.step(n):
            good += n
            continue
        if saved is None:
            return good, None
        sim.restore_state(saved)
        rows = []
        for _ in range(n):
            if not sim.step(1):
                return good, np.array(rows) if rows else None
            good += 1
            rows.append(sim.data.sensordata[-width:].copy())
        raise SimulationError(f'{n} steps from t = {sim.time_s - n * sim.timestep_s:.4f} s '
                              'diverged at once but not one at a time')
    return good, None


def multi_block_cases(cubes: Iterable[int] = DEFAULT_CUBES,
                      frictions: Iterable[float] = DEFAULT_FRICTIONS,
                      settings: SimSettings = MUJOCO_DEFAULTS,
                      **case: Any) -> list[BenchmarkCase]:
    """Return a multiple block run per friction and cube count (friction varies slowest)."""
    return [BenchmarkCase('multi_block', dataclasses.replace(settings, friction=float(mu)),
                          n_cubes=int(n), **case)
            for mu in frictions for n in cubes]


def industrial_arm_cases(frictions: Iterable[float] = (1.0,),
                         settings: SimSettings = MUJOCO_DEFAULTS,
                         **case: Any) -> list[BenchmarkCase]:
    """Return an industrial arm run per friction."""
    return [BenchmarkCase('industrial_arm', dataclasses.replace(settings, friction=float(mu)),
                          **case) for mu in frictions]


# -- running many ---------------------------------------------------------------------------


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class TextProgress:
    """A text progress bar of simulated seconds, redrawn in place on a terminal.

    On a terminal the bar is redrawn on one line (at most every 0.2 s) and a
    line is printed as each run ends; elsewhere (a log, a pipe) only those
    lines are printed.

    Args:
        total_s: simulated seconds of all runs.
        runs: number of runs.
        stream: where to write (standard error by default).
    """

    def __init__(self, total_s: float, runs: int, stream: TextIO | None = None) -> None:
        self.total_s = total_s
        self.runs = runs
        self.stream = stream if stream is not None else sys.stderr
        self.done_s = 0.0
        self.finished = 0
        self._start = time.monotonic()
        self._drawn = 0.0
        self._tty = bool(getattr(self.stream, 'isatty', lambda: False)())

    def advance(self, seconds: float) -> None:
        """Count ``seconds`` more simulated time."""
        self.done_s = min(self.total_s, self.done_s + seconds)
        if self._tty and time.monotonic() - self._drawn > 0.2:
            self._draw()

    def run_finished(self, run: BenchmarkRun, remaining_s: float) -> None:
        """Count a finished run and the simulated time it skipped by ending early."""
        self.finished += 1
        self.done_s = min(self.total_s, self.done_s + remaining_s)
        when = (f'failed at {run.termination_time_s:.3f} s' if run.failed
                else f'held {run.termination_time_s:g} s')
        if run.diverged:
            when = f'diverged at {run.termination_time_s:.3f} s'
        line = (f'[{self.finished}/{self.runs}] {run.case.scenario} {run.case.label}: {when},'
                f' peak {run.peak_energy_j:.3g} J, {run.wall_time_s:.1f} s wall'
                f' (real-time factor {run.real_time_factor:.1f})')
        self._clear()
        print(line, file=self.stream, flush=True)
        if self._tty:
            self._draw()

    def close(self) -> None:
        """End the bar's line."""
        if self._tty:
            self._draw()
            print(file=self.stream, flush=True)

    def _clear(self) -> None:
        if self._tty:
            self.stream.write('\r\033[K')

    def _draw(self) -> None:
        self._drawn = time.monotonic()
        width = 30
        fraction = self.done_s / self.total_s if self.total_s > 0 else 1.0
        filled = int(round(width * fraction))
        elapsed = self._drawn - self._start
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else math.nan
        eta_text = _clock(eta) if math.isfinite(eta) else '--:--'
        self.stream.write(
            f'\r[{"#" * filled}{"." * (width - filled)}] {100 * fraction:3.0f} %'
            f' {self.finished}/{self.runs} runs {self.done_s:.0f}/{self.total_s:.0f} sim s'
            f' elapsed {_clock(elapsed)} eta {eta_text}')
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f'{hours}:{minutes:02d}:{seconds:02d}' if hours else f'{minutes:02d}:{seconds:02d}'


#: The progress queue of a worker process, set by ``_init_worker``.
_worker_queue: Any = None


def _init_worker(progress_queue: Any) -> None:
    global _worker_queue
    _worker_queue = progress_queue


def _run_in_worker(index: int, case: BenchmarkCase) -> BenchmarkRun:
    progress_queue = _worker_queue
    if progress_queue is None:
        return run_case(case)
    return run_case(case, lambda seconds: progress_queue.put((index, seconds)))


def run_benchmark(cases: Sequence[BenchmarkCase], jobs: int | None = None,
                  progress: bool | TextProgress = True,
                  start_method: str = 'spawn') -> list[BenchmarkRun]:
    """Run every case, ``jobs`` at a time in worker processes; results in case order.

    Args:
        cases: the runs.
        jobs: worker processes (default: the available cores), each started
            with one BLAS thread (``core.threads.SINGLE_THREADED``); 1 runs them here, one
            after the other, with this process's BLAS threads.
        progress: show a ``TextProgress`` on standard error (True), none
            (False), or this one.
        start_method: how workers start ('spawn', 'fork' or 'forkserver');
            'spawn' is safe wherever MuJoCo runs.

    Returns:
        One run per case, in the order of ``cases``.
    """
    cases = list(cases)
    jobs = available_cores() if jobs is None else int(jobs)
    if jobs < 1:
        raise ConfigError(f'jobs must be >= 1, got {jobs}')
    bar = progress if isinstance(progress, TextProgress) else (
        TextProgress(sum(c.duration_s for c in cases), len(cases)) if progress else None)
    results: list[BenchmarkRun | None] = [None] * len(cases)
    reported = [0.0] * len(cases)

    def finish(index: int, run: BenchmarkRun) -> None:
        results[index] = run
        if bar is not None:
            bar.run_finished(run, max(0.0, cases[index].duration_s - reported[index]))

    def advance(index: int, seconds: float) -> None:
        reported[index] += seconds
        if bar is not None:
            bar.advance(seconds)

    # The longest runs first, so the last ones to finish are short.
    order = sorted(range(len(cases)),
                   key=lambda i: (-cases[i].duration_s / cases[i].settings.timestep_s
                                  * cases[i].n_cubes, i))
    try:
        if jobs == 1 or len(cases) <= 1:
            for index in order:
                finish(index, run_case(cases[index],
                                       lambda seconds, index=index: advance(index, seconds)))
        else:
            _run_pool(cases, order, min(jobs, len(cases)), start_method, advance, finish)
    finally:
        if bar is not None:
            bar.close()
    return [run for run in results if run is not None]


def _run_pool(cases: list[BenchmarkCase], order: list[int], jobs: int, start_method: str,
              advance: Callable[[int, float], None],
              finish: Callable[[int, BenchmarkRun], None]) -> None:
    context = multiprocessing.get_context(start_method)
    progress_queue = context.Queue()

    def drain() -> None:
        while True:
            try:
                index, seconds = progress_queue.get_nowait()
            except queue.Empty:
                return
            advance(index, seconds)

    with single_threaded_children():  # read by each worker as it starts
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                 initializer=_init_worker, initargs=(progress_queue,)) as pool:
            futures: dict[Future[BenchmarkRun], int] = {
                pool.submit(_run_in_worker, index, cases[index]): index for index in order}
            pending = set(futures)
            try:
                while pending:
                    done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                    drain()
                    for future in done:
                        finish(futures[future], future.result())
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
            drain()


# -- reports --------------------------------------------------------------------------------


def write_csv(runs: Sequence[BenchmarkRun], path: str | os.PathLike[str]) -> Path:
    """Write one row per run (``CSV_COLUMNS``); return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open('w', newline='') as stream:
        writer = csv.DictWriter(stream, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for run in runs:
            writer.writerow(run.row())
    return path


def _energy(value: float) -> str:
    return 'NaN' if math.isnan(value) else f'{value:.3g}'


def settings_text(settings: SimSettings) -> str:
    """Return the solver settings of a run as one line (friction excluded)."""
    return (f'cone {settings.cone}, solver {settings.solver}, iterations '
            f'{settings.iterations}, noslip_iterations {settings.noslip_iterations}, '
            f'impratio {settings.impratio:g}, timestep {settings.timestep_s * 1e3:g} ms, '
            f'integrator {settings.integrator}')


def markdown_table(runs: Sequence[BenchmarkRun]) -> str:
    """Return the runs as a Markdown table, one row per run."""
    lines = ['| scenario | cubes | μ | result | time to termination (s) | peak energy (J) '
             '| final energy (J) | wall time (s) | real-time factor |',
             '|---|---|---|---|---|---|---|---|---|']
    for run in runs:
        case = run.case
        lines.append(
            f'| {case.scenario} | {case.n_cubes} | {case.settings.friction:g} | {run.result} '
            f'| {run.termination_time_s:.3f} | {_energy(run.peak_energy_j)} '
            f'| {_energy(run.final_energy_j)} | {run.wall_time_s:.1f} '
            f'| {run.real_time_factor:.1f} |')
    return '\n'.join(lines) + '\n'


def write_markdown(runs: Sequence[BenchmarkRun], path: str | os.PathLike[str],
                   command: str = '', wall_time_s: float | None = None) -> Path:
    """Write a Markdown report: settings, the table, the command; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'# Grasp benchmark: {", ".join(sorted({r.case.scenario for r in runs}))}', '']
    for settings in dict.fromkeys(dataclasses.replace(r.case.settings, friction=1.0)
                                  for r in runs):
        lines.append(f'Settings: {settings_text(settings)}.')
    if runs:
        case = runs[0].case
        lines.append(f'Duration {case.duration_s:g} s; the metric fails above '
                     f'{case.threshold_j:g} J; MuJoCo {runs[0].mujoco_version}.')
    if command:
        lines.append(f'Command: `{command}`')
    if wall_time_s is not None:
        lines.append(f'Wall time of the whole benchmark: {wall_time_s:.0f} s.')
    lines += ['', markdown_table(runs)]
    path.write_text('\n'.join(lines))
    return path


def plot_energy(runs: Sequence[BenchmarkRun], path: str | os.PathLike[str],
                title: str = '') -> Path:
    """Plot the metric over time, log scale: a panel per friction, a line per run.

    Each point is the highest metric over the objects and over one series
    interval, drawn at the interval's end; a cross marks a failure. The time
    axis ends where the longest run ended, and turns logarithmic when some
    runs end ten times sooner than others. The energy axis spans at most 12
    decades below the threshold; lower values (and 0 J, a body exactly on its
    goal) are drawn at its floor. Rendered on matplotlib's Agg canvas (no
    display needed).

    Returns:
        The path of the PNG.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frictions = list(dict.fromkeys(run.case.settings.friction for run in runs))
    columns = min(3, max(1, len(frictions)))
    lines = math.ceil(max(1, len(frictions)) / columns)
    figure = Figure(figsize=(6.0 * columns + 1.2, 4.2 * lines + 0.6), layout='constrained')
    FigureCanvasAgg(figure)
    grid = figure.subplots(lines, columns, sharey=True, squeeze=False)
    axes = list(grid.flat)
    for unused in axes[len(frictions):]:
        unused.set_visible(False)
    threshold = max((r.case.threshold_j for r in runs), default=DEFAULT_THRESHOLD_J)
    values = np.concatenate([r.series_energy_j for r in runs] or [np.zeros(0)])
    positive = values[np.isfinite(values) & (values > 0)]
    lowest = positive.min() if positive.size else threshold * 1e-9
    floor = max(10.0 ** math.floor(math.log10(lowest)), threshold * 1e-12)
    highest = max(threshold, positive.max()) if positive.size else threshold
    ceiling = 10.0 ** math.ceil(math.log10(highest) + 0.5)
    colours = _colours(sorted({r.case.n_cubes for r in runs}))
    ends = [r.series_time_s[-1] + r.case.series_interval_s for r in runs if r.series_time_s.size]
    span = max(ends, default=1.0)
    logarithmic = bool(ends) and min(ends) < 0.1 * span
    interval = min((r.case.series_interval_s for r in runs), default=0.01)
    duration = max((r.case.duration_s for r in runs), default=span)
    for axis, mu in zip(axes, frictions):
        for run in sorted((r for r in runs if r.case.settings.friction == mu),
                          key=lambda r: r.case.n_cubes):
            energy = np.clip(np.nan_to_num(run.series_energy_j, nan=ceiling, posinf=ceiling),
                             floor, ceiling)
            times = run.series_time_s + run.case.series_interval_s
            label = (f'n = {run.case.n_cubes}' if run.case.scenario == 'multi_block'
                     else f'{run.case.settings.timestep_s * 1e3:g} ms step')
            colour = colours[run.case.n_cubes]
            axis.plot(times, energy, color=colour, lw=1.3, label=label)
            if run.failed and times.size:
                axis.plot(times[-1], energy[-1], 'x', color=colour, ms=8, mew=2)
        axis.axhline(threshold, color='red', ls='--', lw=1)
        axis.set_yscale('log')
        axis.set_ylim(floor, ceiling)
        if logarithmic:
            axis.set_xscale('log')
            axis.set_xlim(interval, span * 1.3)
        else:
            axis.set_xlim(0.0, span * 1.02)
        axis.text(0.02, 0.97, f'threshold {threshold:g} J' + (
            f'; every run ended by {span:.3g} s of {duration:g} s' if span < duration else ''),
            transform=axis.transAxes, color='red', fontsize=8, va='top')
        axis.set_xlabel('simulated time (s)')
        axis.set_title(f'μ = {mu:g}')
        axis.grid(True, which='major', alpha=0.3)
    for row in grid:
        row[0].set_ylabel('energy metric, max over cubes (J)')
    handles, labels = axes[0].get_legend_handles_labels()
    for axis in axes[1:]:
        more, names = axis.get_legend_handles_labels()
        for handle, name in zip(more, names):
            if name not in labels:
                handles.append(handle)
                labels.append(name)
    if handles:
        order = sorted(range(len(labels)), key=lambda i: _label_key(labels[i]))
        figure.legend([handles[i] for i in order], [labels[i] for i in order],
                      loc='outside right center', fontsize=8, frameon=False)
    if title:
        # About 13 characters of 10 pt text per inch of figure.
        width = int(13 * figure.get_figwidth())
        figure.suptitle(textwrap.fill(title, width), fontsize=10)
    figure.savefig(path, dpi=110)
    return path


def _label_key(label: str) -> tuple[float, str]:
    digits = ''.join(ch for ch in label if ch.isdigit() or ch == '.')
    try:
        return float(digits), label
    except ValueError:
        return math.inf, label


def _colours(cubes: Sequence[int]) -> dict[int, Any]:
    from matplotlib import colormaps
    cmap = colormaps['viridis']
    if len(cubes) == 1:
        return {cubes[0]: 'tab:blue'}
    return {n: cmap(0.9 * i / (len(cubes) - 1)) for i, n in enumerate(cubes)}
