"""Input checks shared by the energy functions and the tracker's configuration."""

from __future__ import annotations

from grasp_monitor.core.errors import ConfigError
import numpy as np
import numpy.typing as npt


def _with_trailing(value: npt.ArrayLike, trailing: tuple[int, ...], name: str) -> np.ndarray:
    """Return ``value`` as a float array whose last dimensions are ``trailing``."""
    array = np.asarray(value, dtype=float)
    if array.ndim < len(trailing) or array.shape[array.ndim - len(trailing):] != trailing:
        dims = ', '.join(str(d) for d in trailing)
        raise ConfigError(f'{name} must have shape (..., {dims}), got {array.shape}')
    return array


def _positive(value: npt.ArrayLike, name: str, unit: str) -> np.ndarray:
    """Return ``value`` as a float array after checking it is finite and > 0."""
    array = np.asarray(value, dtype=float)
    bad = ~(np.isfinite(array) & (array > 0.0))
    if bad.any():
        first = float(array[bad].flat[0])
        raise ConfigError(f'{name} must be finite and > 0 {unit}, got {first!r}')
    return array


def _batch_shape(**shapes: tuple[int, ...]) -> tuple[int, ...]:
    """Return the broadcast of the named batch shapes, or raise listing them."""
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ', '.join(f'{name} {shape}' for name, shape in shapes.items())
        raise ConfigError(f'batch shapes do not broadcast: {listed}') from None
