"""Taxel layouts of a generic tactile driver: which taxel each value of its array belongs to.

A tactile driver publishes one flat array of values per sample; a ``TaxelLayout`` says
where each taxel sits on the pad, checks an array against the layout and turns it into
forces in the pad frame. The pad frame's +z is the outward normal of the sensing face.

A grid lies in the pad's xy plane (z = 0), centred on the pad origin and read row-major:
value ``k`` belongs to row ``k // cols`` and column ``k % cols``, at
``x = (col - (cols - 1) / 2) * pitch``, ``y = (row - (rows - 1) / 2) * pitch``.
With three values per taxel, value ``3 k + i`` is component ``i`` (fx, fy, fz) of taxel ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import CommandError, ConfigError
from grasp_monitor.core.values import as_array
import numpy as np
import numpy.typing as npt

#: Values a driver may give per taxel: a normal force (N) or a force vector (fx, fy, fz, N).
VALUES_PER_TAXEL = (1, 3)


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f'{name} must be an integer >= 1, got {value!r}')
    return int(value)


def grid_positions(rows: int, cols: int, pitch_m: float) -> np.ndarray:
    """Return the (rows * cols, 3) taxel positions of a grid in the pad frame, m.

    Raises:
        ConfigError: rows or cols not a positive integer, pitch not finite and > 0.
    """
    rows, cols = _check_count('rows', rows), _check_count('cols', cols)
    if not (math.isfinite(pitch_m) and pitch_m > 0):
        raise ConfigError(f'pitch_m must be a finite number > 0, got {pitch_m}')
    row, col = np.divmod(np.arange(rows * cols), cols)
    return np.stack([(col - (cols - 1) / 2) * pitch_m, (row - (rows - 1) / 2) * pitch_m,
                     np.zeros(rows * cols)], axis=1)


@dataclass(frozen=True)
class TaxelLayout:
    """Where the values of a driver's array sit on a pad, and how to read them as forces.

    Attributes:
        positions_in_pad: (N, 3) m, taxel positions in the pad frame (N >= 1).
        values_per_taxel: 1 (normal force along the pad's +z) or 3 (fx, fy, fz in the
            pad frame).
        scale_n: newtons per driver unit (finite, > 0).
    """

    positions_in_pad: np.ndarray
    values_per_taxel: int = 1
    scale_n: float = 1.0

    def __post_init__(self) -> None:
        positions = as_array(self.positions_in_pad, (-1, 3), 'positions_in_pad')
        if positions.shape[0] == 0:
            raise ConfigError('a taxel layout needs at least one taxel')
        if not np.all(np.isfinite(positions)):
            raise ConfigError('taxel positions must be finite')
        object.__setattr__(self, 'positions_in_pad', positions)
        count = self.values_per_taxel
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) \
                or count not in VALUES_PER_TAXEL:
            raise ConfigError(f'values_per_taxel must be 1 (normal force) or 3 (fx fy fz), '
                              f'got {self.values_per_taxel!r}')
        if not (math.isfinite(self.scale_n) and self.scale_n > 0):
            raise ConfigError(f'scale_n must be a finite number > 0, got {self.scale_n}')

    @staticmethod
    def grid(rows: int, cols: int, pitch_m: float, values_per_taxel: int = 1,
             scale_n: float = 1.0) -> 'TaxelLayout':
        """Return the layout of a grid of ``rows`` by ``cols`` taxels (module docstring)."""
        return TaxelLayout(grid_positions(rows, cols, pitch_m), values_per_taxel, scale_n)

    @staticmethod
    def from_flat(positions_m: npt.ArrayLike, values_per_taxel: int = 1,
                  scale_n: float = 1.0) -> 'TaxelLayout':
        """Return a layout from explicit positions given flat: x, y, z of each taxel, m.

        Raises:
            ConfigError: not a positive multiple of 3 values, or invalid values.
        """
        flat = np.asarray(positions_m, dtype=float).reshape(-1)
        if flat.size == 0 or flat.size % 3:
            raise ConfigError('taxel positions must hold x, y, z of each taxel: a multiple '
                              f'of 3 values, got {flat.size}')
        return TaxelLayout(flat.reshape(-1, 3), values_per_taxel, scale_n)

    @property
    def taxels(self) -> int:
        """Number of taxels."""
        return int(self.positions_in_pad.shape[0])

    @property
    def array_size(self) -> int:
        """Number of values a driver's array must hold."""
        return self.taxels * self.values_per_taxel

    def forces(self, values: npt.ArrayLike) -> np.ndarray:
        """Return the (N, values_per_taxel) forces of one driver array, N, pad frame.

        Raises:
            CommandError: the array's size disagrees with the layout ('wrong_length'), or a
                value is NaN or infinite ('not_finite').
        """
        array = np.asarray(values, dtype=float).reshape(-1)
        if array.size != self.array_size:
            raise CommandError(
                f'tactile array has {array.size} values, the layout expects '
                f'{self.array_size} ({self.taxels} taxels x {self.values_per_taxel})',
                'wrong_length')
        if not np.all(np.isfinite(array)):
            bad = np.flatnonzero(~np.isfinite(array))
            raise CommandError(f'tactile array has {bad.size} non-finite values (first at '
                               f'index {bad[0]})', 'not_finite')
        return (array * self.scale_n).reshape(self.taxels, self.values_per_taxel)
