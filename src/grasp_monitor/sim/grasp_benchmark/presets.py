"""Named settings of the grasp benchmark: what the benchmark prescribes, MuJoCo's, and ours.

A preset holds the physics settings (friction aside: the runs set it) and the scenes'
generator parameters beyond the benchmark's. docs/benchmark.md says which to use for what
and how the stable one was found (``benchmarks/sweep_benchmark.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.grasp_benchmark.cases import MUJOCO_DEFAULTS
from grasp_monitor.sim.scene import MUJOCO_SOLIMP, MUJOCO_SOLREF, SimSettings
from grasp_monitor.sim.scenes import apply_settings


@dataclass(frozen=True)
class Preset:
    """Settings of a whole benchmark command.

    Attributes:
        name: as ``--preset`` takes it.
        settings: physics settings of every run (each run sets its friction).
        params: per scenario, generator parameters beyond the benchmark's.
        summary: one line: what it is and what it is for.
    """

    name: str
    settings: SimSettings
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    summary: str = ''

    def scene_params(self, scenario: str) -> tuple[tuple[str, Any], ...]:
        """Return the generator parameters of ``scenario`` as ``BenchmarkCase.params``."""
        return tuple(self.params.get(scenario, {}).items())


#: The contact softness the stable preset gives every grasp contact.
STABLE_SOLREF = (0.002, 1.0)
STABLE_SOLIMP = (0.9999, 0.9999, 0.001, 0.5, 2.0)

PRESETS = {preset.name: preset for preset in (
    Preset('benchmark', MUJOCO_DEFAULTS, summary=(
        "the default: the benchmark's 1 ms step and frictions, MuJoCo's defaults for "
        "everything the benchmark leaves open, each scene's own contact softness (the "
        "arm's: a time constant of two steps)")),
    Preset('mujoco', dataclasses.replace(MUJOCO_DEFAULTS, solref=MUJOCO_SOLREF,
                                         solimp=MUJOCO_SOLIMP), summary=(
        "MuJoCo's defaults for every setting, contact softness included, at the "
        "benchmark's 1 ms step: what a scene written without solver settings gets")),
    Preset('stable', dataclasses.replace(
        MUJOCO_DEFAULTS, cone='elliptic', impratio=10.0, solref=STABLE_SOLREF,
        solimp=STABLE_SOLIMP),
        params={'industrial_arm': {'cube_joint': 'hand'}}, summary=(
        'recommended: the stiffest contacts MuJoCo resolves (a time constant of two '
        "steps, MuJoCo's highest impedance) and friction ten times stiffer than the "
        "normal (elliptic cone), no noslip; the arm's cube in the hand's coordinates")),
)}
#: What the command runs unless told otherwise.
DEFAULT_PRESET = 'benchmark'


def preset(name: str) -> Preset:
    """Return the preset called ``name``.

    Raises:
        ConfigError: no such preset (the message lists them).
    """
    if name not in PRESETS:
        raise ConfigError(f'unknown preset {name!r}; presets: {", ".join(PRESETS)}')
    return PRESETS[name]


def preset_settings(name: str, given: Mapping[str, tuple[str, Any]]) -> SimSettings:
    """Return preset ``name``'s settings with the ``given`` ones on top.

    Args:
        name: the preset.
        given: SimSettings field -> (the option as the user wrote it, its value).

    Raises:
        ConfigError: an unknown preset, or a bad value, named as written.
    """
    return apply_settings(preset(name).settings, given)
