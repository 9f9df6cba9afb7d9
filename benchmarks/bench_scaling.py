"""How the offline pipeline's costs grow with cubes, taxels and contacts; Markdown tables.

    PYTHONPATH=src python benchmarks/bench_scaling.py [--seconds 0.5] [--repeats 3]

Every figure is CPU time of this process (``time.process_time``) per physics step, the best
of REPEATS runs, so other jobs on a shared machine inflate it as little as possible.

1. Cubes: multi_block with n = 1…11 cubes (its default settings and drive), the
   ``OfflinePipeline`` at 100 Hz control (block 0.1 s, pads at 10 mm), from t = 0 for
   SECONDS: raw ``mj_step`` on the scene's own model from the same start, the pipeline per
   step, and its parts: stepping (MuJoCo with the pipeline's sensors, and the per-step row
   copy), the control ticks, the tactile arrays, the energy metric, the monitor.
2. Taxels: pick_lift in its hold phase (8 contacts, 4 per pad), pads at resolutions giving
   about 50…2000 taxels per pad: ``PadGroup.compute_block`` per step (both pads, blocks
   of 100 steps) and ``SimTactileArrays.compute`` (extraction + both pads, one step).
3. Contacts: one pick_lift pad (320 taxels, 3 mm) fed K synthetic contacts per step on its
   gripping face (seeded, uniform over the face, 10 N normal force), K = 1…256, in blocks of
   100 steps; ``compute`` on one step of the same contacts for comparison.
"""

import argparse
import os
import platform
import time

from grasp_monitor.core.values import Contacts
from grasp_monitor.sim.offline import OfflinePipeline, PipelineConfig
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import pad_specs, SimTactileArrays
import mujoco
import numpy as np

CUBES = tuple(range(1, 12))
RESOLUTIONS_M = (0.0075, 0.005, 0.0035, 0.0022, 0.0015, 0.001)
CONTACTS = (1, 4, 16, 64, 256)
BLOCK = 100


def timed(run, repeats: int) -> float:
    """Return the fastest CPU seconds of ``repeats`` calls of ``run()`` (which sets up first)."""
    best = np.inf
    for _ in range(repeats):
        body = run()
        start = time.process_time()
        body()
        best = min(best, time.process_time() - start)
    return best


def pipeline_parts(scene, seconds: float) -> dict[str, float]:
    """Run a fresh pipeline for ``seconds``; return CPU seconds per step of it and its parts."""
    pipeline = OfflinePipeline(
        scene, PipelineConfig(control_rate_hz=100.0, block_s=0.1),
        pad_specs(scene.pads, resolution=[0.01]), drive=default_drive(scene))
    spent = dict.fromkeys(('control', 'tactile', 'energy', 'monitor'), 0.0)

    def wrap(owner, name, key):
        method = getattr(owner, name)

        def timed_call(*args, **kwargs):
            start = time.process_time()
            result = method(*args, **kwargs)
            spent[key] += time.process_time() - start
            return result
        setattr(owner, name, timed_call)
    wrap(pipeline.sim, 'apply_control', 'control')
    wrap(pipeline.tactile, 'compute_block', 'tactile')
    wrap(pipeline.tracker, 'update_block', 'energy')
    wrap(pipeline.monitor, 'update', 'monitor')
    spent['evaluate'] = 0.0
    wrap(pipeline.evaluation, 'evaluate', 'evaluate')
    start = time.process_time()
    pipeline.run(seconds)
    total = time.process_time() - start
    steps = pipeline.steps
    # Stepping: what is neither the control ticks nor the block evaluation.
    spent['stepping'] = total - spent['control'] - spent['evaluate']
    spent['other'] = spent.pop('evaluate') - spent['tactile'] - spent['energy'] \
        - spent['monitor']
    spent['pipeline'] = total
    return {key: value / steps for key, value in spent.items()}


def raw_step(scene, seconds: float, repeats: int) -> float:
    """CPU seconds per ``mj_step`` of the scene's own model from its start, drive held."""
    from grasp_monitor.sim.backend import Simulator
    steps = round(seconds / scene.settings.timestep_s)

    def run():
        sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))
        sim.apply_control()
        return lambda: mujoco.mj_step(sim.model, sim.data, nstep=steps)
    return timed(run, repeats) / steps


def cubes_table(seconds: float, repeats: int) -> None:
    print('### Cubes (multi_block, pipeline at 100 Hz, pads at 10 mm)\n')
    print('| cubes | contacts | raw mj_step | pipeline | / raw | stepping | control | tactile '
          '| energy | monitor | other |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for n in CUBES:
        scene = build_scene('multi_block', n_cubes=n)
        raw = raw_step(scene, seconds, repeats)
        parts = min((pipeline_parts(scene, seconds) for _ in range(repeats)),
                    key=lambda p: p['pipeline'])
        probe = OfflinePipeline(scene, PipelineConfig(force_test=None),
                                pad_specs(scene.pads, resolution=[0.01]),
                                drive=default_drive(scene))
        probe.run(0.1)
        cells = ' | '.join(f'{parts[k] * 1e6:.1f}' for k in (
            'stepping', 'control', 'tactile', 'energy', 'monitor', 'other'))
        print(f'| {n} | {probe.sim.data.ncon} | {raw * 1e6:.1f} | {parts["pipeline"] * 1e6:.1f} '
              f'| {raw / parts["pipeline"]:.2f} | {cells} |')
    print('\nµs per physics step (CPU). contacts: MuJoCo contacts at t = 0.1 s. stepping = '
          "mj_step with the pipeline's sensors + the per-step row copy; control = drive and "
          'force test every 10 ms; other = unpacking sensor rows and monitor samples.\n')


def hold_phase(resolution_m: float) -> OfflinePipeline:
    scene = build_scene('pick_lift')
    pipeline = OfflinePipeline(scene, PipelineConfig(force_test=None, block_s=0.1),
                               pad_specs(scene.pads, resolution=[resolution_m]),
                               drive=default_drive(scene))
    pipeline.run(3.6)
    return pipeline


def taxels_table(repeats: int) -> None:
    print('### Taxels per pad (pick_lift hold phase, 4 contacts per pad)\n')
    print('| taxels per pad | resolution | compute_block, both pads | compute per step '
          '(extraction + both pads) |')
    print('|---|---|---|---|')
    for resolution in RESOLUTIONS_M:
        pipeline = hold_phase(resolution)
        pads = pipeline.arrays.pads
        pipeline.step_block(pipeline.block_steps)  # fills the block buffer
        record = pipeline.stepper.record
        inputs = pipeline.contact_inputs(record)
        block = timed(lambda: lambda: pipeline.tactile.compute_block(*inputs),
                      repeats) / record.shape[0]
        arrays = SimTactileArrays(pipeline.sim, pipeline.arrays.specs)
        single = timed(lambda: lambda: [arrays.compute() for _ in range(100)], repeats) / 100
        print(f'| {len(pads[0].layout)} | {resolution * 1e3:g} mm | {block * 1e6:.1f} µs/step '
              f'| {single * 1e6:.1f} µs/step |')
    print()


def contacts_table(repeats: int) -> None:
    print('### Contacts per step (one pick_lift pad, 320 taxels at 3 mm)\n')
    print('| contacts per step | compute_block | compute (one step) |')
    print('|---|---|---|')
    pipeline = hold_phase(0.003)
    pad = pipeline.arrays.pads[0]
    layout = pad.layout.positions_in_body
    face = layout[np.isclose(layout[:, 1], layout[:, 1].min())]  # the face towards the object
    rng = np.random.default_rng(0)
    identity = (np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))
    for k in CONTACTS:
        count = k * BLOCK
        low, high = face.min(axis=0), face.max(axis=0)
        points = rng.uniform(low, high, (count, 3))
        # Seen from the pad: normal out of the gripping face (-y), force pushing along it.
        frame = np.tile(np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]]),
                        (count, 1, 1))
        force = np.tile([10.0, 0.0, 0.0], (count, 1))
        sample = np.repeat(np.arange(BLOCK), k)
        positions, quaternions = np.zeros((BLOCK, 3)), np.tile(identity[1], (BLOCK, 1))
        block = timed(lambda: lambda: pad.compute_block(
            sample, points, frame, force, positions, quaternions), repeats) / BLOCK
        # The same contacts of one step as the simulator's Contacts (pad as geom1).
        geom = int(pad.geom_ids[0])
        contacts = Contacts(points[:k], frame[:k], force[:k], np.full(k, geom),
                            np.full(k, geom + 1000), np.zeros(k, int), np.zeros(k, int))
        single = timed(lambda: lambda: [pad.compute(contacts, identity) for _ in range(100)],
                       repeats) / 100
        print(f'| {k} | {block * 1e6:.1f} µs/step | {single * 1e6:.1f} µs |')
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--seconds', type=float, default=0.5,
                        help='simulated seconds per cube run (default 0.5)')
    parser.add_argument('--repeats', type=int, default=3, help='repetitions, best kept')
    parser.add_argument('--only', choices=('cubes', 'taxels', 'contacts'), nargs='*',
                        default=['cubes', 'taxels', 'contacts'], help='tables to print')
    args = parser.parse_args()
    wall = time.perf_counter()
    if 'cubes' in args.only:
        cubes_table(args.seconds, args.repeats)
    if 'taxels' in args.only:
        taxels_table(args.repeats)
    if 'contacts' in args.only:
        contacts_table(args.repeats)
    print(f'MuJoCo {mujoco.__version__}, numpy {np.__version__}, Python '
          f'{platform.python_version()}, {os.cpu_count()} CPUs, load average '
          f'{os.getloadavg()[0]:.1f} at the end; {time.perf_counter() - wall:.0f} s wall.')


if __name__ == '__main__':
    main()
