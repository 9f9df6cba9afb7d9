"""Declaring a node's parameters from its table of ``Setting`` values (``core.settings``).

``declare`` returns them as one frozen, typed object read by attribute
(``p.energy_dt`` for ``energy.dt``: ``core.setting_values``), and makes every set at
runtime pass one check (``refuse_bad_sets``). The tables are plain data, so the
README reference and the config checks read them without starting a node.
"""

from __future__ import annotations

import difflib
from typing import Any, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.setting_values import setting_values, SettingValues
from grasp_monitor.core.settings import Setting
from rcl_interfaces.msg import (
    FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult)
from rclpy.exceptions import ParameterException
from rclpy.node import Node
from rclpy.parameter import Parameter


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
    Setting('qos.depth', 10, 'History depth of sensor streams.', 1, 10000, read_only=True),
    Setting('executor', 'events', "How the process dispatches callbacks: rclpy's "
            'EventsExecutor (events: about half the CPU per message) or its '
            'SingleThreadedExecutor (single_threaded); the first node of a process decides.',
            choices=('events', 'single_threaded'), read_only=True),
    Setting('exit_with_parent', True, 'Stop (as on SIGTERM) once the process that started '
            'this one dies, e.g. a ros2 launch killed by SIGTERM: no node outlives its '
            'launch; the first node of a process decides.', read_only=True),
)


#: Parameters every node has (rclpy declares them) whose change at runtime would break a
#: trial, and why; the tables' own are ``read_only``.
FIXED_AT_START = {
    'use_sim_time': 'switching between simulated and wall time sends the clock years '
                    'forward or back mid-trial (the monitor would end the trial as a reset '
                    'and every late verdict would be lost)',
}


def valid_values(setting: Setting) -> str:
    """Return what values ``setting`` takes, as a refusal names them."""
    kind = setting.type_name.replace('_', ' ')
    kind = ('an ' if kind[0] in 'aeiou' else 'a ') + kind
    if setting.choices:
        return f'{kind}: one of {", ".join(setting.choices)}'
    if setting.low is not None:
        return f'{kind} in [{setting.low:g}, {setting.high:g}]'
    return kind


def refusal(node: Node, by_name: dict[str, Setting], parameter: Parameter) -> str:
    """Return why ``node`` refuses to set ``parameter`` ('' if this table does not).

    Names the parameter as it was written, the node and what is valid: an unknown
    name (with the closest declared one), a read-only parameter, a value of another
    type, out of range or not a choice; a change of one ``FIXED_AT_START``. Other
    parameters of no table are left to rclpy.
    """
    name = parameter.name
    where = f"parameter '{name}' of node '{node.get_name()}'"
    setting = by_name.get(name)
    if name in FIXED_AT_START and node.has_parameter(name) and \
            parameter.value != node.get_parameter(name).value:
        return (f'{where} is fixed once the node runs: {FIXED_AT_START[name]}; set it at '
                f'start (a parameter file, or --ros-args -p {name}:=...)')
    if setting is None:
        if node.has_parameter(name):
            return ''
        close = difflib.get_close_matches(name, list(by_name), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ''
        return f"node '{node.get_name()}' has no parameter '{name}'{hint}"
    if setting.read_only:
        return (f'{where} is read-only: set it at start (a parameter file, or --ros-args -p '
                f'{name}:=...) to {valid_values(setting)}')
    if parameter.type_ != Parameter.Type[setting.type_name.upper()]:
        return (f'{where} must be {valid_values(setting)}, got '
                f'{parameter.type_.name.lower().replace("_", " ")} {parameter.value!r}')
    try:
        setting.check(list(parameter.value) if setting.is_array else parameter.value)
    except ConfigError:
        return f'{where} must be {valid_values(setting)}, got {parameter.value!r}'
    return ''


def refuse_bad_sets(node: Node, specs: Sequence[Setting]) -> None:
    """Make ``node``'s parameter services refuse a bad set of ``specs`` with its reason.

    Both set services call ``set_parameters_atomically``; this wraps the node's with
    the checks of ``refusal`` before rclpy's own, whose reasons name neither the node
    nor (for a wrong type) the parameter.
    """
    by_name = {spec.name: spec for spec in specs}
    apply = node.set_parameters_atomically

    def set_parameters_atomically(parameter_list: list[Parameter]) -> SetParametersResult:
        for parameter in parameter_list:
            reason = refusal(node, by_name, parameter)
            if reason:
                return SetParametersResult(successful=False, reason=reason)
        return apply(parameter_list)

    node.set_parameters_atomically = set_parameters_atomically


def declare(node: Node, specs: Sequence[Setting]) -> SettingValues:
    """Declare ``specs`` on ``node`` and return their values, checked, as a typed object.

    A set at runtime is then refused with a reason naming the parameter, the node and
    what is valid (``refuse_bad_sets``): the one set-time check of every node.

    Raises:
        ConfigError: a value of the wrong type, out of range, empty or outside its choices.
    """
    values = {}
    for spec in specs:
        where = f"parameter '{spec.name}' of node '{node.get_name()}'"
        try:
            value = node.declare_parameter(spec.name, spec.default, descriptor(spec)).value
        except ParameterException as error:  # a wrong type or out of range, from an override
            raise ConfigError(f'{where} must be {valid_values(spec)} ({error.args[0]})') \
                from None
        if value is None:  # e.g. "[]" in YAML, which carries no type
            raise ConfigError(f'{where} has no value; give {valid_values(spec)} such as '
                              f'{spec.default!r}')
        try:
            check(spec, value)
        except ConfigError:
            raise ConfigError(f'{where} must be {valid_values(spec)}, got {value!r}') from None
        values[spec.name] = value
    refuse_bad_sets(node, specs)
    return setting_values(specs, values)
