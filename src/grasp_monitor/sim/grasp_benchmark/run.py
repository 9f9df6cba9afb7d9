"""One run of the grasp benchmark: simulate a case, score every step with the energy metric.

Taylor & Drumwright's benchmark (REFERENCE.md sections 3 and 4) asks whether a simulator
keeps grasped objects where the grippers hold them: each run simulates a scenario for
``duration_s`` (100 s) and scores every physics step with the energy metric of every
object (``EnergyTracker``, the mean over the left and the right gripper); a run fails at
the first step where any object's metric exceeds the threshold (1e7 J) or is NaN, and ends
there.

How a run is measured (choices the reference leaves open):

* The scene's own drive is applied at every physics step: ``Simulator.step``
  takes as many steps per call as its command holds (``Scene.drive_hold_s``;
  a whole block for the multiple block scene's constant squeeze, one step for
  the arm's trajectory), which gives the same states as a call per step.
* States: the frame sensors of ``with_frame_sensors`` on the objects and the two
  pads, each keeping a block of samples that ``FrameHistory`` reads.
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
  trial), wall and CPU time of the stepping and tracking loop, its real-time
  factor (simulated seconds per CPU second, which other jobs on the machine
  do not inflate), and the metric every ``series_interval_s`` (10 ms: the max
  over objects and over the steps of each interval) for plots.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import time
from typing import Any, Callable

from grasp_monitor.core.energy import compile_block_scoring, EnergyTracker, EnergyTrackerConfig
from grasp_monitor.core.errors import SimulationError
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.frame_sensors import split_frame_sensors
from grasp_monitor.sim.grasp_benchmark.cases import BenchmarkCase
from grasp_monitor.sim.grasp_benchmark.history import FrameHistory
from grasp_monitor.sim.scene import Scene
import mujoco
import numpy as np


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
        cpu_time_s: CPU time of this process over the same, s.
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
    cpu_time_s: float
    series_time_s: np.ndarray
    series_energy_j: np.ndarray
    mujoco_version: str = mujoco.__version__

    @property
    def simulated_time_s(self) -> float:
        """Simulated time the run stepped through, s."""
        return self.steps * self.case.settings.timestep_s

    @property
    def real_time_factor(self) -> float:
        """Simulated seconds per CPU second."""
        return self.simulated_time_s / self.cpu_time_s if self.cpu_time_s > 0 else math.inf

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
            'integrator': settings.integrator, 'solref': _numbers(settings.solref),
            'solimp': _numbers(settings.solimp), 'tolerance': settings.tolerance,
            'noslip_tolerance': settings.noslip_tolerance,
            'params': ' '.join(f'{key}={value}' for key, value in self.case.params),
            'duration_s': self.case.duration_s,
            'threshold_j': self.case.threshold_j, 'result': self.result,
            'time_to_termination_s': round(self.termination_time_s, 9),
            'peak_energy_j': self.peak_energy_j, 'peak_time_s': round(self.peak_time_s, 9),
            'final_energy_j': self.final_energy_j, 'steps': self.steps,
            'wall_time_s': round(self.wall_time_s, 3), 'cpu_time_s': round(self.cpu_time_s, 3),
            'real_time_factor': round(self.real_time_factor, 2),
            'mujoco_version': self.mujoco_version,
        }


CSV_COLUMNS = (
    'scenario', 'n_cubes', 'friction', 'cone', 'solver', 'iterations', 'noslip_iterations',
    'impratio', 'timestep_s', 'integrator', 'solref', 'solimp', 'tolerance',
    'noslip_tolerance', 'params', 'duration_s', 'threshold_j', 'result',
    'time_to_termination_s', 'peak_energy_j', 'peak_time_s', 'final_energy_j', 'steps',
    'wall_time_s', 'cpu_time_s', 'real_time_factor', 'mujoco_version')


def _numbers(values: tuple[float, ...]) -> str:
    """Return a solver vector as MJCF writes it; '' for the scene's own."""
    return ' '.join(f'{v:g}' for v in values)


def run_case(case: BenchmarkCase,
             progress: Callable[[float], None] | None = None,
             clock: Callable[[], float] = time.perf_counter) -> BenchmarkRun:
    """Simulate one run and score every step with the energy metric.

    Args:
        case: the run.
        progress: called after every evaluated block with the simulated
            seconds it covered.
        clock: the clock of ``wall_time_s``; ``cpu_time_s`` is always
            ``time.process_time``.

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
    start, start_cpu = clock(), time.process_time()
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
    wall_s, cpu_s = clock() - start, time.process_time() - start_cpu
    steps = done + int(stopped)  # the step that diverged counts
    return BenchmarkRun(
        case=case, steps=steps, failed=failed, diverged=diverged,
        termination_time_s=termination_s,
        peak_energy_j=peak_j if math.isfinite(peak_j) else math.nan,
        peak_time_s=peak_time_s, final_energy_j=final_j, wall_time_s=wall_s, cpu_time_s=cpu_s,
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
