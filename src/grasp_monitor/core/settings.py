"""One declaration per setting: name, default, range or choices, description.

A component's settings live in one table of ``Setting`` values. The ROS nodes
declare their parameters from it (with descriptors rclpy enforces), the plugin
registry checks configurations against it, and ``grasp-monitor plugins`` and
``grasp-monitor reference`` print it, so none of them can disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import numbers
from typing import Any

from grasp_monitor.core.errors import ConfigError

#: Types a setting may have (those a ROS parameter can hold), and their ROS names.
SETTING_TYPES = {bool: 'bool', int: 'integer', float: 'double', str: 'string'}


def _type_name(value: object) -> str:
    return type(value).__name__


@dataclass(frozen=True)
class Setting:
    """One setting; its type is its default's (a list: an array of that element type).

    Attributes:
        name: the setting's name (a ROS parameter name may hold dots).
        default: value used when a configuration omits it; must pass the checks.
        description: one line saying what it does, with its unit.
        low, high: inclusive range of a number (of each element of an array).
        choices: allowed values of a string (of each element of an array).
        read_only: a ROS parameter that cannot change after start.
    """

    name: str
    default: Any
    description: str = ''
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    read_only: bool = False

    def __post_init__(self) -> None:
        if not (isinstance(self.name, str) and self.name):
            raise ConfigError(f'a setting name must be a non-empty str, got {self.name!r}')
        values = self.default if isinstance(self.default, (list, tuple)) else [self.default]
        if not values or type(values[0]) not in SETTING_TYPES:
            valid = ', '.join(t.__name__ for t in SETTING_TYPES)
            raise ConfigError(f'parameter {self.name!r} has default {self.default!r}; its '
                              f'type must be one of {valid} (or a non-empty list of one)')
        kind = self.value_type
        if (self.low is None) != (self.high is None):
            raise ConfigError(f'range of parameter {self.name!r} needs both low and high')
        if self.low is not None:
            if kind not in (int, float) or not all(
                    isinstance(v, numbers.Real) and not isinstance(v, bool)
                    and not math.isnan(v) for v in (self.low, self.high)) \
                    or self.low > self.high:
                raise ConfigError(
                    f'range of numeric parameter {self.name!r} must be (low, high) with '
                    f'low <= high, got {(self.low, self.high)!r}')
        if self.choices:
            if kind is not str or not all(isinstance(v, str) for v in self.choices):
                raise ConfigError(f'choices of parameter {self.name!r} must be strings of a '
                                  f'str parameter, got {self.choices!r}')
            object.__setattr__(self, 'choices', tuple(self.choices))
        try:
            default = self.check(self.default)
        except ConfigError as error:
            raise ConfigError(f'bad default: {error}') from None
        object.__setattr__(self, 'default', default)

    @property
    def is_array(self) -> bool:
        """Whether the setting holds a list of values."""
        return isinstance(self.default, (list, tuple))

    @property
    def value_type(self) -> type:
        """The Python type of the value (of each element of an array)."""
        return type(self.default[0] if self.is_array else self.default)

    @property
    def type_name(self) -> str:
        """The ROS parameter type, e.g. ``double`` or ``string_array``."""
        return SETTING_TYPES[self.value_type] + ('_array' if self.is_array else '')

    @property
    def value_range(self) -> tuple | None:
        """``(low, high)`` of a number, the choices of a string, else None."""
        if self.choices:
            return self.choices
        return None if self.low is None else (self.low, self.high)

    def check(self, value: Any, owner: str = '') -> Any:
        """Return ``value`` converted to this setting's type, if it is valid.

        ``int`` values are accepted for a ``float`` setting; ``bool`` is never
        taken for a number. An array checks each element.

        Args:
            value: the configured value.
            owner: what to name in an error, e.g. ``"sensor 'tactile_array'"``.

        Raises:
            ConfigError: wrong type, out of range or not a choice, saying what is valid.
        """
        where = f'parameter {self.name!r}' + (f' of {owner}' if owner else '')
        if self.is_array:
            if not isinstance(value, (list, tuple)):
                raise ConfigError(f'{where} must be a list of {self.value_type.__name__}, '
                                  f'got {_type_name(value)} {value!r}')
            return [self._check_one(v, where) for v in value]
        return self._check_one(value, where)

    def _check_one(self, value: Any, where: str) -> Any:
        kind = self.value_type
        is_bool = isinstance(value, bool) or _type_name(value) == 'bool_'
        if kind is bool:
            if not is_bool:
                raise ConfigError(f'{where} must be a bool, got {_type_name(value)} {value!r}')
            return bool(value)
        if kind is str:
            if not isinstance(value, str):
                raise ConfigError(f'{where} must be a str, got {_type_name(value)} {value!r}')
            if self.choices and value not in self.choices:
                raise ConfigError(
                    f'{where} must be one of {", ".join(self.choices)}, got {value!r}')
            return value
        if kind is int:
            ok = isinstance(value, numbers.Integral) and not is_bool
        else:
            ok = isinstance(value, numbers.Real) and not is_bool
        if not ok:
            raise ConfigError(f'{where} must be {"an int" if kind is int else "a float"}, '
                              f'got {_type_name(value)} {value!r}')
        value = kind(value)
        if math.isnan(value):
            raise ConfigError(f'{where} must be a number, got nan')
        if self.low is not None and not self.low <= value <= self.high:
            raise ConfigError(f'{where} must be in [{self.low}, {self.high}], got {value!r}')
        return value

    def describe(self) -> str:
        """Return one line: name, type, default, range and description."""
        kind = self.value_type.__name__ + ('[]' if self.is_array else '')
        text = f'{self.name}: {kind} = {self.default!r}'
        if self.choices:
            text += f', one of {", ".join(self.choices)}'
        elif self.low is not None:
            text += f', in [{self.low}, {self.high}]'
        return text + (f'. {self.description}' if self.description else '')

    def per_item(self, description: str, read_only: bool = True) -> Setting:
        """Return this setting as an array of one value per item (or one for all).

        Args:
            description: what the items are, appended to the description.
            read_only: whether the array is read-only.
        """
        return Setting(self.name, [self.default], f'{self.description} {description}',
                       self.low, self.high, self.choices, read_only)
