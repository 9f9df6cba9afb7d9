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
        self._stamps: list[float] = []
        self._positions: list[np.ndarray] = []

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
        position = np.array(positions, float)  # a copy: the caller may reuse its array
        stamps, kept = self._stamps, self._positions
        if stamps and time_s < stamps[-1]:
            self.reset()  # time went back
        stamps.append(time_s)
        kept.append(position)
        # keep the newest report at or before the window's start, and those after it
        start = time_s - self.window_s
        drop = 0
        while drop + 1 < len(stamps) and stamps[drop + 1] <= start + 1e-12:
            drop += 1
        del stamps[:drop], kept[:drop]
        if stamps[0] > start + 1e-12:
            # not a whole window seen yet: the velocities decide
            return speed
        window = np.stack(kept)
        spread = window.max(axis=0) - window.min(axis=0)
        # a finger without a position in the window (NaN) keeps its velocity
        return np.where(np.isfinite(spread), spread / self.window_s, speed)
