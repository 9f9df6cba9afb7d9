"""What every realistic stream shares: latency in whole frames and dropped frames."""

from __future__ import annotations

import math

import numpy as np


def latency_frames(latency_s: float, sample_period_s: float) -> int:
    """Return the latency in whole sample periods, latency_s / sample_period_s rounded.

    Halves round up (1 ms at 500 Hz is one frame), not to even as ``round`` does.
    """
    return int(math.floor(latency_s / sample_period_s + 0.5))


class FrameDelay:
    """Delays frames by ``frames``: frame s carries frame s - frames's reading.

    The first frames after construction or ``reset`` repeat the first reading.

    Args:
        frames: the delay, in frames (>= 0).
    """

    def __init__(self, frames: int) -> None:
        self.frames = frames
        self._held: np.ndarray | None = None

    def reset(self) -> None:
        """Forget every reading held."""
        self._held = None

    def apply(self, readings: np.ndarray) -> np.ndarray:
        """Return (S, ...) delayed readings for (S, ...) readings of consecutive frames."""
        if self.frames == 0 or readings.shape[0] == 0:
            return readings
        if self._held is None:
            self._held = np.repeat(readings[:1], self.frames, axis=0)
        joined = np.concatenate((self._held, readings))
        self._held = joined[-self.frames:].copy()
        return joined[:readings.shape[0]]


def delivered(rng: np.random.Generator, frames: int, drop_rate: float) -> np.ndarray:
    """Return (frames,) bool: True where a frame arrives, each lost with ``drop_rate``."""
    if drop_rate == 0.0:
        return np.ones(frames, dtype=bool)
    return rng.random(frames) >= drop_rate
