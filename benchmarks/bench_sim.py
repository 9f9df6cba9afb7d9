"""Simulation throughput: the paced runner at real-time factor 0 against raw mj_step.

Both run on the same compiled model in the same process. The runner applies
servo commands (the scenario's drive) once per control tick and reads joint
states and body poses every tick, as the node does, without ROS.

    python benchmarks/bench_sim.py [--seconds 5] [--control-rate 1000]
"""

import argparse
import platform
import time

from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene, SCENARIOS
import mujoco


def raw_steps_per_s(model: mujoco.MjModel, seconds: float, nstep: int) -> float:
    data = mujoco.MjData(model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    steps = int(seconds / model.opt.timestep)
    start = time.perf_counter()
    for _ in range(steps // nstep):
        mujoco.mj_step(model, data, nstep=nstep)
    return steps / (time.perf_counter() - start)


def runner_steps_per_s(scene, seconds: float, control_rate_hz: float) -> float:
    sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))

    def read(sim: Simulator) -> None:
        sim.joint_states()
        sim.body_arrays()

    runner = SimRunner(sim, RunConfig(control_rate_hz, 0.0), on_tick=read)
    start = time.perf_counter()
    runner.run(seconds)
    return runner.ticks * runner.steps_per_tick / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--seconds', type=float, default=5.0, help='simulated s per run')
    parser.add_argument('--control-rate', type=float, default=1000.0, help='ticks per s')
    args = parser.parse_args()
    print(f'machine: {platform.processor() or platform.machine()}, '
          f'python {platform.python_version()}, mujoco {mujoco.__version__}')
    print(f'control rate {args.control_rate:g} Hz, {args.seconds:g} simulated s per run\n')
    print('| scenario | raw mj_step (steps/s) | runner (steps/s) | runner / raw '
          '| real-time factor at 0 |')
    print('|---|---|---|---|---|')
    for name in SCENARIOS:
        scene = build_scene(name)
        model = mujoco.MjModel.from_xml_string(scene.mjcf)
        nstep = RunConfig(args.control_rate, 0.0).steps_per_tick(model.opt.timestep)
        raw = raw_steps_per_s(model, args.seconds, nstep)
        runner = runner_steps_per_s(scene, args.seconds, args.control_rate)
        print(f'| {name} | {raw:,.0f} | {runner:,.0f} | {runner / raw:.2f} '
              f'| {runner * model.opt.timestep:.1f} |')


if __name__ == '__main__':
    main()
