"""The wall-clock pacer shared by the simulator's runner and the recording's player."""

import threading

from grasp_monitor.core.pacing import Pacer


def test_a_rebase_puts_the_origin_at_now_and_rate_scales_the_wait():
    pacer = Pacer(2.0)
    assert -0.5 < pacer.delay_s(10.0) <= 0.0  # the first call is the origin: due now
    assert 0.0 < pacer.delay_s(11.0) <= 0.5   # one unit later at twice real time
    pacer.rebase()
    assert 0.0 < pacer.delay_s(101.0, origin=100.0) <= 0.5  # the origin, not the due time


def test_integer_nanoseconds_keep_their_spacing():
    pacer = Pacer(1.0, unit_s=1e-9)
    start = 1_795_000_000_000_000_000
    pacer.delay_s(start)
    assert 0.0 < pacer.delay_s(start + 250_000_000) <= 0.25


def test_resuming_restarts_pacing_and_stop_ends_a_sleep():
    pacer = Pacer(1.0)
    pacer.delay_s(0.0)
    pacer.set_paused(True)
    assert pacer.paused
    pacer.set_paused(False)
    assert -0.5 < pacer.delay_s(50.0) <= 0.0  # not 50 s late: the resume rebased
    sleeper = threading.Thread(target=pacer.sleep, args=(60.0,))
    sleeper.start()
    pacer.stop()
    sleeper.join(5.0)
    assert pacer.stopped and not sleeper.is_alive()
