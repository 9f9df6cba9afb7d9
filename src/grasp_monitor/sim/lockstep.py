"""Lockstep: which inputs a simulator tick waits for, and for how long."""

from __future__ import annotations

import math
import threading
from typing import Callable

from grasp_monitor.core.errors import CommandError

#: Wall seconds a lockstep peer may stay silent before the simulator runs free.
LOCKSTEP_PATIENCE_S = 5.0
#: Wall seconds between two looks while a tick waits (and between two resent clocks).
POLL_S = 0.05


class Lockstep:
    """The gate of a tick in lockstep: it waits until the tick's inputs are in from its peers.

    A controller joins by answering a /clock with a servo_commands message stamped
    with that clock's time; from then on each tick waits for its answer (the clock is
    sent again every 50 ms while it is missing). The monitor joins with its first
    verdict on a fresh sample (and leaves with a stale one); a tick at or after the
    sample it owes next waits for that verdict, so a grasp starts the force test at
    its own sample. A peer that leaves the graph or stays silent ``LOCKSTEP_PATIENCE_S``
    of wall time is dropped (and may join again).

    Args:
        now_s: the simulated time, s.
        tolerance_s: stamps this close to a tick's time are that tick's, s.
        enabled: whether peers may join (off: ticks never wait; verdicts still apply).
        warn: logs a warning.

    Attributes:
        peer: a controller answers the clock.
        monitor: the monitor's verdicts are waited for.
        late_verdicts: ACTIVATE or STOP verdicts applied after their sample.
        resends: polls that found an input missing (each resends the clock it answers).
    """

    def __init__(self, now_s: Callable[[], float], tolerance_s: float, enabled: bool,
                 warn: Callable[[str], object]) -> None:
        self.now_s = now_s
        self.tolerance_s = tolerance_s
        self.enabled = enabled
        self.warn = warn
        # the stamp of the last stamped servo command applied, and whether the one being
        # admitted was on this timeline then
        self.command_stamp_s = -math.inf
        self._on_timeline = True
        # the stamp of the latest servo_commands, and whether a peer answers
        self.answered = threading.Condition()
        self.answer_s = -math.inf
        self.peer = False
        self.resends = 0
        # the monitor's verdicts: the next sample it owes (s), whether it is a peer
        self.verdict_due_s = math.inf
        self.monitor = False
        self.monitor_dropped = False
        self.late_verdicts = 0

    def admit_command(self, stamp_s: float) -> None:
        """Refuse a servo command stamped before the last one applied on this timeline.

        Call it before applying a stamped command, then ``command_in`` once it is applied.

        Raises:
            CommandError: ``old_stamp``: it would undo a newer command.
        """
        last_s = self.command_stamp_s
        self._on_timeline = last_s <= self.now_s() + self.tolerance_s
        if 0.0 < stamp_s < last_s - self.tolerance_s and self._on_timeline:
            raise CommandError(f'stamped {stamp_s:.6f} s: before the last one applied, '
                               f'{last_s:.6f} s', 'old_stamp')

    def command_in(self, stamp_s: float) -> None:
        """Note an applied servo command stamped ``stamp_s``, s: one on this timeline answers.

        The last stamp applied moves on (to ``stamp_s`` if the command came from another
        timeline when admitted).

        Stamped with a time of this timeline, it answers that clock, and a peer answering
        the clock joins; any other stamp (0, another timeline's) answers nothing. The
        caller gives only commands it applied: a refused one never holds a tick.
        """
        if stamp_s > 0.0:
            self.command_stamp_s = max(self.command_stamp_s, stamp_s) if self._on_timeline \
                else stamp_s
        if not 0.0 < stamp_s <= self.now_s() + self.tolerance_s:
            return
        with self.answered:
            self.answer_s = stamp_s
            if self.enabled:
                self.peer = True
            self.answered.notify_all()

    def verdict_in(self, stamp_s: float, command: str, next_s: float, stale: bool,
                   force: Callable[[bool], object]) -> None:
        """Take the monitor's verdict on the sample ``stamp_s``, s, and note the next one due.

        ``force(start)`` starts or stops the force test on ACTIVATE or STOP, before any
        tick waiting for this verdict goes on; one from before a reset is ignored.
        """
        with self.answered:
            now_s = self.now_s()
            if not 0.0 < stamp_s <= now_s + self.tolerance_s:
                return  # from before a reset
            if command in ('ACTIVATE', 'STOP'):
                if now_s > stamp_s + self.tolerance_s:
                    self.late_verdicts += 1
                    self.warn(f'{command} for {stamp_s:.4f} s applied late, at {now_s:.4f} s')
                force(command == 'ACTIVATE')
            # A stale sample came from the clock, not the inputs: waiting for the next
            # one would hold the clock it needs.
            self.monitor = self.enabled and not stale and not self.monitor_dropped
            self.verdict_due_s = next_s
            self.answered.notify_all()

    def reset(self) -> None:
        """Forget the old timeline: the monitor joins again with its first verdict."""
        with self.answered:
            self.command_stamp_s = -math.inf
            self.answer_s = -math.inf
            self.monitor = False
            self.monitor_dropped = False
            self.verdict_due_s = math.inf

    def waiting_for(self, now_s: float) -> str:
        """Return what the tick at ``now_s`` still waits for ('' when its inputs are in)."""
        if self.peer and abs(self.answer_s - now_s) > self.tolerance_s:
            return 'servo_commands'
        if self.monitor and now_s >= self.verdict_due_s - self.tolerance_s:
            return 'verdicts'
        return ''

    def wait(self, running: Callable[[], bool], present: Callable[[str], bool],
             resend: Callable[[float], object]) -> bool:
        """Wait until the tick's inputs are in; False when the run stopped or paused first.

        Args:
            running: whether the run still goes (not stopped, not paused).
            present: whether the input (``servo_commands`` or ``verdicts``) has a publisher.
            resend: sends the clock at the given time again, for a missing answer.
        """
        if not (self.peer or self.monitor):
            return True
        waited_s = 0.0
        with self.answered:
            while running():
                now_s = self.now_s()
                missing = self.waiting_for(now_s)
                if not missing:
                    return True
                if not self.answered.wait(POLL_S):
                    waited_s += POLL_S
                    self.resends += 1
                    if not present(missing) or waited_s >= LOCKSTEP_PATIENCE_S:
                        self._drop(missing, now_s, waited_s)
                        continue
                    if missing == 'servo_commands':
                        resend(now_s)
        return False

    def _drop(self, missing: str, now_s: float, waited_s: float) -> None:
        if missing == 'verdicts':
            # until a reset: a monitor whose samples need ticks past the one it owes
            # (rates off the grid) would hold every sample
            self.monitor = False
            self.monitor_dropped = True
        else:
            self.peer = False
        self.warn(f'lockstep: no {missing} for {now_s:.4f} s after {waited_s:.1f} s; '
                  'not waiting for them' + (
                      ' until a reset (are its samples on the published ticks?)'
                      if missing == 'verdicts' else ' until they come again'))

    def diagnostics(self) -> dict[str, object]:
        """Return the diagnostic values of lockstep."""
        return {'lockstep': self.enabled, 'lockstep_peer': self.peer,
                'lockstep_monitor': self.monitor, 'late_verdicts': self.late_verdicts,
                'lockstep_resends': self.resends}
