"""The simulator's servo watchdog trips within its timeout plus one tick, over many trips.

On simulated time, deterministic: random command gaps from a seed, some commands arriving
late with an older stamp. test_hw_moteus_watchdog.py bounds the moteus backend's the same way.
"""

from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import RunConfig
from grasp_monitor.sim.scenes import build_scene
import numpy as np

TRIPS = 200


def hold_command(n, maximum_torque):
    """Zero torque without position feedback: the servos' state does not matter."""
    return ServoCommand(np.full(n, np.nan), np.zeros(n), np.zeros(n), np.ones(n), np.ones(n),
                        np.asarray(maximum_torque, float))


def test_the_simulator_watchdog_trips_within_timeout_plus_one_tick_over_200_trips():
    timeout_s = 0.05
    sim = Simulator(build_scene('pick_lift'), command_timeout_s=timeout_s)
    steps = RunConfig().steps_per_tick(sim.timestep_s)
    tick_s = steps * sim.timestep_s
    command = hold_command(len(sim.joints), sim.servo_config.maximum_torque)
    rng = np.random.default_rng(20)
    delays, quiet, late = [], [], 0
    while len(delays) < TRIPS:
        # a command, a third of them reaching the simulator up to 10 ticks after their stamp
        stamp_s = None
        if rng.random() < 1 / 3:
            stamp_s = max(sim.time_s - int(rng.integers(0, 11)) * tick_s, 1e-9)
            late += 1
        sim.set_command(command, stamp_s)
        sent_s = stamp_s if stamp_s is not None else sim.time_s
        tripped_at = None
        for _ in range(int(rng.integers(1, round(2 * timeout_s / tick_s) + 4))):
            start_s = sim.time_s
            sim.step(steps)
            if tripped_at is None and sim.servos.watchdog_tripped:
                tripped_at = start_s  # the stop applies from this tick's start
        if tripped_at is not None:
            delays.append(tripped_at - sent_s)
        else:
            quiet.append(sim.time_s - tick_s - sent_s)  # the last tick's start
    excess = max(delays) - timeout_s
    assert excess <= tick_s + 1e-9 and min(delays) > timeout_s, (
        f'{TRIPS} trips (timeout {timeout_s} s, tick {tick_s * 1e3:.1f} ms, {late} commands '
        f'late): max trip delay - timeout {excess * 1e3:.3f} ms, min delay '
        f'{min(delays) * 1e3:.3f} ms')
    print(f'simulator watchdog: {TRIPS} trips, timeout {timeout_s * 1e3:.0f} ms, tick '
          f'{tick_s * 1e3:.0f} ms: max trip delay - timeout {excess * 1e3:.3f} ms')
    # a silence that did not trip never passed the deadline at a tick's start
    assert max(quiet) <= timeout_s + 1e-9, f'silent {max(quiet) * 1e3:.3f} ms without a trip'
    assert sim.servos.watchdog_trips == TRIPS
