"""Offline pipeline throughput (the engine of ``grasp-monitor run``) against raw ``mj_step``.

Scene: pick_lift with its scripted pick, measured in the hold phase (from t = 3.6 s: the
object lifted, both pads gripping it). Every pass starts from the same state: a fresh
``OfflinePipeline`` run to 3.6 s (untimed), then STEPS timed steps. The force test is off
(the monitor still runs and fires its events), so the control is constant in the hold and
raw ``mj_step`` continues exactly the physics the pipeline steps; the final states are
checked equal bit for bit, so every row pays for the same contacts and solver work.

Times are CPU time of this process (``time.process_time``): on a machine shared with other
jobs, wall time also counts the time the scheduler gives to others, which inflates Python
loops far more than MuJoCo's C; CPU time is what the work itself costs. Rows, each the
fastest of REPEATS interleaved passes:

* raw: ``mujoco.mj_step(model, data)`` on the scene's own model, one call per step;
* raw + sensors: the same on the pipeline's model (contact and frame sensors computed by
  MuJoCo in C);
* floor: raw + sensors plus the per-step Python the pipeline must do: one copy of
  ``sensordata`` into the block buffer;
* pipeline at R Hz: ``OfflinePipeline.step_block``: the drive applied every control tick
  (R Hz), physics and one row copy every step, then per block (``--block`` s) the tactile
  arrays of every step of both pads (``spread_linear``, ``force_vector``), the energy metric
  of every step and one monitor sample per control tick;
* per-step path (reference): ``SimRunner.tick`` every step with ``SimTactileArrays.compute``
  after it, as the tactile_sensor node computes a reading (the old offline loop).

    PYTHONPATH=src python benchmarks/bench_pipeline.py [--steps 2000] [--profile]
"""

import argparse
import math
import platform
import time

from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.offline import default_drive
from grasp_monitor.sim.pipeline import OfflinePipeline, PipelineConfig
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
    """Fresh pipelines in the hold phase, and the variants to time."""

    def __init__(self, steps: int, resolution_m: float, block_s: float,
                 rates_hz: list[float]) -> None:
        self.scene = build_scene('pick_lift')
        self.steps = steps
        self.resolution_m = resolution_m
        self.block_s = block_s
        self.rates_hz = rates_hz
        self.final: dict[str, np.ndarray] = {}
        self.state: np.ndarray | None = None

    def pipeline(self, rate_hz: float) -> OfflinePipeline:
        """Return a pipeline at ``rate_hz`` run to the hold phase."""
        pipeline = OfflinePipeline(
            self.scene, PipelineConfig(control_rate_hz=rate_hz, block_s=self.block_s,
                                       force_test=None),
            pad_specs(self.scene.pads, resolution=[self.resolution_m]),
            drive=default_drive(self.scene))
        pipeline.run(HOLD_S)
        # Every pass, whatever its control rate, continues from one MuJoCo state.
        if self.state is None:
            self.state = np.empty(mujoco.mj_stateSize(pipeline.sim.model, STATE))
            mujoco.mj_getState(pipeline.sim.model, pipeline.sim.data, self.state, STATE)
        mujoco.mj_setState(pipeline.sim.model, pipeline.sim.data, self.state, STATE)
        return pipeline

    def raw(self, sensors: bool) -> tuple[float, np.ndarray]:
        pipeline = self.pipeline(self.rates_hz[0])
        model = pipeline.sim.model
        if not sensors:
            # The scene's own model, its actuators set to the same (constant) command.
            plain = Simulator(self.scene, command_timeout_s=0.0, drive=pipeline.sim.drive)
            plain.data.time = pipeline.sim.time_s
            plain.apply_control()
            model = plain.model
        data = mujoco.MjData(model)
        mujoco.mj_setState(model, data, self.state, STATE)
        start = time.process_time()
        for _ in range(self.steps):
            mujoco.mj_step(model, data)
        return time.process_time() - start, data.qpos.copy()

    def floor(self) -> tuple[float, np.ndarray]:
        pipeline = self.pipeline(self.rates_hz[0])
        model, data = pipeline.sim.model, pipeline.sim.data
        rows, sensordata = list(np.empty((self.steps, model.nsensordata))), data.sensordata
        start = time.process_time()
        for row in range(self.steps):
            mujoco.mj_step(model, data)
            rows[row][...] = sensordata
        return time.process_time() - start, data.qpos.copy()

    def run_pipeline(self, rate_hz: float, pipeline: OfflinePipeline | None = None
                     ) -> tuple[float, np.ndarray]:
        pipeline = pipeline or self.pipeline(rate_hz)
        block = pipeline.block_steps
        if self.steps % block:
            raise SystemExit(f'--steps must be a multiple of the block ({block} steps)')
        start = time.process_time()
        for _ in range(self.steps // block):
            pipeline.step_block(block)
        return time.process_time() - start, pipeline.sim.data.qpos.copy()

    def per_step(self) -> tuple[float, np.ndarray]:
        pipeline = self.pipeline(self.rates_hz[0])
        sim = pipeline.sim
        runner = SimRunner(sim, RunConfig(1.0 / sim.timestep_s, 0.0))
        arrays = SimTactileArrays(sim, pipeline.arrays.specs)
        runner.add_tick_callback(lambda _: arrays.compute())
        start = time.process_time()
        for _ in range(self.steps):
            runner.tick()
        return time.process_time() - start, sim.data.qpos.copy()

    def variants(self) -> dict:
        rows = {'raw mj_step': lambda: self.raw(False),
                'raw mj_step + pipeline sensors': lambda: self.raw(True),
                'floor: + sensordata row copy': self.floor}
        for rate_hz in self.rates_hz:
            rows[f'pipeline, control at {rate_hz:g} Hz'] = (
                lambda rate_hz=rate_hz: self.run_pipeline(rate_hz))
        rows['per-step path: runner tick + SimTactileArrays.compute'] = self.per_step
        return rows

    def time_all(self) -> dict[str, float]:
        """Return the fastest seconds per step of each variant, passes interleaved."""
        fastest = dict.fromkeys(self.variants(), math.inf)
        for _ in range(REPEATS):
            for name, run in self.variants().items():
                seconds, qpos = run()
                fastest[name] = min(fastest[name], seconds / self.steps)
                self.final[name] = qpos
        return fastest


def profile(bench: Bench) -> None:
    """Print where the pipeline at the first rate spends its time (pyinstrument)."""
    from pyinstrument import Profiler
    pipeline = bench.pipeline(bench.rates_hz[0])
    profiler = Profiler(interval=0.0001)
    profiler.start()
    bench.run_pipeline(bench.rates_hz[0], pipeline)
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=2000, help='physics steps per pass')
    parser.add_argument('--resolution', type=float, default=0.003, help='taxel spacing, m')
    parser.add_argument('--block', type=float, default=PipelineConfig().block_s,
                        help='pipeline block, s (default: PipelineConfig.block_s)')
    parser.add_argument('--rates', type=float, nargs='+', default=[100.0, 1000.0],
                        help='control rates of the pipeline rows, Hz')
    parser.add_argument('--profile', action='store_true', help='profile the pipeline too')
    args = parser.parse_args()
    bench = Bench(args.steps, args.resolution, args.block, args.rates)
    sample = bench.pipeline(args.rates[0])
    taxels = ' + '.join(str(len(pad.layout)) for pad in sample.arrays.pads)
    contacts = sample.sim.data.ncon
    wall = time.perf_counter()
    timings = bench.time_all()
    reference = bench.final['raw mj_step']
    for name, qpos in bench.final.items():
        if not np.array_equal(qpos, reference):
            raise SystemExit(f'{name} did not step the same physics as raw mj_step')
    print(f'machine: {platform.processor() or platform.machine()}, '
          f'python {platform.python_version()}, numpy {np.__version__}, '
          f'mujoco {mujoco.__version__}')
    print(f'pick_lift hold phase from t = {HOLD_S} s: {contacts} contacts, {taxels} taxels; '
          f'{args.steps} steps per pass, block {args.block:g} s, fastest of {REPEATS}; '
          f'same final state in every row; {time.perf_counter() - wall:.0f} s wall\n')
    raw = timings['raw mj_step']
    print('| variant | µs/step | steps/s | throughput / raw |')
    print('|---|---|---|---|')
    for name, seconds in timings.items():
        print(f'| {name} | {seconds * 1e6:.1f} | {1.0 / seconds:,.0f} | {raw / seconds:.3f} |')
    ratio = raw / timings[f'pipeline, control at {args.rates[0]:g} Hz']
    verdict = 'meets' if ratio >= TARGET_RATIO else 'MISSES'
    print(f'\npipeline at {args.rates[0]:g} Hz / raw = {ratio:.3f}: {verdict} the '
          f'{TARGET_RATIO}x target')
    if args.profile:
        profile(bench)


if __name__ == '__main__':
    main()
