"""Energy metric benchmark; prints a Markdown snippet.

    python benchmarks/bench_energy.py [--samples 1000000] [--repeats 5]

(a) ``energy()`` on 1e6 samples in one vectorised call (target < 1 s).
(b) CPU time per step of a MuJoCo scene (REFERENCE.md section 4, three free
    cubes between two gripper blocks) with and without the energy tracker fed
    every step (target < 10 % overhead). The tracked bodies' poses and world
    twists come from MuJoCo frame sensors. Four ways of feeding the tracker:
    one ``update_arrays`` call per step; ``sensordata`` copied in Python after
    every step and evaluated with ``update_block`` every 100 or every 1000
    steps; and the way ``grasp-monitor benchmark`` does it, the sensors keeping
    1000 samples in MuJoCo's history buffer, stepped 1000 steps per call and
    read (``FrameHistory``) and evaluated once per call. Sensors plus
    recording alone are timed too, so the tracker's own share shows.

Timings are the best of interleaved repetitions, so load from other
processes on a shared machine inflates them as little as possible.
"""

import argparse
import os

from pathlib import Path
import platform
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

from grasp_monitor.core.energy import (  # noqa: E402, I100
    energy, EnergyTracker, EnergyTrackerConfig, inertia_in_world)
from grasp_monitor.sim.grasp_benchmark import FrameHistory, split_frame_sensors  # noqa: E402

SAMPLES = 1_000_000
STEPS = 2000
REPEATS = 5
CUBES = ('cube_0', 'cube_1', 'cube_2')
GRIPPERS = ('gripper_left', 'gripper_right')
TRACKED = CUBES + GRIPPERS
# Multiple block grasping with n = 3: 0.1 m cubes of 1 kg touching in a row at z = 0.5,
# 0.2 x 0.1 x 0.2 m grippers of 1 kg at y = ±0.2 pushed inward with 100 N per cube,
# friction 100, no ground, 1 ms steps; solver settings as the multi_block scene's.
MJCF = """
<mujoco>
  <option timestep="0.001" gravity="0 0 -9.8" cone="elliptic" solver="Newton"
          iterations="100" integrator="implicitfast"/>
  <default><geom friction="100 0.005 0.0001"/></default>
  <worldbody>
    <body name="gripper_left" pos="0 0.2 0.5">
      <joint name="gripper_left" type="slide" axis="0 -1 0"/>
      <geom type="box" size="0.1 0.05 0.1" mass="1"/>
    </body>
    <body name="gripper_right" pos="0 -0.2 0.5">
      <joint name="gripper_right" type="slide" axis="0 1 0"/>
      <geom type="box" size="0.1 0.05 0.1" mass="1"/>
    </body>
    <body name="cube_0" pos="0 -0.1 0.5"><freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
    <body name="cube_1" pos="0 0 0.5"><freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
    <body name="cube_2" pos="0 0.1 0.5"><freejoint/>
      <geom type="box" size="0.05 0.05 0.05" mass="1"/></body>
  </worldbody>
  <actuator>
    <motor joint="gripper_left"/>
    <motor joint="gripper_right"/>
  </actuator>
  SENSORS
</mujoco>
"""
# objtype="body" is the inertial frame: the centre of mass in principal axes, the pose
# the metric wants; frame*vel are world-frame velocities of that frame.
SENSOR_TYPES = (('framepos', 3), ('framequat', 4), ('framelinvel', 3), ('frameangvel', 3))
# Body by body, as sim.frame_sensors.with_frame_sensors lays them out.
SENSORS = '<sensor>' + ''.join(
    f'<{kind} objtype="body" objname="{body}"HISTORY/>'
    for body in TRACKED for kind, _ in SENSOR_TYPES) + '</sensor>'
BLOCK = 1000
CLOCK = time.process_time


def bench_energy_call(samples: int = SAMPLES) -> tuple[float, float]:
    """Return (first, best) seconds of one energy() call on ``samples`` samples."""
    rng = np.random.default_rng(0)
    quaternion = rng.normal(size=(samples, 4))
    quaternion /= np.linalg.norm(quaternion, axis=1, keepdims=True)
    desired = quaternion + 0.01 * rng.normal(size=(samples, 4))
    desired /= np.linalg.norm(desired, axis=1, keepdims=True)
    inertia = inertia_in_world(rng.uniform(0.01, 0.1, (samples, 3)), quaternion, diagonal=True)
    args = (rng.uniform(0.5, 2.0, samples), inertia, 1e-3,
            (rng.normal(size=(samples, 3)), quaternion),
            (rng.normal(size=(samples, 3)), desired),
            *(rng.normal(size=(samples, 3)) for _ in range(4)))
    times = []
    for _ in range(3):
        start = time.perf_counter()
        result = energy(*args)
        times.append(time.perf_counter() - start)
        assert result.shape == (samples,) and np.all(np.isfinite(result))
    return times[0], min(times)


class Scene:
    """A model with or without the tracking sensors, from a settled grasp."""

    def __init__(self, sensors: bool, history: int = 0) -> None:
        sensors_xml = SENSORS.replace('HISTORY', f' nsample="{history}"' if history else '')
        self.model = mujoco.MjModel.from_xml_string(
            MJCF.replace('SENSORS', sensors_xml if sensors else ''))
        self.data = mujoco.MjData(self.model)
        self.data.ctrl[:] = 300.0  # 100 N per cube, inward
        mujoco.mj_step(self.model, self.data, nstep=200)
        self.start = mujoco.MjData(self.model)
        mujoco.mj_copyData(self.start, self.model, self.data)
        self.objects = np.array([mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, name)
                                 for name in CUBES])
        # In the inertial frame the inertia is MuJoCo's principal moments.
        self.peak_energy_j = np.full(len(CUBES), np.nan)
        self.config = EnergyTrackerConfig(
            CUBES, self.model.body_mass[self.objects], self.model.body_inertia[self.objects],
            gripper_names=GRIPPERS, dt_s=self.model.opt.timestep)

    def restart(self) -> None:
        mujoco.mj_copyData(self.data, self.model, self.start)


def split(sensordata: np.ndarray) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Object and gripper arrays for the tracker from (..., nsensordata) frame sensors."""
    arrays = split_frame_sensors(np.atleast_2d(sensordata), len(CUBES))
    if sensordata.ndim == 1:
        arrays = tuple(a[0] for a in arrays)
    return arrays[:4], arrays[4:]


def check_sensors(scene: Scene) -> None:
    """Guard: the sensors give what mj_objectVelocity gives (world frame, [ang, lin])."""
    mujoco.mj_forward(scene.model, scene.data)
    objects, grippers = split(scene.data.sensordata)
    twist = np.zeros(6)
    for row, name in enumerate(TRACKED):
        body = mujoco.mj_name2id(scene.model, mujoco.mjtObj.mjOBJ_BODY, name)
        part, index = (objects, row) if row < len(CUBES) else (grippers, row - len(CUBES))
        # Every body here has its centre of mass at its origin, in its own axes.
        mujoco.mj_objectVelocity(scene.model, scene.data, mujoco.mjtObj.mjOBJ_BODY, body,
                                 twist, 0)
        np.testing.assert_allclose(part[0][index], scene.data.xpos[body], atol=1e-12)
        np.testing.assert_allclose(np.abs(part[1][index] @ scene.data.xquat[body]), 1.0,
                                   atol=1e-12)
        np.testing.assert_allclose(part[2][index], twist[3:], atol=1e-9)
        np.testing.assert_allclose(part[3][index], twist[:3], atol=1e-9)


def run_raw(scene: Scene) -> None:
    model, data = scene.model, scene.data
    for _ in range(STEPS):
        mujoco.mj_step(model, data)


def run_read_only(scene: Scene, block: int = 100) -> None:
    """Record the sensor data every step, as the block variants do, without the tracker."""
    model, data = scene.model, scene.data
    sensordata, times = data.sensordata, np.zeros(block)
    record = np.zeros((block, model.nsensordata))
    for step in range(STEPS):
        mujoco.mj_step(model, data)
        row = step % block
        times[row] = data.time
        record[row] = sensordata


def run_per_step(scene: Scene) -> None:
    model, data = scene.model, scene.data
    tracker = EnergyTracker(scene.config)
    sensordata, dt = data.sensordata, model.opt.timestep
    for _ in range(STEPS):
        mujoco.mj_step(model, data)
        objects, grippers = split(sensordata)
        # mj_step leaves the sensors of the state it started from, one step back.
        tracker.update_arrays(data.time - dt, *objects, *grippers)
    assert tracker.sample_count == STEPS


def run_blocks(scene: Scene, block: int) -> None:
    model, data = scene.model, scene.data
    tracker = EnergyTracker(scene.config)
    sensordata, dt = data.sensordata, model.opt.timestep
    times, record = np.zeros(block), np.zeros((block, model.nsensordata))
    for step in range(STEPS):
        mujoco.mj_step(model, data)
        row = step % block
        times[row] = data.time
        record[row] = sensordata
        if row == block - 1:
            objects, grippers = split(record)
            tracker.update_block(times - dt, *objects, *grippers)
    assert tracker.sample_count == STEPS - STEPS % block
    assert not tracker.failed, tracker.peak_energy_j
    scene.peak_energy_j = tracker.peak_energy_j


def run_history_only(scene: Scene) -> None:
    """Step with the sensors keeping their samples, a block per call; read nothing."""
    mujoco.mj_step(scene.model, scene.data, nstep=STEPS)


def run_history(scene: Scene) -> None:
    """As ``grasp-monitor benchmark``: a block per call, read from the history and scored."""
    model, data = scene.model, scene.data
    tracker = EnergyTracker(scene.config)
    frames = FrameHistory(model, data.history, len(CUBES))
    for _ in range(STEPS // BLOCK):
        # mj_step samples the sensors at the state each step started from.
        times = data.time + np.arange(BLOCK) * model.opt.timestep
        mujoco.mj_step(model, data, nstep=BLOCK)
        tracker.update_block(times, *frames.read(times))
    assert tracker.sample_count == STEPS and not tracker.failed, tracker.peak_energy_j


def bench_scene(repeats: int = REPEATS) -> tuple[dict[str, float], np.ndarray]:
    """Return the best seconds per step of each variant, and the cubes' peak energies."""
    plain, tracked = Scene(sensors=False), Scene(sensors=True)
    kept = Scene(sensors=True, history=BLOCK)
    check_sensors(tracked)
    variants = {
        'raw': (plain, run_raw),
        'read': (tracked, run_read_only),
        'per_step': (tracked, run_per_step),
        'block_100': (tracked, lambda scene: run_blocks(scene, 100)),
        'block_1000': (tracked, lambda scene: run_blocks(scene, 1000)),
        'history_only': (kept, run_history_only),
        'history': (kept, run_history),
    }
    best = dict.fromkeys(variants, np.inf)
    for _ in range(repeats):
        for name, (scene, run) in variants.items():
            scene.restart()
            start = CLOCK()
            run(scene)
            best[name] = min(best[name], (CLOCK() - start) / STEPS)
    # Still a grasp at the end: the cubes did not fall out, so the scene means something.
    for scene in (plain, tracked, kept):
        assert np.all(scene.data.xpos[scene.objects, 2] > 0.45), scene.data.xpos[scene.objects]
    return best, tracked.peak_energy_j


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--samples', type=int, default=SAMPLES,
                        help='samples of the energy() call')
    parser.add_argument('--repeats', type=int, default=REPEATS,
                        help='interleaved runs of the scene, best kept')
    args = parser.parse_args()
    first_s, best_s = bench_energy_call(args.samples)
    step, peak_energy_j = bench_scene(args.repeats)
    raw = step['raw']

    def row(label: str, name: str, target: str) -> str:
        overhead = 100.0 * (step[name] / raw - 1.0)
        return f'| {label} | {step[name] * 1e6:.1f} µs | {overhead:+.0f} % | {target} |'

    print('### Energy metric (`benchmarks/bench_energy.py`)\n')
    print('| measurement | time | vs. raw step | target |')
    print('|---|---|---|---|')
    print(f'| `energy()` on {args.samples:,} samples, one call (best of 3; first {first_s:.2f} s) '
          f'| {best_s:.2f} s | – | < 1 s |')
    print(f'| raw `mj_step`, 3 free cubes + 2 grippers, {STEPS} steps | {raw * 1e6:.1f} µs '
          f'| – | – |')
    print(row('frame sensors + recorded every step, no tracker', 'read', '–'))
    print(row('tracker: `update_arrays` every step', 'per_step', '< 10 %'))
    print(row('tracker: recorded every step, `update_block` every 100 steps',
              'block_100', '< 10 %'))
    print(row('tracker: recorded every step, `update_block` every 1000 steps',
              'block_1000', '< 10 %'))
    print(row(f'frame sensors keeping {BLOCK} samples, {BLOCK} steps per call, no tracker',
              'history_only', '–'))
    print(row(f'tracker: samples kept by MuJoCo, read and `update_block` every {BLOCK} steps '
              '(as `grasp-monitor benchmark`)', 'history', '< 10 %'))
    peaks = ', '.join(f'{value:.3g}' for value in peak_energy_j)
    print(f'\nPeak energy of the cubes over the {STEPS / 1000:g} s tracked: {peaks} J.')
    print(f'MuJoCo {mujoco.__version__}, numpy {np.__version__}, numba {numba.__version__}, '
          f'Python {platform.python_version()}, {os.cpu_count()} CPUs; CPU time, best of '
          f'{args.repeats} interleaved runs.')


if __name__ == '__main__':
    main()
