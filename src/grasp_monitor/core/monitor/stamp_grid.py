"""Readings of several inputs in stamp order, sampled on a fixed grid of stamps.

The grid of the monitor's inputs (:mod:`inputs`) and of the metrics node: each grid
point is a function of the readings alone, not of when they arrived.
"""

from __future__ import annotations

import bisect
from collections import deque
from dataclasses import dataclass
import math
from typing import Any

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.stream_stamps import StreamStamps


#: Stamps closer than this are equal, s.
STAMP_TOLERANCE_S = 1e-9


@dataclass(frozen=True)
class GridPoint:
    """The readings in force at one stamp of the grid.

    Attributes:
        time_s: the grid stamp, s.
        values: per input, the value of its latest reading stamped at or before
            ``time_s`` (None when it has none).
        stamps_s: per input, that reading's stamp, s (-inf when none).
        late: the clock passed ``time_s + max_age_s`` before every input arrived.
    """

    time_s: float
    values: tuple[Any, ...]
    stamps_s: tuple[float, ...]
    late: bool = False

    @property
    def age_s(self) -> float:
        """Return the age of the oldest reading used, s (inf when one is missing)."""
        return self.time_s - min(self.stamps_s)


class StampGrid:
    """Readings of several inputs in bounded stamp-ordered buffers, sampled on a fixed grid.

    Every input keeps its own time line: a reading stamped more than
    ``time_back_s`` before that input's previous one opens a new timeline
    (a simulator reset), which forgets every buffered reading and every
    owed grid stamp; readings still arriving from the old timeline on the
    other inputs (stamped ahead of the new one) are ignored until they too
    go back. A single reading stamped off its input's stream is held until the stream
    (or another input) confirms the jump (:class:`StreamStamps`), so one stray message
    opens no timeline. A new timeline starts at the first grid stamp at which every
    input has a reading. The clock that declares samples late must have gone
    back too: until it reads a time of the new timeline it is ignored, or the
    old timeline's clock would pass the new one's first stamps as stale.
    """

    def __init__(self, inputs: int, period_s: float, time_back_s: float,
                 depth: int = 2000, max_per_call: int = 200) -> None:
        """Make an empty grid.

        Args:
            inputs: number of inputs.
            period_s: interval of the grid, s.
            time_back_s: an input going back by more than this opens a new timeline, s.
            depth: readings buffered per input, at most.
            max_per_call: grid stamps :meth:`due` evaluates per call, at most; the
                rest stay owed to the next call.
        """
        if not period_s > 0 or not time_back_s > 0 or depth < 2 or max_per_call < 1:
            raise ConfigError('period_s and time_back_s must be > 0, depth >= 2 and '
                              f'max_per_call >= 1, got {period_s}, {time_back_s}, '
                              f'{depth}, {max_per_call}')
        self.period_s, self.time_back_s, self.max_per_call = period_s, time_back_s, max_per_call
        self._stamps = [deque(maxlen=depth) for _ in range(inputs)]
        self._values = [deque(maxlen=depth) for _ in range(inputs)]
        self._evicted_s = [-math.inf] * inputs  # latest stamp a full buffer pushed out
        self._latest_s = [-math.inf] * inputs  # of each input, across timelines
        self._epoch = [-1] * inputs  # the timeline each input is on
        self.epoch = 0
        self._timeline_s = -math.inf  # the latest stamp of the current timeline
        self._clock_behind = False  # the clock still reads the timeline before this one
        self._next_k: int | None = None
        #: grid stamps skipped because a buffer no longer held their readings
        self.dropped = 0
        #: readings of an old timeline ignored, and timelines opened
        self.ignored = 0
        self.timelines = 0
        #: the stamps of each input's stream: refused strays, confirmed jumps
        self.stamps = StreamStamps(inputs, time_back_s)
        #: buffered readings a new timeline dropped
        self.reset_dropped = 0
        self._new_source: set[int] = set()  # inputs whose next reading is a new source's
        self._restarted: set[int] = set()  # inputs whose next reading opens a timeline
        #: inputs restarted by a new source (a restarted simulator)
        self.restarts = 0

    def _clear(self) -> None:
        self.reset_dropped += sum(len(stamps) for stamps in self._stamps)
        for stamps, values in zip(self._stamps, self._values):
            stamps.clear()
            values.clear()
        self._evicted_s = [-math.inf] * len(self._stamps)
        self._next_k = None

    def add(self, index: int, stamp_s: float, value: Any) -> None:
        """Buffer a reading of input ``index`` stamped ``stamp_s``, in stamp order.

        One stamped off its stream waits for its jump to be confirmed (``stamps``);
        after :meth:`new_source`, one that jumps opens a new timeline at once.
        """
        if index in self._new_source:
            self._new_source.discard(index)
            if self._epoch[index] >= 0 and self.stamps.restarts(index, stamp_s):
                self._restarted.add(index)
                self.restarts += 1
        for reading in self.stamps.take(index, stamp_s, value):
            self._add(*reading)

    def new_source(self, index: int) -> None:
        """Note that input ``index``'s next reading comes from a new source (a publisher).

        If its stamp jumps off the input's stream, its time restarted (a simulator killed
        and started again), whether it went back or not: a new timeline, as a reset.
        """
        self._new_source.add(index)

    def _add(self, index: int, stamp_s: float, value: Any) -> None:
        epoch = self._epoch[index]
        if epoch < 0:  # a first reading: of the current timeline unless stamped ahead of it
            epoch = self.epoch if self.epoch == 0 or \
                stamp_s <= self._timeline_s + self.time_back_s else self.epoch - 1
        restarted = index in self._restarted
        self._restarted.discard(index)
        if restarted or stamp_s < self._latest_s[index] - self.time_back_s:
            epoch += 1  # this input went back, or its source restarted
            self._latest_s[index] = -math.inf
        self._latest_s[index] = max(self._latest_s[index], stamp_s)
        if epoch > self.epoch:
            self.epoch, self._timeline_s = epoch, -math.inf
            self.timelines += 1
            self._clock_behind = True
            self._clear()
        elif epoch < self.epoch:
            self._epoch[index] = epoch
            if stamp_s > self._timeline_s + self.time_back_s:
                self.ignored += 1  # still on the timeline the others left
                return
            epoch = self.epoch  # it went back with the others, if by less
        self._epoch[index] = epoch
        self._timeline_s = max(self._timeline_s, stamp_s)
        stamps, values = self._stamps[index], self._values[index]
        if len(stamps) == stamps.maxlen:
            self._evicted_s[index] = stamps[0]
            stamps.popleft()
            values.popleft()
        if not stamps or stamp_s >= stamps[-1]:
            stamps.append(stamp_s)
            values.append(value)
        else:  # out of order (best-effort delivery): rare, so a deque insert is fine
            at = bisect.bisect_right(stamps, stamp_s)
            stamps.insert(at, stamp_s)
            values.insert(at, value)

    def silent(self) -> tuple[int, ...]:
        """Return the inputs that have had no reading yet, by index."""
        return tuple(i for i, epoch in enumerate(self._epoch) if epoch < 0)

    def latest(self) -> tuple[tuple[Any, ...], tuple[float, ...]]:
        """Return the latest value and stamp of every input (None and -inf when none)."""
        return (tuple(v[-1] if v else None for v in self._values),
                tuple(s[-1] if s else -math.inf for s in self._stamps))

    def _start(self, now_s: float | None, max_age_s: float) -> int | None:
        firsts = [stamps[0] for stamps in self._stamps if stamps]
        if len(firsts) == len(self._stamps):
            return math.ceil(max(firsts) / self.period_s - 1e-6)
        if firsts and now_s is not None:  # an input never spoke: stale from the first stamp
            k = math.ceil(min(firsts) / self.period_s - 1e-6)
            if now_s > k * self.period_s + max_age_s + STAMP_TOLERANCE_S:
                return k
        return None

    def due(self, now_s: float | None = None, max_age_s: float = math.inf) -> list[GridPoint]:
        """Evaluate the owed grid stamps, oldest first.

        Args:
            now_s: the clock, s; a stamp it passed by more than ``max_age_s`` is
                evaluated (``late``) without waiting for every input. None: wait.
            max_age_s: see ``now_s``, s.
        """
        if self._clock_behind and now_s is not None:
            if now_s <= self._timeline_s + self.time_back_s:
                self._clock_behind = False  # the clock went back with the inputs
            else:
                now_s = None
        if self._next_k is None:
            self._next_k = self._start(now_s, max_age_s)
            if self._next_k is None:
                return []
        points: list[GridPoint] = []
        while len(points) < self.max_per_call:
            time_s = self._next_k * self.period_s
            ready = all(s and s[-1] >= time_s - STAMP_TOLERANCE_S for s in self._stamps)
            late = not ready and now_s is not None and \
                now_s > time_s + max_age_s + STAMP_TOLERANCE_S
            if not (ready or late):
                break
            point = self._point(time_s, late)
            self._next_k += 1
            if point is not None:
                points.append(point)
        return points

    def _point(self, time_s: float, late: bool) -> GridPoint | None:
        values, stamps = [], []
        for i, (buffered_s, buffered) in enumerate(zip(self._stamps, self._values)):
            at = bisect.bisect_right(buffered_s, time_s + STAMP_TOLERANCE_S)
            if at == 0 and self._evicted_s[i] > -math.inf:
                self.dropped += 1  # its reading was pushed out of a full buffer
                return None
            # older readings will never be the latest at a later stamp: forget them
            for _ in range(max(at - 1, 0)):
                buffered_s.popleft()
                buffered.popleft()
            values.append(buffered[0] if at else None)
            stamps.append(buffered_s[0] if at else -math.inf)
        return GridPoint(time_s, tuple(values), tuple(stamps), late)


def stamp_counts(grid: StampGrid) -> dict[str, int]:
    """Return a grid's diagnostic values of its inputs' stamps, as both nodes report them.

    ``refused_stamps``: readings stamped off their stream (a stray old or future stamp),
    refused; ``timelines``: timelines opened (resets); ``source_restarts``: inputs whose new
    source restarted their time (:meth:`StampGrid.new_source`); ``reset_dropped_readings``:
    buffered readings a reset dropped.
    """
    return {'refused_stamps': grid.stamps.refused, 'timelines': grid.timelines,
            'source_restarts': grid.restarts, 'reset_dropped_readings': grid.reset_dropped}
