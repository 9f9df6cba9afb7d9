"""sim/lockstep.py without ROS: who joins, what a tick waits for, who is dropped."""

from grasp_monitor.core.errors import CommandError
from grasp_monitor.sim import lockstep
from grasp_monitor.sim.lockstep import Lockstep
import pytest


def make(now_s=0.01, enabled=True):
    clock, warnings = [now_s], []
    return Lockstep(lambda: clock[0], 0.001, enabled, warnings.append), clock, warnings


def test_a_command_on_the_timeline_joins_the_peer():
    gate, clock, _ = make()
    gate.command_in(0.5)  # ahead of the clock: another timeline, it answers nothing
    assert not gate.peer and gate.answer_s == -float('inf')
    gate.command_in(0.0)  # unstamped
    assert not gate.peer and gate.answer_s == -float('inf')
    gate.command_in(0.01)
    assert gate.peer and gate.waiting_for(0.01) == ''
    assert gate.waiting_for(0.02) == 'servo_commands'
    off, _, _ = make(enabled=False)
    off.command_in(0.01)
    assert not off.peer


def apply(gate, stamp_s):
    """Admit and apply a command as the simulator's node does; return the refusal kind."""
    try:
        gate.admit_command(stamp_s)
    except CommandError as error:
        return error.kind
    gate.command_in(stamp_s)
    return ''


def test_a_command_stamped_before_the_last_applied_is_refused_until_a_reset():
    gate, clock, _ = make(now_s=0.05)
    assert [apply(gate, s) for s in (0.03, 0.02, 0.0295, 0.0, 0.04)] == \
        ['', 'old_stamp', '', '', '']  # within the tolerance (1 ms) is the same stamp
    assert gate.command_stamp_s == 0.04
    with pytest.raises(CommandError) as refused:
        gate.admit_command(0.01)
    assert str(refused.value) == 'stamped 0.010000 s: before the last one applied, 0.040000 s'
    # a stamp past the simulator's time leaves its timeline: the next one starts over
    assert [apply(gate, s) for s in (0.5, 0.01)] == ['', '']
    assert gate.command_stamp_s == 0.01
    gate.reset()
    assert gate.command_stamp_s == -float('inf') and apply(gate, 0.001) == ''


def test_a_verdict_applies_its_command_and_owes_the_next():
    gate, clock, warnings = make(now_s=0.02)
    forced = []
    gate.verdict_in(0.01, 'ACTIVATE', 0.02, False, forced.append)
    assert forced == [True] and gate.late_verdicts == 1
    assert warnings == ['ACTIVATE for 0.0100 s applied late, at 0.0200 s']
    assert gate.monitor and gate.waiting_for(0.02) == 'verdicts'
    gate.verdict_in(0.02, 'CONTINUE', 0.03, True, forced.append)  # stale: leaves
    assert forced == [True] and not gate.monitor
    gate.verdict_in(0.5, 'STOP', 0.6, False, forced.append)  # from before a reset
    assert forced == [True] and gate.verdict_due_s == 0.03
    gate.reset()
    assert gate.answer_s == -float('inf') and gate.verdict_due_s == float('inf')


def test_a_silent_monitor_is_dropped_until_a_reset(monkeypatch):
    monkeypatch.setattr(lockstep, 'POLL_S', 0.001)
    gate, clock, warnings = make()
    gate.verdict_in(0.01, 'CONTINUE', 0.01, False, lambda start: None)
    resent = []
    assert gate.wait(lambda: True, lambda missing: False, resent.append)
    assert not gate.monitor and gate.monitor_dropped and gate.resends == 1 and resent == []
    assert warnings == ['lockstep: no verdicts for 0.0100 s after 0.0 s; not waiting for '
                        'them until a reset (are its samples on the published ticks?)']
    gate.verdict_in(0.01, 'CONTINUE', 0.01, False, lambda start: None)
    assert not gate.monitor
    gate.reset()
    gate.verdict_in(0.01, 'CONTINUE', 0.01, False, lambda start: None)
    assert gate.monitor


def test_a_missing_answer_resends_the_clock(monkeypatch):
    monkeypatch.setattr(lockstep, 'POLL_S', 0.001)
    gate, clock, _ = make()
    gate.command_in(0.01)
    clock[0] = 0.02
    resent = []
    polls = iter([True, True, True, False])
    assert not gate.wait(lambda: next(polls), lambda missing: True, resent.append)
    assert resent == [0.02, 0.02, 0.02] and gate.peer
