"""A stream's stamps decide its readings: one message stamped off its stream changes nothing.

Each input of a :class:`~grasp_monitor.core.monitor.stamp_grid.StampGrid` is one stream of
stamped readings. A reading whose stamp jumps from the stream's last accepted one (back by
more than ``time_back_s``, or forward by more than ``time_back_s`` and ``JUMP_PERIODS`` of
the stream's own period) is held, not used: a simulator that restarted (or a sensor that
resumed) goes on from the jump, a stray message does not. The jump is confirmed when the
stream's next reading goes on from the held one, or when another input jumps to the same
time or is there already (a reset moves every stream at once); then the held readings are
let in, in order of arrival. When the stream's next reading goes on from where it was
instead, the held reading is refused and counted. A new source's first reading that
jumps (:meth:`StreamStamps.restarts`) is let in at once: the stream restarted.
"""

from __future__ import annotations

import math
from typing import Any, Callable

#: A stream jumps forward when it skips more than this many of its own periods.
JUMP_PERIODS = 4.0

#: A reading let in: input index, stamp (s), value.
Reading = tuple[int, float, Any]


class StreamStamps:
    """The last accepted stamp of each input, and the reading each holds across a jump.

    Args:
        inputs: number of inputs.
        time_back_s: a stamp this far behind the stream's last one (or ahead of it, and
            ``JUMP_PERIODS`` of its period) is a jump, s.

    Attributes:
        refused: readings refused: stamped off their stream, and never confirmed.
        jumps: jumps confirmed (a restart going back, a resume going forward).
        on_refused: called with (input, its stamp, the stream's last stamp) for each
            refused reading (a node logs it).
    """

    def __init__(self, inputs: int, time_back_s: float) -> None:
        self.time_back_s = time_back_s
        self._last_s = [-math.inf] * inputs
        self._period_s = [math.inf] * inputs
        self._held: list[tuple[float, Any] | None] = [None] * inputs
        self.refused = 0
        self.jumps = 0
        self.on_refused: Callable[[int, float, float], object] | None = None

    def take(self, index: int, stamp_s: float, value: Any) -> list[Reading]:
        """Return the readings input ``index``'s new one lets in, oldest first (maybe none)."""
        last_s, held = self._last_s[index], self._held[index]
        if held is not None:
            self._held[index] = None
            if abs(stamp_s - held[0]) < abs(stamp_s - last_s):  # it goes on from the jump
                return self._jump(index, held) + self._accept(index, stamp_s, value)
            self._refuse(index, held[0])
        if not self._jumps(index, stamp_s):
            return self._accept(index, stamp_s, value)
        for other, reading in enumerate(self._held):
            if reading is not None and abs(reading[0] - stamp_s) <= self.time_back_s:
                self._held[other] = None  # another input jumped there too: a reset
                return self._jump(other, reading) + self._jump(index, (stamp_s, value))
        if any(abs(last_s - stamp_s) <= self.time_back_s
               for other, last_s in enumerate(self._last_s) if other != index):
            return self._jump(index, (stamp_s, value))  # where another input already is
        self._held[index] = (stamp_s, value)
        return []

    def restarts(self, index: int, stamp_s: float) -> bool:
        """Whether a new source's first reading, stamped ``stamp_s``, restarts input ``index``.

        It does when it jumps off the stream (a restarted simulator: back to 0, or ahead
        of the old stream by the time its first messages took to be heard); the stream
        then starts again from it, and a reading held from the old source is refused. A
        new source going on from the stream (a second publisher) changes nothing.
        """
        if not self._jumps(index, stamp_s):
            return False
        held, self._held[index] = self._held[index], None
        if held is not None:
            self._refuse(index, held[0])
        self.jumps += 1
        self._last_s[index], self._period_s[index] = -math.inf, math.inf
        return True

    def _jumps(self, index: int, stamp_s: float) -> bool:
        last_s = self._last_s[index]
        if not math.isfinite(last_s):
            return False
        ahead_s = max(self.time_back_s, JUMP_PERIODS * self._period_s[index]) \
            if math.isfinite(self._period_s[index]) else self.time_back_s
        return stamp_s < last_s - self.time_back_s or stamp_s > last_s + ahead_s

    def _accept(self, index: int, stamp_s: float, value: Any) -> list[Reading]:
        last_s = self._last_s[index]
        if stamp_s > last_s:
            if math.isfinite(last_s):
                self._period_s[index] = stamp_s - last_s
            self._last_s[index] = stamp_s
        return [(index, stamp_s, value)]

    def _jump(self, index: int, reading: tuple[float, Any]) -> list[Reading]:
        self.jumps += 1
        self._last_s[index], self._period_s[index] = reading[0], math.inf
        return [(index, *reading)]

    def _refuse(self, index: int, stamp_s: float) -> None:
        self.refused += 1
        if self.on_refused is not None:
            self.on_refused(index, stamp_s, self._last_s[index])
