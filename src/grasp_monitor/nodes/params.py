"""Declared parameters: one table per node, declared with descriptors and ranges.

The tables are plain data so the README reference and the config checks read
them without starting a node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from grasp_monitor.core.errors import ConfigError
from rcl_interfaces.msg import (
    FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult,
)
from rclpy.exceptions import ParameterException
from rclpy.node import Node


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: name, default (its type is the parameter's), description, range."""

    name: str
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    read_only: bool = False

    @property
    def type_name(self) -> str:
        """Return the ROS parameter type, for documentation."""
        kinds = {bool: 'bool', int: 'integer', float: 'double', str: 'string'}
        if isinstance(self.default, (list, tuple)):
            return kinds[type(self.default[0])] + '_array'
        return kinds[type(self.default)]

    def descriptor(self) -> ParameterDescriptor:
        """Return the ParameterDescriptor rclpy enforces on declare and on set."""
        descriptor = ParameterDescriptor(
            description=self.description, read_only=self.read_only)
        if self.choices:
            descriptor.additional_constraints = 'one of: ' + ', '.join(self.choices)
        if self.low is not None and isinstance(self.default, float):
            descriptor.floating_point_range = [FloatingPointRange(
                from_value=float(self.low), to_value=float(self.high), step=0.0)]
        elif self.low is not None and isinstance(self.default, int) \
                and not isinstance(self.default, bool):
            descriptor.integer_range = [IntegerRange(
                from_value=int(self.low), to_value=int(self.high), step=1)]
        return descriptor

    def check(self, value: Any) -> None:
        """Refuse a value outside the choices (rclpy checks numeric ranges itself)."""
        if self.choices and value not in self.choices:
            raise ConfigError(
                f'{self.name} {value!r} is not one of {", ".join(self.choices)}')


COMMON = (
    ParamSpec('qos.best_effort', False,
              'Publish and subscribe sensor streams best effort instead of reliable.',
              read_only=True),
    ParamSpec('qos.depth', 10, 'History depth of sensor streams.', 1, 1000, read_only=True),
)


def declare(node: Node, specs: Sequence[ParamSpec]) -> dict[str, Any]:
    """Declare ``specs`` on ``node`` and return their values, checked.

    Raises:
        ConfigError: a value of the wrong type, out of range, empty or outside its choices.
    """
    values = {}
    for spec in specs:
        try:
            value = node.declare_parameter(spec.name, spec.default, spec.descriptor()).value
        except ParameterException as error:  # a wrong type or out of range, from an override
            raise ConfigError(f'parameter {spec.name}: {error}') from None
        if value is None:  # e.g. "[]" in YAML, which carries no type
            raise ConfigError(f'parameter {spec.name} has no value; give a {spec.type_name} '
                              f'such as {spec.default!r}')
        spec.check(value)
        values[spec.name] = list(value) if isinstance(value, (list, tuple)) else value
    return values


def choice_checker(specs: Sequence[ParamSpec]):
    """Return an on-set callback that refuses invalid choices with the reason."""
    by_name = {spec.name: spec for spec in specs}

    def callback(parameters: list) -> SetParametersResult:
        for parameter in parameters:
            spec = by_name.get(parameter.name)
            if spec is None:
                continue
            try:
                spec.check(parameter.value)
            except ConfigError as error:
                return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

    return callback
