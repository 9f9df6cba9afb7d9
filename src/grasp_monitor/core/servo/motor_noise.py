"""Noise on the servos' torque commands (FARSA's motor noise): ``MotorNoise``.

The noise of control tick ``k`` is drawn from a generator seeded with (seed, k): the
same seed gives the same noise at the same ticks, whatever happened in between (a
simulation stepped back and again, a reset, another process running the same trial).
"""

from __future__ import annotations

from grasp_monitor.core.noise import NoiseConfig
import numpy as np


class MotorNoise:
    """Torque noise for ``n`` servos, one draw per control tick.

    Args:
        config: the noise: type and range (N·m or N), seed (None: fresh entropy).
        n: number of servos.
    """

    def __init__(self, config: NoiseConfig, n: int) -> None:
        self.config = config
        self.n = n
        self.seed = config.seed if config.seed is not None else int(
            np.random.SeedSequence().entropy)

    @property
    def is_identity(self) -> bool:
        """True when the noise is always zero."""
        return self.config.noise_type == 'none' or self.config.noise_range == 0.0

    def sample(self, tick: int) -> np.ndarray:
        """Return the (n,) torque noise of control tick ``tick`` (>= 0), N·m."""
        if self.is_identity:
            return np.zeros(self.n)
        rng = np.random.default_rng((self.seed, tick))
        spread = self.config.noise_range
        if self.config.noise_type == 'gaussian':
            return spread * rng.standard_normal(self.n)
        return rng.uniform(-spread, spread, self.n)
