"""The external force test: the force the simulator applies to the object after a grasp."""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import ConfigError
import numpy as np

#: The profiles of :class:`ExternalForceTest`.
FORCE_PROFILES = ('sine', 'random')


@dataclass(frozen=True)
class ExternalForceTest:
    """The force the simulator applies to the object after a grasp (REFERENCE.md §1).

    'sine': ``(A·sin(ω·τ) + offset) · direction`` with ``A = amplitude_per_kg_n ·
    mass`` and ``τ`` the time since the grasp. 'random': a force of magnitude
    ``amplitude_per_kg_n · mass`` along a direction drawn uniformly on the
    sphere, redrawn every ``redraw_steps`` steps since the grasp; the
    direction of each block of steps depends only on ``seed`` and the block
    index, so any step can be evaluated alone and reruns repeat exactly.

    Attributes:
        profile: 'sine' or 'random'.
        amplitude_per_kg_n: force amplitude per kg of object, N/kg (default 100).
        angular_frequency_rad_per_s: ω of the sine, rad/s (default 0.5).
        offset_n: constant part of the sine, N (default 1).
        direction_in_world: (3,) direction of the sine force, normalised
            (default +z).
        redraw_steps: steps between random directions (default 100).
        seed: seed of the random directions.
    """

    profile: str = 'sine'
    amplitude_per_kg_n: float = 100.0
    angular_frequency_rad_per_s: float = 0.5
    offset_n: float = 1.0
    direction_in_world: np.ndarray = (0.0, 0.0, 1.0)  # type: ignore[assignment]
    redraw_steps: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        if self.profile not in FORCE_PROFILES:
            raise ConfigError(
                f'profile {self.profile!r} is not one of {", ".join(FORCE_PROFILES)}')
        for name in ('amplitude_per_kg_n', 'angular_frequency_rad_per_s', 'offset_n'):
            if not math.isfinite(getattr(self, name)):
                raise ConfigError(f'{name} must be finite, got {getattr(self, name)}')
        if self.amplitude_per_kg_n < 0:
            raise ConfigError(f'amplitude_per_kg_n must be >= 0, got {self.amplitude_per_kg_n}')
        direction = np.array(self.direction_in_world, dtype=float)
        norm = float(np.linalg.norm(direction)) if direction.shape == (3,) else 0.0
        if not (norm > 0 and math.isfinite(norm)):
            raise ConfigError(
                f'direction_in_world must be a finite non-zero 3-vector, '
                f'got {direction.tolist()}')
        direction = direction / norm
        direction.setflags(write=False)
        object.__setattr__(self, 'direction_in_world', direction)
        if self.seed < 0:
            raise ConfigError(f'seed must be >= 0, got {self.seed}')
        if self.redraw_steps < 1:
            raise ConfigError(f'redraw_steps must be >= 1, got {self.redraw_steps}')

    def force_in_world(self, time_since_grasp_s: float, object_mass_kg: float,
                       step_since_grasp: int = 0) -> np.ndarray:
        """Return the (3,) force on the object's COG, N, world frame.

        Args:
            time_since_grasp_s: τ, s; before the grasp (τ < 0) the force is zero.
            object_mass_kg: mass of the object, kg (> 0).
            step_since_grasp: physics steps since the grasp ('random' only).

        Raises:
            ConfigError: a mass that is not > 0.
        """
        if not (object_mass_kg > 0 and math.isfinite(object_mass_kg)):
            raise ConfigError(f'object_mass_kg must be finite and > 0, got {object_mass_kg}')
        if time_since_grasp_s < 0 or step_since_grasp < 0:
            return np.zeros(3)
        amplitude_n = self.amplitude_per_kg_n * object_mass_kg
        if self.profile == 'sine':
            magnitude_n = (amplitude_n * math.sin(self.angular_frequency_rad_per_s
                                                  * time_since_grasp_s) + self.offset_n)
            return magnitude_n * self.direction_in_world
        block = step_since_grasp // self.redraw_steps
        # A normal 3-vector has a direction uniform on the sphere.
        draw = np.random.default_rng((self.seed, block)).standard_normal(3)
        return amplitude_n * draw / np.linalg.norm(draw)
