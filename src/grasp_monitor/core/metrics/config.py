"""What the metrics are computed on: ``MetricsConfig``."""

from __future__ import annotations

import dataclasses
import math

from grasp_monitor.core.energy import DESIRED_VELOCITIES
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics.criteria import CriteriaConfig, CriteriaWeights
from grasp_monitor.core.quality import EpsilonConfig


#: When the energy metric takes its reference (see ``MetricsConfig.energy_from``).
ENERGY_REFERENCES = ('trial_start', 'grasp')


@dataclasses.dataclass(frozen=True)
class MetricsConfig:
    """What the metrics are computed on.

    Attributes:
        object: the grasped object.
        pads: the (left, right) gripper pads; also the robot bodies of the criteria.
        object_mass: mass of the object, kg.
        object_inertia: (3,) principal moments of inertia about its COG, kg·m².
        sample_period_s: nominal interval between samples, s.
        criteria: constants of the criteria.
        weights: weights of the total reward.
        energy_from: when the energy metric takes its reference pose of the object in
            each pad: ``trial_start`` (the benchmark's case: the object held from the
            start) or ``grasp`` (a pick: before the grasp the object is not in the hand,
            so no energy is reported, and the grasp event sets the reference).
        epsilon: how the grasp quality (Ferrari–Canny epsilon) of each sample is computed.
        energy_dt: the physics step of the simulation the samples come from, s: the
            energy metric's ``dt`` (the benchmark's analyser's), whatever
            ``sample_period_s``, so the energy does not depend on the sampling rate.
        energy_desired_velocity: the object's desired linear velocity in the energy
            metric (``core.energy.DESIRED_VELOCITIES``).
    """

    object: str  # noqa: A003 (named as its ROS parameter)
    pads: tuple[str, str]
    object_mass: float
    object_inertia: tuple[float, float, float]
    sample_period_s: float = 0.01
    criteria: CriteriaConfig = CriteriaConfig()
    weights: CriteriaWeights = CriteriaWeights()
    energy_from: str = 'trial_start'
    epsilon: EpsilonConfig = EpsilonConfig()
    energy_dt: float = 0.001
    energy_desired_velocity: str = DESIRED_VELOCITIES[0]

    def __post_init__(self) -> None:
        object.__setattr__(self, 'pads', tuple(self.pads))
        if self.energy_from not in ENERGY_REFERENCES:
            raise ConfigError(f'energy_from must be one of {", ".join(ENERGY_REFERENCES)}, '
                              f'got {self.energy_from!r}')
        if len(self.pads) != 2:
            raise ConfigError(f'pads must be two names (left, right), got {list(self.pads)}')
        if not self.object_mass > 0:
            raise ConfigError(f'object_mass must be > 0, got {self.object_mass}')
        if not self.sample_period_s > 0:
            raise ConfigError(f'sample_period_s must be > 0, got {self.sample_period_s}')
        if not (math.isfinite(self.energy_dt) and self.energy_dt > 0):
            raise ConfigError(f'energy_dt must be finite and > 0 s, got {self.energy_dt!r}')
        if self.energy_desired_velocity not in DESIRED_VELOCITIES:
            raise ConfigError(f'energy_desired_velocity must be one of '
                              f'{", ".join(DESIRED_VELOCITIES)}, '
                              f'got {self.energy_desired_velocity!r}')
