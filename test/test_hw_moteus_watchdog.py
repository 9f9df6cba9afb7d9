"""The moteus backend's servo watchdog trips on the first loop cycle past its deadline.

Over the transport double on the wall clock of its loop, over many trips: the bound is
asserted in loop cycles, so it holds however long the cycles take.
test_sim_watchdog_bound.py bounds the simulator's the same way.
"""

import asyncio
import time

from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.hardware.moteus import MoteusConfig, MoteusServos
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
import moteus
import numpy as np

TRIPS = 200


def hold_command(n, maximum_torque):
    """Zero torque without position feedback: the servos' state does not matter."""
    return ServoCommand(np.full(n, np.nan), np.zeros(n), np.zeros(n), np.ones(n), np.ones(n),
                        np.asarray(maximum_torque, float))


class RecordingClock:
    """The monotonic clock; remembers its latest reading (the command's time)."""

    def __init__(self):
        self.last = 0.0

    def __call__(self):
        self.last = time.monotonic()
        return self.last


def test_the_moteus_watchdog_trips_on_the_first_loop_cycle_past_its_deadline_over_200_trips():
    timeout_s, ids = 0.01, (11, 12)
    clock = RecordingClock()
    double = TransportDouble(DoubleConfig(ids=ids), 0.0, clock)
    config = MoteusConfig(('left', 'right'), ids, rate_hz=1000.0, command_timeout_s=timeout_s,
                          reply_timeout_s=1.0)
    servos = MoteusServos(config, transport=moteus.Transport(double), clock=clock)
    command = hold_command(2, (1.0, 1.0))
    rng = np.random.default_rng(20)

    async def silences():
        """Return, per silence, the command's time and each cycle's (time, tripped)."""
        await servos.cycle()  # the first cycle only queries
        runs, trips = [], 0
        while trips < TRIPS:
            servos.set_command(command)
            sent_s, cycles = clock.last, []
            for _ in range(int(rng.integers(2, 25))):
                observation = await servos.cycle()
                cycles.append((observation.time_s, observation.watchdog_tripped))
                await asyncio.sleep(config.period_s)
            trips += any(tripped for _, tripped in cycles)
            runs.append((sent_s, cycles))
        return runs

    runs = asyncio.run(silences())
    servos.close()
    excess_s, periods = [], []
    for sent_s, cycles in runs:
        due = [at_s - sent_s > timeout_s for at_s, _ in cycles]
        tripped = [flag for _, flag in cycles]
        # tripped from the first cycle that starts past the deadline on, never before
        assert tripped == due, f'cycles past the deadline {due}, tripped {tripped}'
        if any(due):
            first = due.index(True)
            excess_s.append(cycles[first][0] - sent_s - timeout_s)
            # the cycle before was not due: the excess is at most the period between them
            periods.append(cycles[first][0] - cycles[first - 1][0] if first else
                           cycles[first][0] - sent_s)
    assert len(excess_s) == TRIPS == servos.stats().watchdog_trips
    within = [e <= p for e, p in zip(excess_s, periods)]
    assert all(within), (
        f'{TRIPS} trips, timeout {timeout_s * 1e3:.0f} ms, period '
        f'{config.period_s * 1e3:.0f} ms: max trip delay - timeout '
        f'{max(excess_s) * 1e3:.2f} ms; {within.count(False)} beyond their cycle')
    print(f'moteus watchdog: {TRIPS} trips, timeout {timeout_s * 1e3:.0f} ms, period '
          f'{config.period_s * 1e3:.0f} ms: max trip delay - timeout '
          f'{max(excess_s) * 1e3:.2f} ms (wall), every trip on the first cycle past its '
          f'deadline; longest such cycle {max(periods) * 1e3:.2f} ms')
