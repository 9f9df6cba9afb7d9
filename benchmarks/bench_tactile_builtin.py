"""Tactile with slip: ours (force + slip channel) against MuJoCo's built-in ``<tactile>`` sensor.

pick_lift's hold (the object squeezed and lifted, from ``--hold-s``), the same
state in three models of the same scene:

* bare: the scene alone, stepped to the hold; its state is copied into the others;
* ours: the offline pipeline's sensors with the pads' contact sensors reporting
  ``linvel`` (``with_pipeline_sensors(..., velocities=True)``), then per block
  of ``--block`` steps ``SensorLayout.contact_inputs`` and ``PadGroup.compute_block``
  with ``slip`` on: force (``force_vector``) and signed slip at each taxel;
* built-in: one ``<tactile>`` sensor per face of each pad box, on a ``plate``
  mesh whose vertices are our taxels' grid on that face (equal counts):
  depth and unsigned |v.t1|, |v.t2| at each vertex.

Each model's sensor cost is the time of ``mj_sensorPos``, ``mj_sensorVel`` and
``mj_sensorAcc`` after each ``mj_step`` (MuJoCo computes them again, as in the
step: ours holds every pipeline sensor, ground truth and energy frames too);
ours adds the block computation per step. Each figure is the fastest of
``--repeats`` passes over the same ``--steps`` steps from the same state.

    python benchmarks/bench_tactile_builtin.py [--steps 1000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import time

from grasp_monitor.core.tactile import PadGroup
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.contacts import geom_shapes
from grasp_monitor.sim.offline import SensorLayout, with_pipeline_sensors
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import pad_specs, SimTactileArrays
import mujoco
import numpy as np

#: The issue's target: ours at least this many times faster than the built-in sensor.
TARGET_RATIO = 4.0
SLOTS = 8
#: Per face of a box: the plate's two half-extents and its offset along the normal
#: (indices of the box's half-sizes), and the rotation taking the plate's -z side (where
#: MuJoCo's builtin plate lies) onto the face.
FACES = (((0, 2, 1), '90 0 0'), ((0, 2, 1), '-90 0 0'), ((0, 1, 2), '0 0 0'),
         ((0, 1, 2), '180 0 0'), ((2, 1, 0), '0 -90 0'), ((2, 1, 0), '0 90 0'))


def with_builtin_tactile(scene, resolution_m: float):
    """Return ``scene`` with MuJoCo tactile sensors over every face of its pads' boxes."""
    model = mujoco.MjModel.from_xml_string(scene.mjcf)
    mjcf = scene.mjcf
    assets, sensors = [], []
    for pad in scene.pads:
        shapes = geom_shapes(model, [pad])
        assert len(shapes) == 1 and shapes[0].kind == 'box', 'one box per pad'
        assert np.allclose(shapes[0].position_in_body, 0.0) and \
            np.allclose(shapes[0].quaternion_in_body, [1.0, 0.0, 0.0, 0.0])
        half = shapes[0].size
        geoms = []
        for face, ((a, b, c), euler) in enumerate(FACES):
            mesh = f'tactile_{pad}_{face}'
            counts = (round(2 * half[a] / resolution_m), round(2 * half[b] / resolution_m))
            assets.append(f'<mesh name="{mesh}" builtin="plate" params="{counts[0]} '
                          f'{counts[1]}" scale="{half[a]} {half[b]} {half[c]}"/>')
            geoms.append(f'<geom name="{mesh}" type="mesh" mesh="{mesh}" euler="{euler}" '
                         'contype="0" conaffinity="0" mass="0"/>')
            sensors.append(f'<tactile geom="{mesh}" mesh="{mesh}"/>')
        start = mjcf.index(f'<body name="{pad}"')
        end = mjcf.index('</body>', start)
        mjcf = mjcf[:end] + ''.join(geoms) + mjcf[end:]
    mjcf = mjcf.replace('<worldbody>', f'<asset>{"".join(assets)}</asset><worldbody>', 1)
    end = mjcf.rindex('</mujoco>')
    mjcf = mjcf[:end] + f'<sensor>{"".join(sensors)}</sensor>' + mjcf[end:]
    return dataclasses.replace(scene, mjcf=mjcf)


def hold_state(scene, hold_s: float) -> np.ndarray:
    """Return the full physics state of ``scene`` at ``hold_s`` under its default drive."""
    sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))
    SimRunner(sim, RunConfig(1000.0, 0.0)).run(hold_s)
    return sim.save_state()


def sensor_passes(sim: Simulator, state: np.ndarray, steps: int, repeats: int,
                  keep_rows: bool = False) -> tuple[float, np.ndarray | None]:
    """Return the fastest pass's µs per step in the sensor stages, and its rows (or None).

    The drive commands the servos every step, as in the hold (not timed).
    """
    model, data = sim.model, sim.data
    best = np.inf
    rows = np.empty((steps, model.nsensordata)) if keep_rows else None
    for _ in range(repeats):
        sim.restore_state(state)
        total = 0
        for step in range(steps):
            sim.apply_control()
            mujoco.mj_step(model, data)
            begin = time.perf_counter_ns()
            mujoco.mj_sensorPos(model, data)
            mujoco.mj_sensorVel(model, data)
            mujoco.mj_sensorAcc(model, data)
            total += time.perf_counter_ns() - begin
            if rows is not None:
                rows[step] = data.sensordata
        best = min(best, total / steps / 1000.0)
    return best, rows


def block_pass(layout: SensorLayout, group: PadGroup, rows: np.ndarray, block: int,
               repeats: int) -> float:
    """Return the fastest pass's µs per step of unpacking rows and computing the pads."""
    best = np.inf
    for _ in range(repeats):
        begin = time.perf_counter_ns()
        for first in range(0, rows.shape[0], block):
            inputs, _ = layout.contact_inputs(rows[first:first + block])
            group.compute_block(*inputs)
        best = min(best, (time.perf_counter_ns() - begin) / rows.shape[0] / 1000.0)
    return best


def measure(resolution_m: float, state: np.ndarray, args) -> dict:
    """Return the figures of one taxel resolution."""
    scene = build_scene('pick_lift')
    specs = pad_specs(scene.pads, resolution=[resolution_m], slip=[True])
    truth = scene.objects[:1]
    ours_scene = with_pipeline_sensors(scene, scene.pads, SLOTS, truth, '', False, True)
    ours_sim = Simulator(ours_scene, command_timeout_s=0.0, drive=default_drive(scene))
    arrays = SimTactileArrays(ours_sim, specs)
    group = PadGroup(arrays.pads)
    plain = PadGroup(SimTactileArrays(ours_sim, pad_specs(scene.pads, resolution=[resolution_m]))
                     .pads)
    layout = SensorLayout(ours_sim.model, ours_scene, scene.pads, SLOTS, truth, False,
                          False, True)
    builtin_sim = Simulator(with_builtin_tactile(scene, resolution_m), command_timeout_s=0.0,
                            drive=default_drive(scene))
    builtin, builtin_data = builtin_sim.model, builtin_sim.data
    ours_sensors, rows = sensor_passes(ours_sim, state, args.steps, args.repeats,
                                       keep_rows=True)
    builtin_sensors, _ = sensor_passes(builtin_sim, state, args.steps, args.repeats)
    assert np.array_equal(builtin_data.qpos, ours_sim.data.qpos), 'the same physics'
    ours_blocks = block_pass(layout, group, rows, args.block, args.repeats)
    force_only = block_pass(layout, plain, rows, args.block, args.repeats)
    # the built-in sensor's output: depth, |v.t1|, |v.t2| in three blocks per sensor
    speeds = []
    for sensor in range(builtin.nsensor):
        adr, dim = builtin.sensor_adr[sensor], builtin.sensor_dim[sensor]
        speeds.append(builtin_data.sensordata[adr + dim // 3:adr + dim])
    contacts = [int(np.count_nonzero(rows[-1, c][::layout._pad_slot_width]))
                for c, _, _ in layout.pad_columns]
    return {
        'taxels': [len(pad.layout) for pad in arrays.pads],
        'builtin_taxels': int(sum(builtin.sensor_dim) // 3),
        'contacts': contacts,
        'ours_sensors': ours_sensors, 'ours_blocks': ours_blocks, 'force_only': force_only,
        'builtin': builtin_sensors,
        # at the last step
        'ours_slip_max': max(float(np.abs(pad.slip[-1]).max()) for pad in group.pads),
        'builtin_slip_max': float(np.abs(np.concatenate(speeds)).max()),
    }


def main() -> None:
    """Measure and print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=1000, help='steps timed from the hold')
    parser.add_argument('--repeats', type=int, default=5, help='passes; the fastest counts')
    parser.add_argument('--block', type=int, default=100, help='steps per block (ours)')
    parser.add_argument('--hold-s', type=float, default=3.0, help='start of the hold, s')
    parser.add_argument('--resolutions', type=float, nargs='+', default=[0.003, 0.001],
                        help='taxel spacings, m')
    args = parser.parse_args()
    state = hold_state(build_scene('pick_lift'), args.hold_s)
    print(f'machine: {platform.processor() or platform.machine()}, '
          f'python {platform.python_version()}, numpy {np.__version__}, '
          f'mujoco {mujoco.__version__}')
    print(f'pick_lift hold from {args.hold_s} s, {args.steps} steps, fastest of '
          f'{args.repeats} passes; ours in blocks of {args.block} steps\n')
    print('| taxels per pad (both pads) | pad contacts | ours: sensors | ours: blocks, force '
          '+ slip (force only) | ours total | built-in `<tactile>` | built-in / ours | '
          'max slip at the end, ours / built-in |')
    print('|---|---|---|---|---|---|---|---|')
    ratios = []
    for resolution in args.resolutions:
        f = measure(resolution, state, args)
        assert f['builtin_taxels'] == sum(f['taxels']), (f['builtin_taxels'], f['taxels'])
        total = f['ours_sensors'] + f['ours_blocks']
        ratios.append(f['builtin'] / total)
        print(f'| {f["taxels"][0]} ({sum(f["taxels"])}) at {resolution * 1000:g} mm | '
              f'{"+".join(map(str, f["contacts"]))} | {f["ours_sensors"]:.1f} µs | '
              f'{f["ours_blocks"]:.1f} µs ({f["force_only"]:.1f}) | {total:.1f} µs | '
              f'{f["builtin"]:.1f} µs | '
              f'{ratios[-1]:.1f}x | {f["ours_slip_max"] * 1000:.3f} / '
              f'{f["builtin_slip_max"] * 1000:.3f} mm/s |')
    print("\nµs per physics step. ours: sensors = the pipeline's MuJoCo sensors (pad contact "
          'sensors with linvel, pad poses, ground truth, energy frames); blocks = unpacking '
          'the rows and PadGroup.compute_block with slip on. built-in: its sensors alone. '
          f'Target: built-in / ours >= {TARGET_RATIO:g}: '
          f'{"met" if min(ratios) >= TARGET_RATIO else "NOT met"} '
          f'({", ".join(f"{r:.1f}x" for r in ratios)}).')


if __name__ == '__main__':
    main()
