"""The grasped objects and the rules of the energy metric: ``EnergyTrackerConfig``."""

from __future__ import annotations

from dataclasses import dataclass

from grasp_monitor.core.energy.checks import _positive
from grasp_monitor.core.errors import ConfigError
import numpy as np

#: The reference's failure threshold, J.
DEFAULT_THRESHOLD_J = 1e7
#: The object's desired linear velocity: ``rigid`` ``v_g + ω_g × (x* − x_g)`` (the object
#: carried rigidly, the benchmark's prose) or ``gripper`` ``v_g`` (the benchmark's code).
DESIRED_VELOCITIES = ('rigid', 'gripper')


@dataclass(frozen=True)
class EnergyTrackerConfig:
    """The grasped objects and the rules of the energy metric.

    Attributes:
        object_names: the tracked objects, in the order of every input.
        mass_kg: (K,) mass of each object, kg (one value is used for all).
        inertia_in_body_kg_m2: (K, 3, 3) inertia of each object about its
            centre of mass in its body axes, kg·m²; (K, 3) principal moments
            are read as diagonal tensors.
        gripper_names: the (left, right) gripper bodies.
        dt_s: the physics step of the simulation the states come from, s: the
            ``dt`` of every sample (the benchmark's analyser's ``time_step``),
            whatever the interval between samples.
        threshold_j: a trial fails when any object's energy exceeds this, J.
        desired_velocity: the object's desired linear velocity, one of
            ``DESIRED_VELOCITIES``.
        initial_capacity: samples the history holds before it first grows.
    """

    object_names: tuple[str, ...]
    mass_kg: np.ndarray
    inertia_in_body_kg_m2: np.ndarray
    gripper_names: tuple[str, str] = ('gripper_left', 'gripper_right')
    dt_s: float = 0.001
    threshold_j: float = DEFAULT_THRESHOLD_J
    initial_capacity: int = 1024
    desired_velocity: str = DESIRED_VELOCITIES[0]

    def __post_init__(self) -> None:
        names = tuple(self.object_names)
        if not names or len(set(names)) != len(names):
            raise ConfigError(f'object_names must name at least one object, each once, '
                              f'got {list(names)}')
        object.__setattr__(self, 'object_names', names)
        grippers = tuple(self.gripper_names)
        if len(grippers) != 2 or len(set(grippers)) != 2:
            raise ConfigError(f'gripper_names must be two different names (left, right), '
                              f'got {list(grippers)}')
        object.__setattr__(self, 'gripper_names', grippers)
        k = len(names)
        try:
            mass = np.broadcast_to(np.asarray(self.mass_kg, dtype=float), (k,)).copy()
        except ValueError:
            raise ConfigError(f'mass_kg must be one value or one per object ({k}), '
                              f'got shape {np.shape(self.mass_kg)}') from None
        _positive(mass, 'mass_kg', 'kg')
        mass.setflags(write=False)
        object.__setattr__(self, 'mass_kg', mass)
        inertia = np.array(self.inertia_in_body_kg_m2, dtype=float)
        if inertia.shape == (k, 3):
            inertia = inertia[:, :, None] * np.eye(3)
        if inertia.shape != (k, 3, 3):
            raise ConfigError(f'inertia_in_body_kg_m2 must have shape ({k}, 3, 3) or ({k}, 3), '
                              f'got {inertia.shape}')
        if not (np.all(np.isfinite(inertia))
                and np.allclose(inertia, np.swapaxes(inertia, 1, 2), rtol=1e-9, atol=1e-12)
                and np.all(np.linalg.eigvalsh(inertia) > 0.0)):
            raise ConfigError('inertia_in_body_kg_m2 must be finite, symmetric and positive '
                              'definite for every object')
        inertia.setflags(write=False)
        object.__setattr__(self, 'inertia_in_body_kg_m2', inertia)
        if not (np.isfinite(self.dt_s) and self.dt_s > 0):
            raise ConfigError(f'dt_s must be finite and > 0 s, got {self.dt_s!r}')
        if self.desired_velocity not in DESIRED_VELOCITIES:
            raise ConfigError(f'desired_velocity must be one of {", ".join(DESIRED_VELOCITIES)}, '
                              f'got {self.desired_velocity!r}')
        if not self.threshold_j > 0:
            raise ConfigError(f'threshold_j must be > 0 J, got {self.threshold_j!r}')
        if int(self.initial_capacity) != self.initial_capacity or self.initial_capacity < 1:
            raise ConfigError(
                f'initial_capacity must be an integer >= 1, got {self.initial_capacity!r}')
