"""Offline pipeline throughput: physics, contacts and tactile on both pads every step, vs raw.

Scene: pick_lift with its scripted pick; one control tick per 1 ms physics step, as the
pipeline must run to sense every step. Measured in the hold phase (from t = 3.6 s: the
object lifted, both 320-taxel pads gripping it, 8 contacts), every variant starting
from the same saved state. In the hold the command is constant, so raw ``mj_step``
continues exactly the physics the Simulator steps; the final states are checked equal
bit for bit, so every row pays for the same contacts and solver work.

Rows, each the fastest of REPEATS interleaved passes of STEPS steps:

* raw: ``mujoco.mj_step(model, data)``, one call per step;
* floor: raw plus copying the contact rows (points, frames, geoms, solver forces) out of
  MjData every step: the least any per-step sensing must do in Python;
* runner: ``SimRunner.tick`` (Simulator: command, watchdog, divergence check, telemetry);
* + contacts: and ``Simulator.contacts()`` every step;
* pipeline: and ``SimTactileArrays.compute()`` every step: one extraction, both pads
  (``spread_linear``, ``force_vector``), as the tactile_sensor node does per tick.

    PYTHONPATH=src python benchmarks/bench_pipeline.py [--steps 3000] [--profile]
"""

import argparse
import math
import platform
import time

from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.offline import default_drive
from grasp_monitor.sim.runner import RunConfig, SimRunner
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import pad_specs, SimTactileArrays
import mujoco
import numpy as np

HOLD_S = 3.6
TARGET_RATIO = 0.5
REPEATS = 5
STATE = mujoco.mjtState.mjSTATE_INTEGRATION


class Bench:
    """The scene in its hold phase, a saved state, and the variants to time."""

    def __init__(self, steps: int, resolution_m: float) -> None:
        scene = build_scene('pick_lift')
        self.sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))
        self.runner = SimRunner(self.sim, RunConfig(1.0 / self.sim.timestep_s, 0.0))
        assert self.runner.steps_per_tick == 1
        self.runner.run(HOLD_S)
        self.arrays = SimTactileArrays(self.sim, pad_specs(scene.pads, resolution=[resolution_m]))
        self.steps = steps
        model, data = self.sim.model, self.sim.data
        self.state = np.empty(mujoco.mj_stateSize(model, STATE))
        mujoco.mj_getState(model, data, self.state, STATE)
        self.final: dict[str, np.ndarray] = {}
        capacity = 4 * max(1, data.ncon)
        self.buffers = (np.zeros((capacity, 3)), np.zeros((capacity, 9)),
                        np.zeros((capacity, 2), np.int64), np.zeros(64 * capacity))

    def restore(self) -> None:
        mujoco.mj_setState(self.sim.model, self.sim.data, self.state, STATE)
        mujoco.mj_forward(self.sim.model, self.sim.data)

    def raw(self) -> None:
        model, data = self.sim.model, self.sim.data
        for _ in range(self.steps):
            mujoco.mj_step(model, data)

    def floor(self) -> None:
        model, data = self.sim.model, self.sim.data
        points, frames, geoms, forces = self.buffers
        for _ in range(self.steps):
            mujoco.mj_step(model, data)
            count, rows, contact = data.ncon, data.nefc, data.contact
            points[:count] = contact.pos
            frames[:count] = contact.frame
            geoms[:count] = contact.geom
            forces[:rows] = data.efc_force

    def ticks(self, callback) -> None:
        runner = self.runner
        runner.tick_callbacks.clear()
        if callback is not None:
            runner.add_tick_callback(callback)
        for _ in range(self.steps):
            runner.tick()
        runner.tick_callbacks.clear()

    def variants(self) -> dict:
        return {
            'raw mj_step': self.raw,
            'floor: raw + copy contact rows': self.floor,
            'runner tick': lambda: self.ticks(None),
            'runner + contacts': lambda: self.ticks(lambda sim: sim.contacts()),
            'pipeline: runner + contacts + tactile': lambda: self.ticks(
                lambda sim: self.arrays.compute()),
        }

    def time_all(self) -> dict[str, float]:
        """Return the fastest seconds per step of each variant, passes interleaved."""
        fastest = dict.fromkeys(self.variants(), math.inf)
        for _ in range(REPEATS):
            for name, run in self.variants().items():
                self.restore()
                start = time.perf_counter()
                run()
                fastest[name] = min(fastest[name], (time.perf_counter() - start) / self.steps)
                self.final[name] = self.sim.data.qpos.copy()
        return fastest


def profile(bench: Bench) -> None:
    """Print where the pipeline spends its time (pyinstrument, else cProfile)."""
    run = bench.variants()['pipeline: runner + contacts + tactile']
    bench.restore()
    try:
        from pyinstrument import Profiler
    except ImportError:
        import cProfile
        import pstats
        profiler = cProfile.Profile()
        profiler.runcall(run)
        pstats.Stats(profiler).sort_stats('cumulative').print_stats(30)
        return
    profiler = Profiler(interval=0.0001)
    profiler.start()
    run()
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--steps', type=int, default=3000, help='physics steps per pass')
    parser.add_argument('--resolution', type=float, default=0.003, help='taxel spacing, m')
    parser.add_argument('--profile', action='store_true', help='profile the pipeline too')
    args = parser.parse_args()
    bench = Bench(args.steps, args.resolution)
    bench.restore()
    contacts = bench.sim.contacts()
    bench.arrays.compute()
    pad_contacts = [pad.contact_count for pad in bench.arrays.pads]
    timings = bench.time_all()
    reference = bench.final['raw mj_step']
    for name, qpos in bench.final.items():
        if not np.array_equal(qpos, reference):
            raise SystemExit(f'{name} did not step the same physics as raw mj_step')
    print(f'machine: {platform.processor() or platform.machine()}, '
          f'python {platform.python_version()}, numpy {np.__version__}, '
          f'mujoco {mujoco.__version__}')
    print(f'pick_lift hold phase from t = {HOLD_S} s: {len(contacts)} contacts '
          f'({pad_contacts[0]} + {pad_contacts[1]} on the pads), '
          f'{" + ".join(str(len(p.layout)) for p in bench.arrays.pads)} taxels; '
          f'{args.steps} steps per pass, fastest of {REPEATS}; '
          'same final state in every row\n')
    raw = timings['raw mj_step']
    print('| variant | µs/step | steps/s | throughput / raw |')
    print('|---|---|---|---|')
    for name, seconds in timings.items():
        print(f'| {name} | {seconds * 1e6:.1f} | {1.0 / seconds:,.0f} | {raw / seconds:.3f} |')
    ratio = raw / timings['pipeline: runner + contacts + tactile']
    verdict = 'meets' if ratio >= TARGET_RATIO else 'MISSES'
    print(f'\npipeline / raw = {ratio:.3f}: {verdict} the {TARGET_RATIO}x target '
          f'(a budget of {raw / TARGET_RATIO * 1e6 - raw * 1e6:.1f} µs of Python per step)')
    if args.profile:
        profile(bench)


if __name__ == '__main__':
    main()
