"""Scenario generators, by name."""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
from typing import Any, Callable, Mapping, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.scene import Scene, SimSettings
from grasp_monitor.sim.scenes.parameters import SCENARIO_SETTINGS

# name -> module; imported lazily so one scenario's cost is not paid by the others.
_MODULES = {
    'pick_lift': 'grasp_monitor.sim.scenes.pick_lift',
    'multi_block': 'grasp_monitor.sim.scenes.multi_block',
    'industrial_arm': 'grasp_monitor.sim.scenes.industrial_arm',
}
SCENARIOS = tuple(_MODULES)
DEFAULT_SCENARIO = 'pick_lift'


def _module(name: str) -> Any:
    if name not in _MODULES:
        raise ConfigError(f'unknown scenario {name!r}; valid scenarios: {", ".join(SCENARIOS)}')
    return importlib.import_module(_MODULES[name])


def build_scene(
    name: str,
    settings: Mapping[str, Any] | None = None,
    **params: Any,
) -> Scene:
    """Generate scenario ``name`` with settings overrides and scenario parameters.

    Raises:
        ConfigError: unknown scenario, setting or parameter (the message lists the valid ones).
    """
    module = _module(name)
    merged = dataclasses.replace(module.DEFAULT_SETTINGS, **check_settings(settings or {}))
    try:
        return getattr(module, f'make_{name}')(merged, **check_params(name, params))
    except TypeError as error:  # an undeclared parameter of the wrong type
        raise ConfigError(f'scenario {name}: {error}') from None


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Return physics settings (SimSettings fields) checked and converted.

    Raises:
        ConfigError: an unknown name (with the closest valid one) or a bad value.
    """
    _check_names(settings)
    checked = dataclasses.replace(SimSettings(), **dict(settings))
    return {key: getattr(checked, key) for key in settings}


def apply_settings(settings: SimSettings, given: Mapping[str, tuple[str, Any]]) -> SimSettings:
    """Return ``settings`` with the ``given`` ones on top, each checked in turn.

    Args:
        settings: where to start.
        given: SimSettings field -> (the input as the user wrote it, its value).

    Raises:
        ConfigError: an unknown name or a bad value, naming the input as written.
    """
    # The step first: solref's bound depends on it.
    for key in sorted(given, key=lambda key: key != 'timestep_s'):
        written, value = given[key]
        try:
            _check_names({key: value})
            settings = dataclasses.replace(settings, **{key: value})
        except ConfigError as error:
            raise ConfigError(f'{written}: {error}') from None
    return settings


def _check_names(settings: Mapping[str, Any]) -> None:
    valid = [f.name for f in dataclasses.fields(SimSettings)]
    for key in settings:
        if key not in valid:
            raise ConfigError(f'unknown physics setting {key!r}{_closest(key, valid)}; valid '
                              f'settings: {", ".join(valid)}')


def parameter_names(name: str) -> list[str]:
    """Return the parameters scenario ``name``'s generator takes (``--param`` names)."""
    factory: Callable[..., Scene] = getattr(_module(name), f'make_{name}')
    return [key for key in inspect.signature(factory).parameters if key != 'settings']


def check_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Return scenario ``name``'s generator parameters, the declared ones checked.

    Raises:
        ConfigError: an unknown scenario or parameter (with the closest valid one), or a
            declared parameter's bad value.
    """
    accepted = parameter_names(name)
    declared = {setting.name: setting for setting in SCENARIO_SETTINGS[name]}
    checked = {}
    for key, value in params.items():
        if key not in accepted:
            raise ConfigError(f'scenario {name} has no parameter {key!r}{_closest(key, accepted)}'
                              f'; its parameters: {", ".join(accepted)}')
        checked[key] = declared[key].check(value, f'scenario {name}') if key in declared \
            else value
    return checked


def _closest(key: str, valid: Sequence[str]) -> str:
    match = difflib.get_close_matches(key, valid, n=1)
    return f' (did you mean {match[0]!r}?)' if match else ''
