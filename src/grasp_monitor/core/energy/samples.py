"""The energy metric of every object at one sample and at a block of samples."""

from __future__ import annotations

from dataclasses import dataclass

from grasp_monitor.core.errors import ConfigError
import numpy as np


def _read_only(array: np.ndarray, shape: tuple[int, ...], name: str) -> np.ndarray:
    """Check an output array's shape and freeze it."""
    if array.shape != shape:
        raise ConfigError(f'{name} must have shape {shape}, got {array.shape}')
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class EnergySample:
    """The energy metric of every object at one sample.

    Attributes:
        time_s: sample time, s.
        energy_left_j: (K,) energy of each object with respect to the left
            gripper, J.
        energy_right_j: (K,) with respect to the right gripper, J.
        energy_mean_j: (K,) their mean: the metric, J.
        max_energy_j: the largest metric over the objects, J (NaN if any is).
        failed: whether any object's metric exceeds the threshold or is NaN.
    """

    time_s: float
    energy_left_j: np.ndarray
    energy_right_j: np.ndarray
    energy_mean_j: np.ndarray
    max_energy_j: float
    failed: bool

    def __post_init__(self) -> None:
        shape = np.shape(self.energy_mean_j)
        if len(shape) != 1:
            raise ConfigError(f'energy_mean_j must have shape (K,), got {shape}')
        for name in ('energy_left_j', 'energy_right_j', 'energy_mean_j'):
            object.__setattr__(self, name, _read_only(
                np.asarray(getattr(self, name), dtype=float), shape, name))


@dataclass(frozen=True)
class EnergyBlock:
    """The energy metric of every object at N consecutive samples.

    Attributes:
        time_s: (N,) sample times, s.
        energy_left_j: (N, K) energy with respect to the left gripper, J.
        energy_right_j: (N, K) with respect to the right gripper, J.
        energy_mean_j: (N, K) their mean: the metric, J.
        max_energy_j: the largest metric in the block, J (NaN if any is).
        failed: whether any sample of the block failed.
    """

    time_s: np.ndarray
    energy_left_j: np.ndarray
    energy_right_j: np.ndarray
    energy_mean_j: np.ndarray
    max_energy_j: float
    failed: bool

    def __post_init__(self) -> None:
        shape = np.shape(self.energy_mean_j)
        if len(shape) != 2:
            raise ConfigError(f'energy_mean_j must have shape (N, K), got {shape}')
        object.__setattr__(self, 'time_s', _read_only(
            np.asarray(self.time_s, dtype=float), shape[:1], 'time_s'))
        for name in ('energy_left_j', 'energy_right_j', 'energy_mean_j'):
            object.__setattr__(self, name, _read_only(
                np.asarray(getattr(self, name), dtype=float), shape, name))
