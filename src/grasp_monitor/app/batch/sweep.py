"""A sweep file: a scenario, a duration, and trials as a grid, a list or random draws.

```yaml
scenario: pick_lift
duration: 3.0                # optional: simulated seconds per trial at most (default: the
                             # scenario's own trial length); a trial stops at its verdict
continue_after_end: false    # optional: simulate the whole duration after the verdict too
params_file: my.yaml         # optional; default config/<scenario>.yaml; relative to this file
fixed: {friction: 1.0}       # optional: the same in every trial
grid:                        # the cartesian product of the lists ...
  object_mass_kg: [0.1, 0.3]
  grasp_controller.grip_force: [10.0, 20.0]
  seed: [0, 1]
# list: [{object_mass_kg: 0.1}, {object_mass_kg: 0.3, friction: 0.5}]   # ... or these trials
# random: {n: 20, seed: 0, uniform: {object_mass_kg: [0.05, 0.5]},    # ... or n draws
#          choice: {object_kind: [box, sphere]}}
```

Names: the scenario's parameters (``--param``), the physics settings (``--set``) and
``<node>.<parameter>`` of the parameter file. Every value is checked here, before a trial runs.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any, Mapping

from grasp_monitor.app.batch.names import kind_of
from grasp_monitor.app.batch.trial import Trial
from grasp_monitor.core.errors import ConfigError
import yaml

#: The sweep file's keys.
KEYS = ('scenario', 'duration', 'continue_after_end', 'params_file', 'fixed', 'grid', 'list',
        'random')
#: The ways of listing trials, one per file.
KINDS = ('grid', 'list', 'random')
#: The keys of ``random``.
RANDOM_KEYS = ('n', 'seed', 'uniform', 'choice')


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A sweep's trials, checked.

    Attributes:
        path: the sweep file.
        scenario: the scenario.
        names: the names the trials set, in the file's order (what the plots are against).
        trials: every trial, in order.
    """

    path: Path
    scenario: str
    names: tuple[str, ...]
    trials: tuple[Trial, ...]

    @classmethod
    def from_file(cls, path: Path | str) -> Sweep:
        """Read and check a sweep file.

        Raises:
            ConfigError: naming the file, the entry as written and what is valid.
        """
        path = Path(path)
        try:
            spec = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError) as error:
            raise ConfigError(f'{path}: cannot read the sweep: {error}') from None
        return cls.from_dict(spec, path)

    @classmethod
    def from_dict(cls, spec: Any, path: Path) -> Sweep:
        """Check a parsed sweep (``path`` names it in errors and anchors ``params_file``)."""
        if not isinstance(spec, dict):
            raise ConfigError(f'{path}: a sweep is a mapping with keys {", ".join(KEYS)}')
        for key in spec:
            if key not in KEYS:
                raise ConfigError(f'{path}: unknown key {key!r}; valid: {", ".join(KEYS)}')
        given = [kind for kind in KINDS if kind in spec]
        if len(given) != 1:
            raise ConfigError(f'{path}: give exactly one of {", ".join(KINDS)}; '
                              f'got {", ".join(given) or "none"}')
        from grasp_monitor.app.scenario_config import ScenarioConfig
        from grasp_monitor.sim.scenes import SCENARIOS
        if 'scenario' not in spec:
            raise ConfigError(f'{path}: scenario is missing; valid: {", ".join(SCENARIOS)}')
        scenario = spec['scenario']
        if scenario not in SCENARIOS:
            raise ConfigError(f'{path}: scenario {scenario!r} is not one of '
                              f'{", ".join(SCENARIOS)}')
        duration = spec.get('duration')
        if duration is not None and (
                isinstance(duration, bool) or not isinstance(duration, (int, float))
                or not duration > 0):
            raise ConfigError(f'{path}: duration {_written(duration)} must be a number of '
                              "simulated seconds > 0 (leave it out: the scenario's own trial "
                              'length)')
        continue_after_end = spec.get('continue_after_end', False)
        if not isinstance(continue_after_end, bool):
            raise ConfigError(f'{path}: continue_after_end {_written(continue_after_end)} must '
                              'be true or false')
        params_file = ''
        if spec.get('params_file'):
            params_file = str((path.parent / str(spec['params_file'])).resolve())
            config = ScenarioConfig.from_file(params_file)
            if config.scenario != scenario:
                raise ConfigError(f'{path}: params_file {spec["params_file"]} simulates '
                                  f'{config.scenario!r}, not {scenario!r}')
        else:
            config = ScenarioConfig.for_scenario(scenario)
        fixed = _mapping(spec.get('fixed', {}), f'{path}: fixed')
        kind = given[0]
        if kind == 'grid':
            grid = _mapping(spec['grid'], f'{path}: grid')
            for name, values in grid.items():
                if not isinstance(values, list) or not values:
                    raise ConfigError(f'{path}: grid.{name} must be a list of values, '
                                      f'got {values!r}')
            rows = [dict(zip(grid, combination))
                    for combination in itertools.product(*grid.values())]
        elif kind == 'list':
            if not isinstance(spec['list'], list) or not spec['list']:
                raise ConfigError(f'{path}: list must be a list of trials (mappings)')
            rows = [_mapping(row, f'{path}: list[{i}]') for i, row in enumerate(spec['list'])]
        else:
            rows = _draws(spec['random'], f'{path}: random')
        names = tuple(dict.fromkeys(name for row in rows for name in row))
        where = str(path)
        for name in [*fixed, *names]:
            try:
                kind_of(scenario, name)
            except ConfigError as error:
                raise ConfigError(f'{where}: {error}') from None
        checked: dict[tuple[str, str], Any] = {}
        trials = []
        for i, row in enumerate(rows):
            values = fixed | row
            for name, value in values.items():
                label = 'fixed' if name not in row else \
                    f'grid.{name}' if kind == 'grid' else f'{kind}[{i}]'
                token = (name, json.dumps(value, sort_keys=True, default=str))
                if token not in checked:
                    checked[token] = _check(scenario, config, name, value,
                                            f'{where}: {label}: {name}={_written(value)}')
                values[name] = checked[token]
            _check_together(values, f'{where}: {kind}[{i}]')
            trials.append(Trial(scenario, params_file,
                                None if duration is None else float(duration),
                                tuple(values.items()), continue_after_end))
        return cls(path, scenario, names, tuple(trials))


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f'{where} must be a mapping of names to values, got {value!r}')
    return {str(key): item for key, item in value.items()}


def _written(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _check(scenario: str, config: Any, name: str, value: Any, where: str) -> Any:
    """Return ``value`` as a trial sets it, checked as ``--param``/``--set`` check it."""
    from grasp_monitor.sim.scene import SimSettings
    from grasp_monitor.sim.scenes import apply_settings, check_params
    kind = kind_of(scenario, name)
    if kind == 'node':
        node, _, parameter = name.partition('.')
        return config.with_values({name: value}, where).given[node][parameter]
    if kind == 'set':
        apply_settings(SimSettings(), {name: (where, value)})
        return value
    try:
        check_params(scenario, {name: value})
    except ConfigError as error:
        raise ConfigError(f'{where}: {error}') from None
    return value


def _check_together(values: Mapping[str, Any], where: str) -> None:
    """Refuse physics settings that are fine alone but not together (solref and the step)."""
    from grasp_monitor.sim.scene import SimSettings
    from grasp_monitor.sim.scenes import apply_settings
    from grasp_monitor.app.batch.names import SETTING_NAMES
    apply_settings(SimSettings(), {name: (f'{where}: {name}={_written(value)}', value)
                                   for name, value in values.items() if name in SETTING_NAMES})


def _draws(spec: Any, where: str) -> list[dict[str, Any]]:
    """Return ``n`` trials drawn with ``seed``: each ``uniform`` in [low, high], a ``choice``."""
    import numpy as np
    spec = _mapping(spec, where)
    for key in spec:
        if key not in RANDOM_KEYS:
            raise ConfigError(f'{where}: unknown key {key!r}; valid: {", ".join(RANDOM_KEYS)}')
    n, seed = spec.get('n'), spec.get('seed')
    for key, value in (('n', n), ('seed', seed)):
        if type(value) is not int or value < (1 if key == 'n' else 0):
            raise ConfigError(f'{where}.{key} must be an integer >= {1 if key == "n" else 0}, '
                              f'got {value!r}')
    uniform = _mapping(spec.get('uniform', {}), f'{where}.uniform')
    choice = _mapping(spec.get('choice', {}), f'{where}.choice')
    if not uniform and not choice:
        raise ConfigError(f'{where}: give uniform ranges or choices to draw from')
    for name, bounds in uniform.items():
        if not isinstance(bounds, list) or len(bounds) != 2 or any(
                isinstance(b, bool) or not isinstance(b, (int, float)) for b in bounds) \
                or not bounds[0] <= bounds[1]:
            raise ConfigError(f'{where}.uniform.{name} must be [low, high] with low <= high, '
                              f'got {bounds!r}')
    for name, options in choice.items():
        if not isinstance(options, list) or not options:
            raise ConfigError(f'{where}.choice.{name} must be a list of values, got {options!r}')
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        row: dict[str, Any] = {}
        for name, (low, high) in uniform.items():
            row[name] = int(rng.integers(low, high + 1)) if type(low) is int and \
                type(high) is int else float(rng.uniform(low, high))
        for name, options in choice.items():
            row[name] = options[int(rng.integers(len(options)))]
        rows.append(row)
    return rows
