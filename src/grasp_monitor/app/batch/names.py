"""What a swept name sets: a scenario parameter, a physics setting or a node's parameter."""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.scene import SimSettings
from grasp_monitor.sim.scenes import parameter_names

#: ``--set`` names: the physics settings.
SETTING_NAMES = tuple(field.name for field in dataclasses.fields(SimSettings))


def kind_of(scenario: str, name: str) -> str:
    """Return 'set' (a physics setting), 'param' (a scenario parameter) or 'node'.

    A node's parameter is written ``<node>.<parameter>``, as in the scenario's parameter
    file (``grasp_controller.grip_force``).

    Raises:
        ConfigError: none of these, naming the closest valid name.
    """
    if '.' in name:
        return 'node'
    if name in SETTING_NAMES:
        return 'set'
    params = parameter_names(scenario)
    if name in params:
        return 'param'
    match = difflib.get_close_matches(name, [*params, *SETTING_NAMES], n=1)
    raise ConfigError(
        f'{name!r} is no parameter of scenario {scenario}'
        + (f' (did you mean {match[0]!r}?)' if match else '')
        + f'; its parameters (--param): {", ".join(params)}; physics settings (--set): '
        f'{", ".join(SETTING_NAMES)}; or a node\'s parameter as <node>.<parameter>')


def split(scenario: str, values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Return ``values`` by kind: ``{'set': ..., 'param': ..., 'node': ...}``."""
    kinds: dict[str, dict[str, Any]] = {'set': {}, 'param': {}, 'node': {}}
    for name, value in values.items():
        kinds[kind_of(scenario, name)][name] = value
    return kinds
