"""What the energy metric costs the grasp benchmark's runs; prints a Markdown snippet.

    python benchmarks/bench_benchmark.py [--seconds 4] [--repeats 5]

For each benchmark scene, seconds per physics step of:

* raw: ``mujoco.mj_step(model, data, nstep)`` on the scene (no sensors, the
  controls of t = 0 held: the arm then leaves its trajectory; a floor only);
* scenario: ``Simulator.step`` under the scene's drive, as a benchmark run
  steps it (as many steps per call as the drive's command holds: a block for
  the multiple block scene, one for the arm), without the metric;
* benchmark: ``sim.grasp_benchmark.run_case``, the real run: frame sensors that keep
  their samples in MuJoCo's history buffer, read and scored with
  ``EnergyTracker.update_block`` every 2 s (two blocks in the default 4 s);
* per-step tracker: ``Simulator.step(1)``, ``body_arrays()`` and
  ``EnergyTracker.update_arrays`` every step (the way to avoid).

The tracker's cost is benchmark / scenario - 1 (target < 10 %). ``--clock cpu`` (the
default) times CPU time of this process, ``--clock wall`` wall time: on a machine shared
with other jobs, wall time also counts the time the scheduler gives to others, which falls
unevenly on the variants (``--clock both`` prints both, with the involuntary context
switches per 1000 steps of the scenario and the benchmark, the measure of that). Its parts are
timed apart too: the sensors (raw ``mj_step`` with and without them and their
history), reading the history, and ``update_block`` per sample on read samples.
Timings are the best of interleaved repetitions, so load from other processes on
a shared machine inflates them as little as possible.
"""

import argparse
import dataclasses
import os
from pathlib import Path
import platform
import resource
import sys
import time

try:
    import grasp_monitor  # noqa: F401
except ImportError:  # a checkout that is not installed: use its src/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

# As the benchmark's worker processes: one BLAS thread, set before numpy loads it. With
# more, CPU time would count threads spinning on the other core.
from grasp_monitor.core.threads import limit_to_one_thread  # noqa: E402, I100
limit_to_one_thread()

import mujoco  # noqa: E402, I100
import numba  # noqa: E402
import numpy as np  # noqa: E402

from grasp_monitor.core.energy import EnergyTracker, EnergyTrackerConfig  # noqa: E402, I100
from grasp_monitor.sim.backend import Simulator  # noqa: E402
from grasp_monitor.sim.grasp_benchmark import (  # noqa: E402
    BenchmarkCase, FrameHistory, PRESETS, run_case, settings_text, steps_per_call)

# The stable preset, under which every scene holds: a failed run would stop early and
# time a falling cube instead of a grasp.
HOLDING = dataclasses.replace(PRESETS['stable'].settings, friction=100.0)
ARM = dataclasses.replace(PRESETS['stable'].settings, friction=1.0)
ARM_PARAMS = PRESETS['stable'].scene_params('industrial_arm')


def cases(seconds: float) -> list[BenchmarkCase]:
    """Return the timed runs: 1, 3 and 8 to 11 cubes, and the arm."""
    return [BenchmarkCase('multi_block', HOLDING, n_cubes=n, duration_s=seconds)
            for n in (1, 3, 8, 9, 10, 11)] + [
        BenchmarkCase('industrial_arm', ARM, duration_s=seconds, params=ARM_PARAMS)]


CLOCK = time.process_time


def steps_of(case: BenchmarkCase) -> int:
    return round(case.duration_s / case.settings.timestep_s)


def time_raw(case: BenchmarkCase) -> float:
    sim = Simulator(case.build_scene(sensors=False), command_timeout_s=0.0)
    sim.step(1)  # applies the drive's first command
    start = CLOCK()
    mujoco.mj_step(sim.model, sim.data, nstep=steps_of(case))
    return (CLOCK() - start) / steps_of(case)


def time_scenario(case: BenchmarkCase) -> float:
    sim = Simulator(case.build_scene(sensors=False), command_timeout_s=0.0)
    step, total = sim.step, steps_of(case)
    per_call = steps_per_call(sim.scene, sim.timestep_s, case.block_steps)
    start = CLOCK()
    for first in range(0, total, per_call):
        step(min(per_call, total - first))
    return (CLOCK() - start) / total


def time_benchmark(case: BenchmarkCase) -> float:
    run = run_case(case, clock=CLOCK)
    assert not run.failed, (case.label, run.termination_time_s)
    return run.wall_time_s / run.steps


def time_per_step_tracker(case: BenchmarkCase) -> float:
    sim = Simulator(case.build_scene(sensors=False), command_timeout_s=0.0)
    scene, model = sim.scene, sim.model
    objects = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, b) for b in scene.objects]
    tracker = EnergyTracker(EnergyTrackerConfig(
        scene.objects, model.body_mass[objects], model.body_inertia[objects],
        gripper_names=scene.pads, dt_s=sim.timestep_s))
    k = len(scene.objects)
    rows = [sim.tracked_bodies.index(b) for b in scene.objects + scene.pads]
    start = CLOCK()
    for step in range(steps_of(case)):
        sim.step(1)
        bodies = sim.body_arrays()
        arrays = [a[rows] for a in (bodies.position, bodies.quaternion,
                                    bodies.linear_velocity, bodies.angular_velocity)]
        tracker.update_arrays(step * sim.timestep_s, *(a[:k] for a in arrays),
                              *(a[k:] for a in arrays))
    return (CLOCK() - start) / steps_of(case)


def tracker_parts(case: BenchmarkCase, repeats: int) -> dict[str, float]:
    """Return seconds per step of the sensors, reading their history and ``update_block``."""
    with_sensors = Simulator(case.build_scene(), command_timeout_s=0.0)
    without = Simulator(case.build_scene(sensors=False), command_timeout_s=0.0)
    steps = min(steps_of(case), case.block_steps)
    best = {'raw_without': np.inf, 'raw_with': np.inf, 'read': np.inf, 'evaluate': np.inf}
    for sim in (with_sensors, without):
        sim.step(1)
    starts = []
    for sim in (with_sensors, without):
        saved = mujoco.MjData(sim.model)
        mujoco.mj_copyData(saved, sim.model, sim.data)
        starts.append(saved)
    k = len(with_sensors.scene.objects)
    frames = FrameHistory(with_sensors.model, with_sensors.data.history, k)
    for _ in range(steps):
        with_sensors.step(1)
    times = (1 + np.arange(steps)) * with_sensors.timestep_s
    arrays = frames.read(times)
    model = with_sensors.model
    objects = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, b)
               for b in with_sensors.scene.objects]
    config = EnergyTrackerConfig(
        with_sensors.scene.objects, model.body_mass[objects], model.body_inertia[objects],
        gripper_names=with_sensors.scene.pads, dt_s=with_sensors.timestep_s,
        initial_capacity=steps * (repeats + 1))
    for _ in range(repeats):
        start = CLOCK()
        frames.read(times)
        best['read'] = min(best['read'], (CLOCK() - start) / steps)
        for key, sim, saved in (('raw_with', with_sensors, starts[0]),
                                ('raw_without', without, starts[1])):
            mujoco.mj_copyData(sim.data, sim.model, saved)
            start = CLOCK()
            mujoco.mj_step(sim.model, sim.data, nstep=steps)
            best[key] = min(best[key], (CLOCK() - start) / steps)
        tracker = EnergyTracker(config)
        tracker.update_block(np.arange(steps) * 1e-3, *arrays)  # start, workspace
        later = (steps + np.arange(steps)) * 1e-3
        start = CLOCK()
        tracker.update_block(later, *arrays)
        best['evaluate'] = min(best['evaluate'], (CLOCK() - start) / steps)
    return {'sensors': max(0.0, best['raw_with'] - best['raw_without']),
            'read': best['read'], 'evaluate': best['evaluate']}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=4.0,
                        help='simulated seconds per timing (default 4: runs of several '
                             'blocks, as those of the benchmark are)')
    parser.add_argument('--repeats', type=int, default=5, help='interleaved repetitions')
    parser.add_argument('--clock', choices=('cpu', 'wall'), default='cpu',
                        help='CPU time of this process (default) or wall time')
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == 'cpu' else time.perf_counter
    variants = {'raw': time_raw, 'scenario': time_scenario, 'benchmark': time_benchmark,
                'per_step': time_per_step_tracker}
    wall = time.perf_counter()
    print('### Energy metric in the grasp benchmark (`benchmarks/bench_benchmark.py`)\n')
    print(f'Clock: {args.clock}.\n')
    print('| scene | raw mj_step | scenario step | benchmark step | tracker cost | '
          'per-step tracker | parts: sensors + history read + update_block | '
          'preemptions / 1000 steps (scenario, benchmark) |')
    print('|---|---|---|---|---|---|---|---|')
    for case in cases(args.seconds):
        best = dict.fromkeys(variants, np.inf)
        switches = dict.fromkeys(variants, 0)
        for _ in range(args.repeats):
            for name, timer in variants.items():
                before = resource.getrusage(resource.RUSAGE_SELF).ru_nivcsw
                best[name] = min(best[name], timer(case))
                switches[name] += resource.getrusage(resource.RUSAGE_SELF).ru_nivcsw - before
        preempted = {name: 1000 * count / (args.repeats * steps_of(case))
                     for name, count in switches.items()}
        parts = tracker_parts(case, args.repeats)
        scenario = best['scenario']
        name = (f'multi_block, {case.n_cubes} cube{"s" if case.n_cubes > 1 else ""}'
                if case.scenario == 'multi_block' else 'industrial_arm')
        total = sum(parts.values())
        per_step = best['per_step']
        print(f'| {name} ({case.duration_s:g} s) | {best["raw"] * 1e6:.1f} µs '
              f'| {scenario * 1e6:.1f} µs | {best["benchmark"] * 1e6:.1f} µs '
              f'| {100 * (best["benchmark"] / scenario - 1):+.1f} % '
              f'| {per_step * 1e6:.1f} µs ({100 * (per_step / scenario - 1):+.0f} %) '
              f'| {parts["sensors"] * 1e6:.2f} + {parts["read"] * 1e6:.2f} + '
              f'{parts["evaluate"] * 1e6:.2f} = {total * 1e6:.2f} µs '
              f'({100 * total / scenario:.1f} %) '
              f'| {preempted["scenario"]:.1f}, {preempted["benchmark"]:.1f} |')
    print(f'\nSettings: the stable preset ({settings_text(HOLDING)}), μ = '
          f'{HOLDING.friction:g}; the arm: the same, μ = {ARM.friction:g}, '
          f'{", ".join(f"{k} {v}" for k, v in ARM_PARAMS)}. MuJoCo {mujoco.__version__}, '
          f'numpy {np.__version__}, numba {numba.__version__}, '
          f'Python {platform.python_version()}, '
          f'{os.cpu_count()} CPUs; best of {args.repeats} interleaved runs of '
          f'{args.seconds:g} s simulated; '
          f'{time.perf_counter() - wall:.0f} s wall.')


if __name__ == '__main__':
    main()
