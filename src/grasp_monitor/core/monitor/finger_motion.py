"""How fast the fingers move, from what their joints report, robust to velocity jitter.

A stalled finger's reported velocity chatters (differentiated encoder counts,
servo noise) around zero, above any useful threshold, while a finger that still
closes slowly reads below it. Its position is steadier: ``FingerMotion`` reports
each finger's speed as the spread of its positions over the last ``window_s``
(max - min, divided by the window), so jitter of a few encoder counts reads as
nearly still and a slow close as its true speed. Without positions (or with no
window) it reports the magnitude of the velocities as given.
"""

from __future__ import annotations

import math

from grasp_monitor.core.errors import ConfigError
import numpy as np
import numpy.typing as npt


class FingerMotion:
    """Each finger's speed over a window of its reported positions.

    Args:
        fingers: how many finger joints.
        window_s: the window, s (0: the reported velocities' magnitudes).
    """

    def __init__(self, fingers: int, window_s: float = 0.05) -> None:
        if not (window_s >= 0 and math.isfinite(window_s)):
            raise ConfigError(f'window_s must be finite and >= 0, got {window_s}')
        self.window_s = float(window_s)
        self.fingers = int(fingers)
        self.reset()

    def reset(self) -> None:
        """Forget the positions seen (a new timeline)."""
        # the window's reports in a preallocated buffer, rows [_first, _end): no list of
        # arrays stacked per message
        self._stamps = np.empty(64)
        self._positions = np.empty((64, self.fingers))
        self._first = self._end = 0

    def _append(self, position: np.ndarray, time_s: float) -> None:
        if self._end == len(self._stamps):
            kept = self._end - self._first
            if 2 * kept > len(self._stamps):  # more than half in use: grow
                size = 2 * len(self._stamps)
                stamps, positions = np.empty(size), np.empty((size, self.fingers))
            else:
                stamps, positions = self._stamps, self._positions
            stamps[:kept] = self._stamps[self._first:self._end]
            positions[:kept] = self._positions[self._first:self._end]
            self._stamps, self._positions = stamps, positions
            self._first, self._end = 0, kept
        self._stamps[self._end] = time_s
        self._positions[self._end] = position
        self._end += 1

    def speeds(self, positions: npt.ArrayLike | None, velocities: npt.ArrayLike,
               time_s: float) -> np.ndarray:
        """Return (J,) each finger's speed at ``time_s``, units/s.

        Args:
            positions: (J,) reported positions (NaN: not known), or None.
            velocities: (J,) reported velocities, units/s.
            time_s: the report's stamp, s.
        """
        speed = np.abs(np.asarray(velocities, float))
        if positions is None or self.window_s == 0:
            return speed
        if self._end > self._first and time_s < self._stamps[self._end - 1]:
            self.reset()  # time went back
        self._append(positions, time_s)  # a copy: the caller may reuse its array
        # keep the newest report at or before the window's start, and those after it
        start = time_s - self.window_s + 1e-12
        stamps = self._stamps
        first = self._first
        while first + 1 < self._end and stamps[first + 1] <= start:
            first += 1
        self._first = first
        if stamps[first] > start:
            # not a whole window seen yet: the velocities decide
            return speed
        window = self._positions[first:self._end]
        spread = window.max(axis=0) - window.min(axis=0)
        # a finger without a position in the window (NaN) keeps its velocity
        return np.where(np.isfinite(spread), spread / self.window_s, speed)
