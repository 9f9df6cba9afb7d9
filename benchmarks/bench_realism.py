"""What realistic sensing costs the offline pipeline per step: the taxel path at typical / ideal.

Scene: config/pick_lift.yaml (its scripted pick, the simulator at 1 kHz, the tactile
arrays at 500 Hz), measured in the hold phase (from t = 3.6 s). The monitor reads the
pads' taxels as on hardware (``contacts: ""``, no object ground truth: stillness from
``finger_joints``; every event, incipient_slip with the friction unknown, sampled at
500 Hz; ``simulator: ""``, so no force test and every row steps the same physics, checked
bit for bit). In that path the offline pipeline feeds the monitor as its node is fed
(``sim/offline/taxel_feed.py``): every tick's joint states and every tactile frame into
``MonitorInputs`` (tare, noise floor, contact hysteresis, finger motion, slip signals).

Rows, each the fastest of REPEATS interleaved passes of STEPS timed steps, from a fresh
pipeline run to 3.6 s (untimed); CPU time of this process:

* contacts: the same trial with the monitor on the pads' contacts with the object (the
  scenario file's way; incipient_slip off, as it needs taxels): the path the defaults run;
* taxels, ideal: the taxel path, sensors exact (the realism models not run);
* taxels, typical: the same with the tactile arrays and the encoders at ``typical``
  (``core.realism``: every tactile frame and joint state through the model).

The ratio typical / ideal, in one run, is the realism model's cost on the taxel path.

    PYTHONPATH=src python benchmarks/bench_realism.py [--steps 2000] [--repeats 3]
"""

import argparse
import math
import platform
import time

from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
from grasp_monitor.sim.offline import OfflinePipeline
from grasp_monitor.sim.scenes import build_scene
import mujoco
import numpy as np

HOLD_S = 3.6
#: The monitor as on hardware, at the tactile rate (as ``grasp-monitor hardware-eval``).
TAXELS = {'grasp_monitor.contacts': '', 'grasp_metrics.contacts': '',
          'grasp_monitor.object': '', 'grasp_monitor.simulator': '',
          'grasp_monitor.rate': 500.0,
          'grasp_monitor.events': ['contact', 'contact_timeout', 'slip_out', 'grasp',
                                   'incipient_slip'],
          'grasp_monitor.incipient_slip.friction': 0.0}
VARIANTS = {
    'contacts (the defaults)': {'grasp_monitor.simulator': ''},
    'taxels, ideal': TAXELS,
    'taxels, typical': TAXELS | {'tactile_sensor.realism.preset': 'typical',
                                 'mujoco_sim.realism.preset': 'typical'},
}


def pipeline(values: dict) -> OfflinePipeline:
    """Return pick_lift's pipeline with ``values`` on top of its file, run to the hold."""
    config = ScenarioConfig.for_scenario('pick_lift').with_values(values, 'bench_realism')
    settings, params, setup = offline_run(config)
    run = OfflinePipeline(build_scene('pick_lift', settings, **params), setup.pipeline,
                          setup.pads, setup.monitor, setup.drive, setup.metrics)
    run.run(HOLD_S)
    return run


def timed(values: dict, steps: int) -> tuple[float, np.ndarray]:
    """Return CPU s per step of ``steps`` steps from the hold, and the final qpos."""
    run = pipeline(values)
    block = run.block_steps
    if steps % block:
        raise SystemExit(f'--steps must be a multiple of the block ({block} steps)')
    start = time.process_time()
    for _ in range(steps // block):
        run.step_block(block)
    return (time.process_time() - start) / steps, run.sim.data.qpos.copy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=2000, help='physics steps per pass')
    parser.add_argument('--repeats', type=int, default=3, help='passes of each row')
    args = parser.parse_args()
    fastest = dict.fromkeys(VARIANTS, math.inf)
    final = {}
    for _ in range(args.repeats):
        for name, values in VARIANTS.items():
            seconds, qpos = timed(values, args.steps)
            fastest[name] = min(fastest[name], seconds)
            final[name] = qpos
    reference = final['contacts (the defaults)']
    if not all(np.array_equal(qpos, reference) for qpos in final.values()):
        raise SystemExit('the rows did not step the same physics')
    print(f'machine: {platform.processor() or platform.machine()}, '
          f'python {platform.python_version()}, numpy {np.__version__}, '
          f'mujoco {mujoco.__version__}')
    print(f'pick_lift hold phase from t = {HOLD_S:g} s, {args.steps} steps per pass, fastest of '
          f'{args.repeats}; the same final state in every row\n')
    ideal = fastest['taxels, ideal']
    print('| path | µs/step | / taxels, ideal |')
    print('|---|---|---|')
    for name, seconds in fastest.items():
        print(f'| {name} | {seconds * 1e6:.1f} | {seconds / ideal:.3f} |')
    typical = fastest['taxels, typical']
    print(f'\nrealism at typical on the taxel path: {typical / ideal:.3f}x the ideal path '
          f'({(typical - ideal) / typical:.1%} of its time per step); the taxel path (the '
          f"monitor's inputs fed as the node's, ideal) / contacts: "
          f"{ideal / fastest['contacts (the defaults)']:.3f}")


if __name__ == '__main__':
    main()
