"""Declaring a node's parameters from its table of ``Setting`` values (``core.settings``).

The tables are plain data, so the README reference and the config checks read
them without starting a node.
"""

from __future__ import annotations

from typing import Any, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.settings import Setting
from rcl_interfaces.msg import (
    FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult)
from rclpy.exceptions import ParameterException
from rclpy.node import Node


def descriptor(setting: Setting) -> ParameterDescriptor:
    """Return the ParameterDescriptor rclpy enforces on declare and on set."""
    result = ParameterDescriptor(description=setting.description, read_only=setting.read_only)
    if setting.choices:
        result.additional_constraints = 'one of: ' + ', '.join(setting.choices)
    if setting.low is not None and not setting.is_array and setting.value_type is float:
        result.floating_point_range = [FloatingPointRange(
            from_value=float(setting.low), to_value=float(setting.high), step=0.0)]
    elif setting.low is not None and not setting.is_array and setting.value_type is int:
        result.integer_range = [IntegerRange(
            from_value=int(setting.low), to_value=int(setting.high), step=1)]
    return result


def check(setting: Setting, value: Any) -> None:
    """Refuse a value outside the choices (rclpy checks the type and a number's range).

    An array is checked by the core object it configures, which names the item.
    """
    if setting.choices and not setting.is_array and value not in setting.choices:
        raise ConfigError(
            f'{setting.name} {value!r} is not one of {", ".join(setting.choices)}')


COMMON = (
    Setting('qos.best_effort', False,
            'Publish and subscribe sensor streams best effort instead of reliable.',
            read_only=True),
    Setting('qos.depth', 10, 'History depth of sensor streams.', 1, 1000, read_only=True),
    Setting('executor', 'events', "How the process dispatches callbacks: rclpy's "
            'EventsExecutor (events: about half the CPU per message) or its '
            'SingleThreadedExecutor (single_threaded); the first node of a process decides.',
            choices=('events', 'single_threaded'), read_only=True),
)


def declare(node: Node, specs: Sequence[Setting]) -> dict[str, Any]:
    """Declare ``specs`` on ``node`` and return their values, checked.

    Raises:
        ConfigError: a value of the wrong type, out of range, empty or outside its choices.
    """
    values = {}
    for spec in specs:
        try:
            value = node.declare_parameter(spec.name, spec.default, descriptor(spec)).value
        except ParameterException as error:  # a wrong type or out of range, from an override
            raise ConfigError(f'parameter {spec.name}: {error}') from None
        if value is None:  # e.g. "[]" in YAML, which carries no type
            raise ConfigError(f'parameter {spec.name} has no value; give a {spec.type_name} '
                              f'such as {spec.default!r}')
        check(spec, value)
        values[spec.name] = list(value) if isinstance(value, (list, tuple)) else value
    return values


def choice_checker(specs: Sequence[Setting]):
    """Return an on-set callback that refuses invalid choices with the reason."""
    by_name = {spec.name: spec for spec in specs}

    def callback(parameters: list) -> SetParametersResult:
        for parameter in parameters:
            spec = by_name.get(parameter.name)
            if spec is None:
                continue
            try:
                check(spec, parameter.value)
            except ConfigError as error:
                return SetParametersResult(successful=False, reason=str(error))
        return SetParametersResult(successful=True)

    return callback
