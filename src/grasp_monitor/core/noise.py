"""Noise on any sensor output, then clamped to the output's declared range (FARSA).

``gaussian`` adds zero-mean normal noise whose standard deviation is the
range; ``uniform`` adds noise uniform in [-range, +range]; ``none`` adds
nothing. The result is always clamped to the output's [minimum, maximum].
"""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.settings import Setting
import numpy as np
import numpy.typing as npt

#: Noise types.
NOISE_TYPES = ('none', 'gaussian', 'uniform')
_MAX_SEED = 2 ** 63 - 1

#: Settings any sensor plugin can take to add noise to its outputs.
NOISE_SETTINGS = (
    Setting('noise_type', 'none', 'Noise added to every output value.', choices=NOISE_TYPES),
    Setting('noise_range', 0.0,
            'Gaussian standard deviation or uniform half-width, in output units.',
            0.0, math.inf),
    Setting('noise_seed', -1,
            'Seed of the noise generator for repeatable runs; -1 draws a fresh one.',
            -1, _MAX_SEED),
)


@dataclass(frozen=True)
class NoiseConfig:
    """What noise to add.

    Attributes:
        noise_type: one of ``NOISE_TYPES``.
        noise_range: gaussian standard deviation or uniform half-width, in the
            output's units; finite and >= 0.
        seed: seed of the generator; None (the default) draws fresh entropy,
            so two sensors never share a noise sequence by accident. Give
            each sensor its own seed for repeatable runs.
    """

    noise_type: str = 'none'
    noise_range: float = 0.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.noise_type not in NOISE_TYPES:
            raise ConfigError(
                f'noise_type {self.noise_type!r} is not one of {", ".join(NOISE_TYPES)}')
        if not (math.isfinite(self.noise_range) and self.noise_range >= 0):
            raise ConfigError(
                f'noise_range must be a finite number >= 0, got {self.noise_range}')
        if self.seed is not None and not (
                isinstance(self.seed, (int, np.integer)) and 0 <= self.seed <= _MAX_SEED):
            raise ConfigError(
                f'seed must be None or an int in [0, {_MAX_SEED}], got {self.seed!r}')
        object.__setattr__(self, 'noise_range', float(self.noise_range))

    @staticmethod
    def from_parameters(parameters: dict) -> 'NoiseConfig':
        """Build from the values of ``NOISE_SETTINGS`` (checked plugin parameters)."""
        seed = parameters['noise_seed']
        return NoiseConfig(parameters['noise_type'], parameters['noise_range'],
                           None if seed < 0 else seed)


class NoiseModel:
    """Adds configured noise to arrays and clamps them to an output's range.

    Args:
        config: the noise to add.
        minimum: smallest value the output can take (may be -inf).
        maximum: largest value the output can take (may be +inf).

    Raises:
        ConfigError: when minimum > maximum or either is NaN.
    """

    def __init__(self, config: NoiseConfig, minimum: float = -math.inf,
                 maximum: float = math.inf) -> None:
        if not minimum <= maximum:
            raise ConfigError(
                f'output range needs minimum <= maximum, got [{minimum}, {maximum}]')
        self.config = config
        self.minimum = float(minimum)
        self.maximum = float(maximum)
        self.rng = np.random.default_rng(config.seed)
        self._clamps = math.isfinite(self.minimum) or math.isfinite(self.maximum)

    @property
    def is_identity(self) -> bool:
        """True when ``apply`` can never change a value inside the range."""
        return self.config.noise_type == 'none' or self.config.noise_range == 0.0

    def apply(self, values: npt.ArrayLike, out: np.ndarray | None = None) -> np.ndarray:
        """Return ``values`` plus noise, clamped to [minimum, maximum].

        Args:
            values: the clean output, any shape.
            out: float64 array of the same shape to write into (may be
                ``values`` itself); a new array when None.
        """
        values = np.asarray(values, dtype=float)
        if out is None:
            out = values.copy() if self.is_identity else np.empty_like(values)
        elif self.is_identity:
            out[...] = values
        spread = self.config.noise_range
        if not self.is_identity:
            if self.config.noise_type == 'gaussian':
                noise = self.rng.standard_normal(values.shape)
                noise *= spread
            else:
                noise = self.rng.uniform(-spread, spread, values.shape)
            np.add(values, noise, out=out)
        if self._clamps:
            np.clip(out, self.minimum, self.maximum, out=out)
        return out
