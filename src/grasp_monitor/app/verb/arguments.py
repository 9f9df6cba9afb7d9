"""What several verbs parse alike: the scenario and its parameter file, ``KEY=VALUE``.

One scenario convention for every verb that simulates one: a positional ``scenario``,
optional where the verb has a default (the parameter file's scenario, else
``DEFAULT_SCENARIO``), and ``--params-file`` for another parameter file than
``config/<scenario>.yaml``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TYPE_CHECKING

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.scenes import DEFAULT_SCENARIO, SCENARIOS

if TYPE_CHECKING:
    from grasp_monitor.app.scenario_config import ScenarioConfig


def add_scenario(parser: argparse.ArgumentParser, *, optional: bool = False,
                 params_file: bool = True) -> None:
    """Add the positional ``scenario`` and, with ``params_file``, ``--params-file``.

    Args:
        parser: the verb's parser.
        optional: the scenario may be left out; it is then the parameter file's, else
            ``DEFAULT_SCENARIO``.
        params_file: the verb reads a ROS parameter file.
    """
    if not optional:
        parser.add_argument('scenario', choices=SCENARIOS)
    elif params_file:
        parser.add_argument('scenario', nargs='?', choices=SCENARIOS,
                            help=f"scenario (default: the parameter file's, else "
                            f'{DEFAULT_SCENARIO})')
    else:
        parser.add_argument('scenario', nargs='?', choices=SCENARIOS, default=DEFAULT_SCENARIO,
                            help=f'scenario (default {DEFAULT_SCENARIO})')
    if params_file:
        parser.add_argument('--params-file', type=Path,
                            help='ROS parameter file (default: config/<scenario>.yaml)')


def scenario_config(args: argparse.Namespace) -> ScenarioConfig:
    """Return the parameter file ``args`` name, checked against their scenario.

    Raises:
        ConfigError: the file does not parse, or simulates another scenario than the one
            named.
    """
    from grasp_monitor.app.scenario_config import ScenarioConfig
    config = ScenarioConfig.from_file(args.params_file) if args.params_file else \
        ScenarioConfig.for_scenario(args.scenario or DEFAULT_SCENARIO)
    if args.scenario and args.scenario != config.scenario:
        raise ConfigError(f'{config.params_file} simulates {config.scenario!r}, not '
                          f'{args.scenario!r}; name {config.scenario!r} or pick another file')
    return config


def key_value(text: str) -> tuple[str, Any]:
    """Parse ``KEY=VALUE``; the value as JSON where it parses, else the text."""
    key, _, value = text.partition('=')
    if not key or not value:
        raise argparse.ArgumentTypeError(f'expected KEY=VALUE, got {text!r}')
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def as_written(option: str, value: Any) -> str:
    """Return ``option`` and its parsed ``value`` as the user wrote them, for errors.

    After an ``option`` ending in ``=`` the value is one word, JSON as ``key_value``
    read it (``--set solref=[0.02, 1]``); otherwise each value is a word of its own
    (``--solref 0.02 1``).
    """
    if option.endswith('='):
        return option + (value if isinstance(value, str) else json.dumps(value))
    return ' '.join([option, *(f'{v:g}' if isinstance(v, float) else str(v) for v in (
        value if isinstance(value, list) else [value]))])
