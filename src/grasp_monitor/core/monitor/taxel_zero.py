"""One pad's taxels zeroed as a user cannot: tare, noise floor, drift followed while free.

A real array reads an offset per taxel that drifts, and noise. ``TaxelZero`` learns
each taxel's zero and noise over a tare window (the first readings after a tare
request), then reports each taxel's reading less its zero, a taxel whose remainder is
within its noise floor (``deadband_sigmas`` times its noise, at least ``deadband_n``)
as 0, and lets the zero of a taxel whose remainder stays within ``TRACK_BAND`` floors
follow it slowly (every taxel's, while the pad carries less than a contact's force):
drift, and what hysteresis leaves after a load, fade out, while a load beyond the band
is kept. With exact signals (no offset, no noise: a floor of 0)
it changes nothing once the window is over.
"""

from __future__ import annotations

import math

from grasp_monitor.core.errors import ConfigError
import numpy as np
import numpy.typing as npt

#: A taxel within this many noise floors of its zero is unloaded: its zero follows it.
TRACK_BAND = 3.0


class TaxelZero:
    """Tare, noise floor and drift following of one pad's taxels.

    Args:
        tare_s: length of the tare window, s (0: no tare, the zero stays 0).
        deadband_n: the least noise floor of a taxel, N.
        deadband_sigmas: a taxel's floor in units of its noise (the root of the summed
            variances of its components over the window).
        track_s: time constant with which the zero of an unloaded taxel follows its
            readings, s (0: it does not).

    Attributes:
        taring: readings are being averaged into the zero (the pad reads 0 meanwhile).
        floor_n: (N,) each taxel's noise floor, N (empty before the first tare).
    """

    def __init__(self, tare_s: float = 0.1, deadband_n: float = 0.0,
                 deadband_sigmas: float = 3.0, track_s: float = 0.25) -> None:
        for name, value in (('tare_s', tare_s), ('deadband_n', deadband_n),
                            ('deadband_sigmas', deadband_sigmas), ('track_s', track_s)):
            if not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f'{name} must be finite and >= 0, got {value}')
        self.tare_s = float(tare_s)
        self.deadband_n = float(deadband_n)
        self.deadband_sigmas = float(deadband_sigmas)
        self.track_s = float(track_s)
        self._zero: np.ndarray | None = None
        self.floor_n = np.zeros(0)
        self._last_s = -math.inf
        self._pairs: np.ndarray | None = None
        self._pairs_taxels = -1
        self._exact = True  # every floor 0: readings less the zero, nothing else
        self._track_band = np.zeros(0)
        self.tare()

    def tare(self) -> None:
        """Learn the zero again from the next readings (``tare_s`` of them, by stamp)."""
        self.taring = self.tare_s > 0
        self._window_start_s: float | None = None
        self._sum: np.ndarray | None = None
        self._square: np.ndarray | None = None
        self._count = 0

    def apply(self, forces: npt.ArrayLike, time_s: float, light: bool = False,
              positions: npt.ArrayLike | None = None) -> np.ndarray:
        """Return the pad's (N, C) readings zeroed; all zeros while taring.

        Args:
            forces: (N, C) each taxel's reading (C = 3 components or 1), N.
            time_s: the reading's stamp, s.
            light: the pad carries less than a contact's force: every taxel's zero
                follows (an outlier left by a load fades too).
            positions: (N, 3) the taxels' positions, m: a taxel above its floor with no
                neighbour above theirs (an outlier, not a touch, which spreads) reads 0.
                None: no such filter.

        Raises:
            ConfigError: a reading whose shape differs from the pad's earlier ones.
        """
        values = np.asarray(forces, float)
        if self._zero is not None and values.shape != self._zero.shape:
            raise ConfigError(f'the pad had {self._zero.shape[0]} taxels of '
                              f'{self._zero.shape[1]} values, now {values.shape}')
        dt_s = time_s - self._last_s
        self._last_s = time_s
        if self.taring:
            return self._learn(values, time_s)
        if self._zero is None:
            return values
        zeroed = values - self._zero
        if self._exact:
            return zeroed
        size = np.sqrt(np.einsum('nc,nc->n', zeroed, zeroed))
        if self.track_s > 0 and 0 < dt_s < math.inf:
            share = dt_s / (self.track_s + dt_s)
            if light:
                self._zero += zeroed * share
            else:
                # one pass, no boolean gather and scatter: a loaded taxel adds 0
                self._zero += np.where((size <= self._track_band)[:, None], zeroed * share,
                                       0.0)
        above = size > self.floor_n
        if positions is not None:
            above &= self._with_loaded_neighbour(above, positions)
        return np.where(above[:, None], zeroed, 0.0)

    def _with_loaded_neighbour(self, above: np.ndarray, positions: npt.ArrayLike) -> np.ndarray:
        """Return (N,) each taxel has a neighbour (within 1.5 spacings) in ``above``."""
        if self._pairs is None or self._pairs_taxels != above.size:
            points = np.asarray(positions, float)
            self._pairs = neighbour_pairs(points)
            self._pairs_taxels = len(points)
            self._pair_ends = (self._pairs[:, 0].copy(), self._pairs[:, 1].copy())
        near = np.zeros(above.size, bool)
        first, second = self._pair_ends
        near[first[above[second]]] = True
        near[second[above[first]]] = True
        return near

    def _learn(self, values: np.ndarray, time_s: float) -> np.ndarray:
        if self._window_start_s is None:
            self._window_start_s = time_s
            self._sum = np.zeros_like(values)
            self._square = np.zeros_like(values)
        assert self._sum is not None and self._square is not None
        if values.shape != self._sum.shape:
            raise ConfigError(f'the pad had {self._sum.shape[0]} taxels of '
                              f'{self._sum.shape[1]} values, now {values.shape}')
        self._sum += values
        self._square += values * values
        self._count += 1
        if time_s - self._window_start_s >= self.tare_s - 1e-9:
            mean = self._sum / self._count
            variance = np.maximum(self._square / self._count - mean * mean, 0.0)
            self._zero = mean
            self.floor_n = np.maximum(
                self.deadband_n, self.deadband_sigmas * np.sqrt(variance.sum(axis=1)))
            self._exact = not self.floor_n.any()
            self._track_band = TRACK_BAND * self.floor_n
            self.taring = False
        return np.zeros_like(values)


def neighbour_pairs(positions: np.ndarray) -> np.ndarray:
    """Return (P, 2) the pairs of taxels closer than 1.5 times the median nearest spacing."""
    from scipy.spatial import cKDTree
    if len(positions) < 2:
        return np.zeros((0, 2), np.int64)
    tree = cKDTree(positions)
    nearest = tree.query(positions, k=2)[0][:, 1]
    return tree.query_pairs(1.5 * float(np.median(nearest)), output_type='ndarray')
