"""Scenario generators, by name."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Callable, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.scene import Scene, SimSettings

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


def default_settings(name: str) -> SimSettings:
    """Return the physics settings a scenario uses unless told otherwise."""
    return _module(name).DEFAULT_SETTINGS


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
    base = module.DEFAULT_SETTINGS
    valid = {f.name for f in dataclasses.fields(SimSettings)}
    unknown = set(settings or {}) - valid
    if unknown:
        raise ConfigError(
            f'unknown settings {sorted(unknown)}; valid settings: {", ".join(sorted(valid))}')
    merged = dataclasses.replace(base, **dict(settings or {}))
    factory: Callable[..., Scene] = getattr(module, f'make_{name}')
    try:
        return factory(merged, **params)
    except TypeError as error:
        raise ConfigError(f'scenario {name}: {error}') from None
