"""Checks shared by the realism configurations: one message shape for every field."""

from __future__ import annotations

import math
import numbers

from grasp_monitor.core.errors import ConfigError

#: Largest seed a generator takes here (the range ``realism.seed`` declares).
MAX_SEED = 2 ** 63 - 1


def real_field(owner: str, name: str, value: object, low: float = 0.0,
               high: float = math.inf, high_open: bool = False,
               infinite: bool = False) -> float:
    """Return ``value`` as a float if it lies in [low, high] (or [low, high)).

    Args:
        owner: the configuration's name, e.g. ``TactileRealismConfig``.
        name: the field's name.
        value: what was written.
        low, high: the valid range.
        high_open: whether ``high`` itself is excluded.
        infinite: whether +inf is valid (a saturation that never clamps).

    Raises:
        ConfigError: naming the field, what was written and what is valid.
    """
    bound = ')' if high_open else ']'
    valid = f'in [{low}, {high}{bound}' + (' or inf' if infinite else '')
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ConfigError(f'{owner}.{name} must be a number {valid}, got '
                          f'{type(value).__name__} {value!r}')
    number = float(value)
    if infinite and number == math.inf:
        return number
    inside = low <= number < high if high_open else low <= number <= high
    if not (math.isfinite(number) and inside):
        raise ConfigError(f'{owner}.{name} must be a number {valid}, got {value!r}')
    return number


def int_field(owner: str, name: str, value: object, low: int, high: int) -> int:
    """Return ``value`` as an int if it is one in [low, high], else raise ConfigError."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) \
            or not low <= value <= high:
        raise ConfigError(f'{owner}.{name} must be an int in [{low}, {high}], got {value!r}')
    return int(value)


def model_arguments(sample_period_s: object, seed: object) -> tuple[float, int]:
    """Check a model's sample period (s, finite > 0) and seed (int in [0, MAX_SEED])."""
    if not isinstance(sample_period_s, numbers.Real) or isinstance(sample_period_s, bool) \
            or not (math.isfinite(sample_period_s) and sample_period_s > 0):
        raise ConfigError(
            f'sample_period_s must be a finite number > 0, s, got {sample_period_s!r}')
    int_field('realism', 'seed', seed, 0, MAX_SEED)
    return float(sample_period_s), int(seed)
