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
  ``sensordata`` into the block buffer (between memoryviews, as the pipeline copies it);
* pipeline at R Hz: ``OfflinePipeline.step_block``: the drive applied every control tick
  (R Hz), physics and one row copy every step, then per block (``--block`` s) the tactile
  arrays of every step of both pads (``spread_linear``, ``force_vector``), the energy metric
  of every step and one monitor sample per control tick;
* per-step path (reference): ``SimRunner.tick`` every step with ``SimTactileArrays.compute``
  after it, as the tactile_sensor node computes a reading (the old offline loop).

Then one row per scenario (issue 8), the pipeline at the first rate against raw stepping of
the same physics, each from its own steady state with its own drive: pick_lift (the rows
above), multi_block with 3 cubes (squeezed from the start; from t = 1 s; pads at 10 mm,
its gripper blocks are 20 cm wide) and industrial_arm (the arm swinging the held cube;
from t = 1 s). Raw is the least that steps the same physics: ``mj_step`` alone where the
drive's command is constant (pick_lift's hold, multi_block's squeeze), ``mj_step`` plus the
drive applied at the control rate (``Simulator.apply_control``) where it changes
(industrial_arm's trajectory with its inverse-dynamics feedforward).

    PYTHONPATH=src python benchmarks/bench_pipeline.py [--steps 2000] [--profile]
        [--scenarios pick_lift multi_block industrial_arm]
"""

import argparse
from dataclasses import dataclass, field
import math
import platform
import time

from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.offline import OfflinePipeline, PipelineConfig
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import pad_specs, SimTactileArrays
import mujoco
import numpy as np

#: Issue 24: every scenario's pipeline at this fraction of raw stepping (DESIGN.md: 0.5).
TARGET_RATIO = 0.7
REPEATS = 5
STATE = mujoco.mjtState.mjSTATE_INTEGRATION


@dataclass(frozen=True)
class Scenario:
    """A scene measured from a steady state: its parameters, start time and taxel spacing."""

    name: str
    params: dict = field(default_factory=dict)
    hold_s: float = 1.0
    resolution_m: float | None = None  # None: --resolution

    def label(self) -> str:
        return self.name + ''.join(f', {k} {v}' for k, v in self.params.items())


SCENARIOS = {
    'pick_lift': Scenario('pick_lift', hold_s=3.6),
    'multi_block': Scenario('multi_block', {'n_cubes': 3}, 1.0, 0.01),
    'industrial_arm': Scenario('industrial_arm', hold_s=1.0),
}


class Bench:
    """Fresh pipelines of one scenario in its steady state, and the variants to time."""

    def __init__(self, scenario: Scenario, steps: int, resolution_m: float, block_s: float,
                 rates_hz: list[float]) -> None:
        self.scenario = scenario
        self.scene = build_scene(scenario.name, **scenario.params)
        self.steps = steps
        self.resolution_m = scenario.resolution_m or resolution_m
        self.block_s = block_s
        self.rates_hz = rates_hz
        self.final: dict[str, np.ndarray] = {}
        self.state: np.ndarray | None = None
        self.drive_changes = False

    def pipeline(self, rate_hz: float) -> OfflinePipeline:
        """Return a pipeline at ``rate_hz`` run to the steady state."""
        pipeline = OfflinePipeline(
            self.scene, PipelineConfig(control_rate_hz=rate_hz, block_s=self.block_s,
                                       force_test=None),
            pad_specs(self.scene.pads, resolution=[self.resolution_m]),
            drive=default_drive(self.scene))
        pipeline.run(self.scenario.hold_s)
        # Every pass, whatever its control rate, continues from one MuJoCo state.
        if self.state is None:
            self.state = np.empty(mujoco.mj_stateSize(pipeline.sim.model, STATE))
            mujoco.mj_getState(pipeline.sim.model, pipeline.sim.data, self.state, STATE)
            drive, now_s = pipeline.sim.drive, pipeline.sim.time_s
            # A drive that returns one command object keeps the actuators as they are.
            self.drive_changes = drive is not None and drive(now_s) is not drive(
                now_s + 1.0 / rate_hz)
        mujoco.mj_setState(pipeline.sim.model, pipeline.sim.data, self.state, STATE)
        return pipeline

    def raw(self, sensors: bool) -> tuple[float, np.ndarray]:
        """Step the scene's own model (or the pipeline's, with ``sensors``) from the state."""
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

    def raw_with_drive(self) -> tuple[float, np.ndarray]:
        """Step the scene's own model, the drive applied at the first rate, as the pipeline."""
        pipeline = self.pipeline(self.rates_hz[0])
        sim = Simulator(self.scene, command_timeout_s=0.0, drive=pipeline.sim.drive)
        model, data = sim.model, sim.data
        mujoco.mj_setState(model, data, self.state, STATE)
        per_tick = pipeline.steps_per_tick
        start = time.process_time()
        for _ in range(self.steps // per_tick):
            sim.apply_control()
            for _ in range(per_tick):
                mujoco.mj_step(model, data)
        return time.process_time() - start, data.qpos.copy()

    def reference(self) -> tuple[float, np.ndarray]:
        """Time raw stepping of the same physics (module docstring)."""
        return self.raw_with_drive() if self.drive_changes else self.raw(False)

    def floor(self) -> tuple[float, np.ndarray]:
        pipeline = self.pipeline(self.rates_hz[0])
        model, data = pipeline.sim.model, pipeline.sim.data
        rows = [memoryview(row) for row in np.empty((self.steps, model.nsensordata))]
        sensordata = memoryview(data.sensordata)
        start = time.process_time()
        for row in range(self.steps):
            mujoco.mj_step(model, data)
            rows[row][:] = sensordata
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

    def time_all(self, variants: dict | None = None) -> dict[str, float]:
        """Return the fastest seconds per step of each variant, passes interleaved."""
        variants = variants if variants is not None else self.variants()
        fastest = dict.fromkeys(variants, math.inf)
        for _ in range(REPEATS):
            for name, run in variants.items():
                seconds, qpos = run()
                fastest[name] = min(fastest[name], seconds / self.steps)
                self.final[name] = qpos
        return fastest

    def check_same_physics(self, reference: str) -> None:
        for name, qpos in self.final.items():
            if not np.array_equal(qpos, self.final[reference]):
                raise SystemExit(f'{self.scenario.name}: {name} did not step the same physics '
                                 f'as {reference}')

    def describe(self) -> tuple[int, str]:
        """Return the contacts at the start and the taxels of each pad."""
        sample = self.pipeline(self.rates_hz[0])
        return (sample.sim.data.ncon,
                ' + '.join(str(len(pad.layout)) for pad in sample.arrays.pads))


def scenario_row(bench: Bench, timings: dict[str, float] | None = None) -> tuple[str, ...]:
    """Time (unless given) the reference and the pipeline at the first rate; a table row."""
    rate = bench.rates_hz[0]
    pipeline = f'pipeline, control at {rate:g} Hz'
    contacts, taxels = bench.describe()
    if timings is None:
        timings = bench.time_all({'raw': bench.reference,
                                  pipeline: lambda: bench.run_pipeline(rate)})
        bench.check_same_physics('raw')
        raw = timings['raw']
    else:
        raw = timings['raw mj_step']
    what = f'mj_step + drive at {rate:g} Hz' if bench.drive_changes else 'mj_step'
    ratio = raw / timings[pipeline]
    return (bench.scenario.label(), f'{bench.scenario.hold_s:g} s', str(contacts), taxels,
            f'{bench.resolution_m * 1e3:g} mm', what, f'{raw * 1e6:.1f}',
            f'{timings[pipeline] * 1e6:.1f}', f'{ratio:.3f}',
            'meets' if ratio >= TARGET_RATIO else 'MISSES')


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
    parser.add_argument('--scenarios', nargs='+', choices=tuple(SCENARIOS),
                        default=list(SCENARIOS), help='scenarios of the per-scenario table')
    parser.add_argument('--profile', action='store_true', help='profile the pipeline too')
    args = parser.parse_args()
    wall = time.perf_counter()
    bench = Bench(SCENARIOS['pick_lift'], args.steps, args.resolution, args.block, args.rates)
    contacts, taxels = bench.describe()
    timings = bench.time_all()
    bench.check_same_physics('raw mj_step')
    print(f'machine: {platform.processor() or platform.machine()}, '
          f'python {platform.python_version()}, numpy {np.__version__}, '
          f'mujoco {mujoco.__version__}')
    print(f'pick_lift hold phase from t = {bench.scenario.hold_s} s: {contacts} contacts, '
          f'{taxels} taxels; {args.steps} steps per pass, block {args.block:g} s, fastest of '
          f'{REPEATS}; same final state in every row\n')
    raw = timings['raw mj_step']
    print('| variant | µs/step | steps/s | throughput / raw |')
    print('|---|---|---|---|')
    for name, seconds in timings.items():
        print(f'| {name} | {seconds * 1e6:.1f} | {1.0 / seconds:,.0f} | {raw / seconds:.3f} |')
    ratio = raw / timings[f'pipeline, control at {args.rates[0]:g} Hz']
    verdict = 'meets' if ratio >= TARGET_RATIO else 'MISSES'
    print(f'\npipeline at {args.rates[0]:g} Hz / raw = {ratio:.3f}: {verdict} the '
          f'{TARGET_RATIO}x target')
    rows = []
    for name in args.scenarios:
        if name == 'pick_lift':
            rows.append(scenario_row(bench, timings))
        else:
            rows.append(scenario_row(Bench(SCENARIOS[name], args.steps, args.resolution,
                                           args.block, args.rates)))
    print(f'\nPer scenario, the pipeline at {args.rates[0]:g} Hz against raw stepping of the '
          f'same physics (same final state; fastest of {REPEATS}):\n')
    print('| scenario | from | contacts | taxels | spacing | raw | raw µs/step '
          f'| pipeline µs/step | pipeline / raw | {TARGET_RATIO}x |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for row in rows:
        print('| ' + ' | '.join(row) + ' |')
    print(f'\n{time.perf_counter() - wall:.0f} s wall')
    if args.profile:
        profile(bench)


if __name__ == '__main__':
    main()
