"""The grasp benchmark's runs: scenario, physics settings, cubes, duration, threshold."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import math
from typing import Any, Iterable

from grasp_monitor.core.energy import DEFAULT_THRESHOLD_J
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.frame_sensors import with_frame_sensors
from grasp_monitor.sim.scene import Scene, SimSettings
from grasp_monitor.sim.scenes import build_scene, check_params

#: The benchmark's scenarios, as the command names them.
SCENARIOS = {'multi-block': 'multi_block', 'industrial-arm': 'industrial_arm'}
#: Cube counts and friction coefficients of the multiple block runs.
DEFAULT_CUBES = tuple(range(1, 12))
DEFAULT_FRICTIONS = (100.0, 1e8)
#: MuJoCo's own defaults for every setting but the step, which is the benchmark's 1 ms
#: (MuJoCo's default is 2 ms).
MUJOCO_DEFAULTS = SimSettings(
    timestep_s=0.001, friction=1.0, cone='pyramidal', solver='Newton', iterations=100,
    noslip_iterations=0, impratio=1.0, integrator='Euler')


@dataclass(frozen=True)
class BenchmarkCase:
    """One run of the benchmark.

    Attributes:
        scenario: 'multi_block' or 'industrial_arm'.
        settings: physics settings (friction included).
        n_cubes: cubes in the row (multi_block only; 1 for the arm's one cube).
        duration_s: simulated time unless the metric fails first, s.
        threshold_j: the metric fails above this, J.
        block_s: simulated time between two evaluations of the metric, s (2 s:
            1 s blocks cost 1 to 2 % more of a 1-cube step, from the fixed cost
            of each evaluation).
        series_interval_s: interval of the energy time series, s.
        params: the scene's generator parameters beyond the benchmark's (e.g.
            the arm's ``cube_joint``), as (name, value) pairs.
    """

    scenario: str
    settings: SimSettings = MUJOCO_DEFAULTS
    n_cubes: int = 1
    duration_s: float = 100.0
    threshold_j: float = DEFAULT_THRESHOLD_J
    block_s: float = 2.0
    series_interval_s: float = 0.01
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        valid = tuple(SCENARIOS.values())
        if self.scenario not in valid:
            raise ConfigError(f'scenario {self.scenario!r} is not one of {", ".join(valid)}')
        if not isinstance(self.settings, SimSettings):
            raise ConfigError(f'settings must be SimSettings, got {type(self.settings).__name__}')
        if self.scenario == 'industrial_arm' and self.n_cubes != 1:
            raise ConfigError(f'the industrial arm holds one cube, got n_cubes={self.n_cubes}')
        if not 1 <= self.n_cubes <= 11:
            raise ConfigError(f'n_cubes must be in 1..11, got {self.n_cubes}')
        for name in ('duration_s', 'threshold_j', 'block_s', 'series_interval_s'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f'{name} must be finite and > 0, got {value!r}')
        params = dict(self.params)
        for name in ('n_cubes', 'duration_s'):
            if name in params:
                raise ConfigError(f'{name} is a field of the run, not one of its params')
        object.__setattr__(self, 'params',
                           tuple(check_params(self.scenario, params).items()))

    @property
    def label(self) -> str:
        """Short name of the run, e.g. ``n=3 μ=100``."""
        if self.scenario == 'multi_block':
            return f'n={self.n_cubes} μ={self.settings.friction:g}'
        return f'arm μ={self.settings.friction:g}'

    @property
    def series_steps(self) -> int:
        """Physics steps per interval of the energy time series."""
        return max(1, round(self.series_interval_s / self.settings.timestep_s))

    @property
    def block_steps(self) -> int:
        """Physics steps per evaluation of the metric: whole series intervals."""
        window = self.series_steps
        return window * max(1, round(self.block_s / (window * self.settings.timestep_s)))

    def build_scene(self, sensors: bool = True) -> Scene:
        """Generate the scene, with the frame sensors the run reads appended (``sensors``).

        The sensors keep a block of samples each (``block_steps``), which MuJoCo
        records at every step.
        """
        params: dict[str, Any] = {'duration_s': self.duration_s, **dict(self.params)}
        if self.scenario == 'multi_block':
            params['n_cubes'] = self.n_cubes
        scene = build_scene(self.scenario, dataclasses.asdict(self.settings), **params)
        return with_frame_sensors(scene, self.block_steps) if sensors else scene


def multi_block_cases(cubes: Iterable[int] = DEFAULT_CUBES,
                      frictions: Iterable[float] = DEFAULT_FRICTIONS,
                      settings: SimSettings = MUJOCO_DEFAULTS,
                      **case: Any) -> list[BenchmarkCase]:
    """Return a multiple block run per friction and cube count (friction varies slowest)."""
    return [BenchmarkCase('multi_block', dataclasses.replace(settings, friction=float(mu)),
                          n_cubes=int(n), **case)
            for mu in frictions for n in cubes]


def industrial_arm_cases(frictions: Iterable[float] = (1.0,),
                         settings: SimSettings = MUJOCO_DEFAULTS,
                         **case: Any) -> list[BenchmarkCase]:
    """Return an industrial arm run per friction."""
    return [BenchmarkCase('industrial_arm', dataclasses.replace(settings, friction=float(mu)),
                          **case) for mu in frictions]
