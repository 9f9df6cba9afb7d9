"""The energy metric of grasped objects over a trial: ``EnergyTracker``."""

from __future__ import annotations

import math
from typing import Sequence

from grasp_monitor.core.energy.block_scoring import (
    _FIRST_BAD_TIME, _first_bad_time, _SCORE_BLOCK, _score_block)
from grasp_monitor.core.energy.config import EnergyTrackerConfig
from grasp_monitor.core.energy.samples import EnergyBlock, EnergySample
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_conjugate, quat_multiply, quat_to_matrix
from grasp_monitor.core.values import BodyState
import numpy as np
import numpy.typing as npt


class EnergyTracker:
    """The energy metric of grasped objects over a trial, per sample.

    At the start of a trial the tracker stores each object's pose relative to
    the left and the right gripper, ``T_gripper_object(0)``. At every sample
    the desired object state is that pose carried rigidly by the gripper,
    ``T_world_object* = T_world_gripper(t) T_gripper_object(0)``, with linear
    velocity ``v_g + ω_g × (x* − x_g)`` (``v_g`` with ``desired_velocity``
    ``gripper``, the benchmark's code) and angular velocity ``ω_g``; the
    energy is computed with respect to each gripper (inertia in the object's
    current orientation) and averaged. ``dt`` is the configured ``dt_s``, the
    physics step of the simulation the states come from, whatever the interval
    between samples: the benchmark's analyser takes the physics step, so the
    energy of a state does not depend on how often it is sampled.

    Feed each object's centre of mass and the inertia about it (with MuJoCo:
    frame sensors on ``objtype="body"``, the inertial frame, whose inertia is
    ``body_inertia``); any frame fixed to a gripper serves for the gripper.

    The arithmetic is one compiled loop over samples, objects and grippers;
    a simulator can record N steps of state and evaluate them with
    ``update_block``, which costs far less per step than N calls (a failure
    is then noticed up to N steps late).

    Args:
        config: the objects, their mass and inertia, and the threshold.
    """

    def __init__(self, config: EnergyTrackerConfig) -> None:
        self.config = config
        k = self._object_count = len(config.object_names)
        self._history_time_s = np.empty(config.initial_capacity)
        self._history_energy_j = np.empty((config.initial_capacity, k))
        self.reset()

    # -- trials ---------------------------------------------------------------------------
    def reset(
        self,
        objects: Sequence[BodyState] | None = None,
        left_gripper: BodyState | None = None,
        right_gripper: BodyState | None = None,
    ) -> None:
        """Start a new trial: forget the history, peaks and failure.

        With no states, the next sample is the trial's start and defines the
        relative poses. The states' times are not used.

        Args:
            objects: the objects at the start, in ``config.object_names`` order.
            left_gripper: the left gripper at the start.
            right_gripper: the right gripper at the start.

        Raises:
            ConfigError: if only some states are given or names do not match.
        """
        given = [state is not None for state in (objects, left_gripper, right_gripper)]
        if any(given) and not all(given):
            raise ConfigError('reset takes the objects and both grippers, or nothing')
        if all(given):
            stacked = self._stack(objects, left_gripper, right_gripper)  # type: ignore[arg-type]
            self.reset_arrays(stacked[1], stacked[2], stacked[5], stacked[6])
        else:
            self._clear()

    def reset_arrays(
        self,
        position_object_in_world: npt.ArrayLike,
        quaternion_object_in_world: npt.ArrayLike,
        position_gripper_in_world: npt.ArrayLike,
        quaternion_gripper_in_world: npt.ArrayLike,
    ) -> None:
        """Start a new trial from stacked start poses.

        Args:
            position_object_in_world: (K, 3) m.
            quaternion_object_in_world: (K, 4) (w, x, y, z).
            position_gripper_in_world: (2, 3) m, rows left then right.
            quaternion_gripper_in_world: (2, 4) (w, x, y, z).

        Raises:
            ConfigError: on wrong shapes.
        """
        k = self._object_count
        arrays = self._check(
            (position_object_in_world, (k, 3), 'position_object_in_world'),
            (quaternion_object_in_world, (k, 4), 'quaternion_object_in_world'),
            (position_gripper_in_world, (2, 3), 'position_gripper_in_world'),
            (quaternion_gripper_in_world, (2, 4), 'quaternion_gripper_in_world'))
        self._clear()
        self._start(*arrays)

    def _clear(self) -> None:
        """Forget the start poses, the history, the peaks and the failure."""
        self._count = 0
        self._last_time_s: float | None = None
        self._peak_energy_j = np.full(self._object_count, -np.inf)
        self._peak_time_s = np.full(self._object_count, np.nan)
        self._failure_time_s: float | None = None
        self._position_object_in_gripper: np.ndarray | None = None
        self._quaternion_object_in_gripper: np.ndarray | None = None

    def _start(self, position_object: np.ndarray, quaternion_object: np.ndarray,
               position_gripper: np.ndarray, quaternion_gripper: np.ndarray) -> None:
        """Store T_gripper_object(0) for both grippers, shape (2, K, ...)."""
        gripper_to_world = quat_to_matrix(quaternion_gripper)  # (2, 3, 3)
        offset_in_world = position_object[None] - position_gripper[:, None]  # (2, K, 3)
        self._position_object_in_gripper = np.einsum('gji,gkj->gki', gripper_to_world,
                                                     offset_in_world)
        self._quaternion_object_in_gripper = quat_multiply(
            quat_conjugate(quaternion_gripper)[:, None], quaternion_object[None])

    # -- samples --------------------------------------------------------------------------
    def update(self, objects: Sequence[BodyState], left_gripper: BodyState,
               right_gripper: BodyState) -> EnergySample:
        """Add one sample from body states; its time is the latest of theirs.

        Args:
            objects: the objects, in ``config.object_names`` order.
            left_gripper: the left gripper.
            right_gripper: the right gripper.

        Returns:
            The energies at this sample.

        Raises:
            ConfigError: if names do not match the configuration or time does
                not increase.
        """
        return self.update_arrays(*self._stack(objects, left_gripper, right_gripper))

    def update_arrays(
        self,
        time_s: float,
        position_object_in_world: npt.ArrayLike,
        quaternion_object_in_world: npt.ArrayLike,
        linear_velocity_object_in_world: npt.ArrayLike,
        angular_velocity_object_in_world: npt.ArrayLike,
        position_gripper_in_world: npt.ArrayLike,
        quaternion_gripper_in_world: npt.ArrayLike,
        linear_velocity_gripper_in_world: npt.ArrayLike,
        angular_velocity_gripper_in_world: npt.ArrayLike,
    ) -> EnergySample:
        """Add one sample from stacked arrays (world frame, body origins).

        Args:
            time_s: sample time, s; greater than the previous sample's.
            position_object_in_world: (K, 3) m.
            quaternion_object_in_world: (K, 4) (w, x, y, z).
            linear_velocity_object_in_world: (K, 3) m/s.
            angular_velocity_object_in_world: (K, 3) rad/s.
            position_gripper_in_world: (2, 3) m, rows left then right.
            quaternion_gripper_in_world: (2, 4) (w, x, y, z).
            linear_velocity_gripper_in_world: (2, 3) m/s.
            angular_velocity_gripper_in_world: (2, 3) rad/s.

        Returns:
            The energies at this sample.

        Raises:
            ConfigError: on wrong shapes or a time that does not increase.
        """
        k = self._object_count
        arrays = self._check(
            (position_object_in_world, (k, 3), 'position_object_in_world'),
            (quaternion_object_in_world, (k, 4), 'quaternion_object_in_world'),
            (linear_velocity_object_in_world, (k, 3), 'linear_velocity_object_in_world'),
            (angular_velocity_object_in_world, (k, 3), 'angular_velocity_object_in_world'),
            (position_gripper_in_world, (2, 3), 'position_gripper_in_world'),
            (quaternion_gripper_in_world, (2, 4), 'quaternion_gripper_in_world'),
            (linear_velocity_gripper_in_world, (2, 3), 'linear_velocity_gripper_in_world'),
            (angular_velocity_gripper_in_world, (2, 3), 'angular_velocity_gripper_in_world'))
        times = np.array([time_s], dtype=float)
        energy_j, mean_j, first_failed = self._evaluate(times, *(a[None] for a in arrays))
        return EnergySample(
            float(times[0]), energy_j[0, 0], energy_j[0, 1], mean_j[0],
            float(mean_j[0].max()), first_failed == 0)

    def update_block(
        self,
        time_s: npt.ArrayLike,
        position_object_in_world: npt.ArrayLike,
        quaternion_object_in_world: npt.ArrayLike,
        linear_velocity_object_in_world: npt.ArrayLike,
        angular_velocity_object_in_world: npt.ArrayLike,
        position_gripper_in_world: npt.ArrayLike,
        quaternion_gripper_in_world: npt.ArrayLike,
        linear_velocity_gripper_in_world: npt.ArrayLike,
        angular_velocity_gripper_in_world: npt.ArrayLike,
    ) -> EnergyBlock:
        """Add N consecutive samples at once; the same as N ``update_arrays`` calls.

        A failure inside the block is noticed when the block is added, so a
        caller that buffers N steps learns of it up to N steps late.

        Args:
            time_s: (N,) increasing sample times, s.
            position_object_in_world: (N, K, 3) m.
            quaternion_object_in_world: (N, K, 4) (w, x, y, z).
            linear_velocity_object_in_world: (N, K, 3) m/s.
            angular_velocity_object_in_world: (N, K, 3) rad/s.
            position_gripper_in_world: (N, 2, 3) m, left then right.
            quaternion_gripper_in_world: (N, 2, 4) (w, x, y, z).
            linear_velocity_gripper_in_world: (N, 2, 3) m/s.
            angular_velocity_gripper_in_world: (N, 2, 3) rad/s.

        Returns:
            The energies at every sample of the block.

        Raises:
            ConfigError: on wrong shapes or times that do not increase.
        """
        times = np.asarray(time_s, dtype=float)
        if times.ndim != 1 or times.size == 0:
            raise ConfigError(f'time_s must have shape (N,) with N >= 1, got {times.shape}')
        n, k = times.size, self._object_count
        arrays = self._check(
            (position_object_in_world, (n, k, 3), 'position_object_in_world'),
            (quaternion_object_in_world, (n, k, 4), 'quaternion_object_in_world'),
            (linear_velocity_object_in_world, (n, k, 3), 'linear_velocity_object_in_world'),
            (angular_velocity_object_in_world, (n, k, 3), 'angular_velocity_object_in_world'),
            (position_gripper_in_world, (n, 2, 3), 'position_gripper_in_world'),
            (quaternion_gripper_in_world, (n, 2, 4), 'quaternion_gripper_in_world'),
            (linear_velocity_gripper_in_world, (n, 2, 3), 'linear_velocity_gripper_in_world'),
            (angular_velocity_gripper_in_world, (n, 2, 3),
             'angular_velocity_gripper_in_world'))
        energy_j, mean_j, first_failed = self._evaluate(times, *arrays)
        return EnergyBlock(times.copy(), energy_j[:, 0], energy_j[:, 1], mean_j,
                           float(mean_j.max()), first_failed >= 0)

    def _evaluate(
        self, times: np.ndarray,
        position_object: np.ndarray, quaternion_object: np.ndarray,
        linvel_object: np.ndarray, angvel_object: np.ndarray,
        position_gripper: np.ndarray, quaternion_gripper: np.ndarray,
        linvel_gripper: np.ndarray, angvel_gripper: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Energies (N, 2, K), their mean (N, K) and the first failed sample (-1: none).

        Records them: history, peaks, failure and the last time.
        """
        previous_s = math.nan if self._last_time_s is None else self._last_time_s
        # A block runs the kernels compiled; a single sample as Python (see core.compiled).
        block = times.size > 1
        first_bad_time = _FIRST_BAD_TIME if block else _first_bad_time
        bad = first_bad_time(times, previous_s)
        if bad >= 0:
            previous = times[bad - 1] if bad > 0 else self._last_time_s
            after = 'the start' if previous is None else repr(float(previous))
            raise ConfigError(f'time_s must be finite and increase from sample to sample, '
                              f'got {float(times[bad])!r} after {after}')
        if self._position_object_in_gripper is None:
            self._start(position_object[0], quaternion_object[0],
                        position_gripper[0], quaternion_gripper[0])
        n, k = times.size, self._object_count
        energy_j, mean_j = np.empty((n, 2, k)), np.empty((n, k))
        # numpy scalars warn where the compiled code does not (inf - inf of a diverged state).
        with np.errstate(all='ignore'):
            first_failed = (_SCORE_BLOCK if block else _score_block)(
                times, self.config.dt_s,
                1.0 if self.config.desired_velocity == 'rigid' else 0.0, self.config.threshold_j,
                position_object, quaternion_object, linvel_object, angvel_object,
                position_gripper, quaternion_gripper, linvel_gripper, angvel_gripper,
                self._position_object_in_gripper, self._quaternion_object_in_gripper,
                self.config.mass_kg, self.config.inertia_in_body_kg_m2, energy_j, mean_j,
                self._peak_energy_j, self._peak_time_s)
        self._record(times, mean_j, first_failed)
        return energy_j, mean_j, first_failed

    def _record(self, times: np.ndarray, mean_j: np.ndarray, first_failed: int) -> None:
        """Append to the history; note the failure and the last time (peaks are the kernel's)."""
        start, stop = self._count, self._count + times.size
        capacity = self._history_time_s.size
        if stop > capacity:
            while capacity < stop:
                capacity *= 2
            for name in ('_history_time_s', '_history_energy_j'):
                old = getattr(self, name)
                new = np.empty((capacity,) + old.shape[1:])
                new[:start] = old[:start]
                setattr(self, name, new)
        self._history_time_s[start:stop] = times
        self._history_energy_j[start:stop] = mean_j
        self._count = stop
        if self._failure_time_s is None and first_failed >= 0:
            self._failure_time_s = float(times[first_failed])
        self._last_time_s = float(times[-1])

    # -- inputs ---------------------------------------------------------------------------
    def _stack(self, objects: Sequence[BodyState], left: BodyState,
               right: BodyState) -> tuple:
        """Check names and stack body states as ``update_arrays`` arguments."""
        names = tuple(state.name for state in objects)
        if names != self.config.object_names:
            raise ConfigError(f'objects must be {list(self.config.object_names)} in this '
                              f'order, got {list(names)}')
        if (left.name, right.name) != self.config.gripper_names:
            raise ConfigError(f'grippers must be {self.config.gripper_names[0]!r} (left) and '
                              f'{self.config.gripper_names[1]!r} (right), '
                              f'got {left.name!r} and {right.name!r}')
        bodies = (*objects, left, right)
        k = len(objects)
        # np.array, not np.stack: the same rows at a third of the cost on a few bodies.
        stacked = [np.array([getattr(body, field) for body in bodies]) for field in (
            'position_in_world', 'quaternion_in_world', 'linear_velocity_in_world',
            'angular_velocity_in_world')]
        time_s = max(body.time_s for body in bodies)
        return (time_s, *(a[:k] for a in stacked), *(a[k:] for a in stacked))

    @staticmethod
    def _check(*items: tuple[npt.ArrayLike, tuple[int, ...], str]) -> list[np.ndarray]:
        """Return each value as a float array after checking its shape."""
        arrays = []
        for value, shape, name in items:
            array = np.asarray(value, dtype=float)
            if array.shape != shape:
                raise ConfigError(f'{name} must have shape {shape}, got {array.shape}')
            arrays.append(array)
        return arrays

    # -- results --------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        """Whether the trial's start poses are known."""
        return self._position_object_in_gripper is not None

    @property
    def sample_count(self) -> int:
        """Samples added since the trial started."""
        return self._count

    @property
    def history_time_s(self) -> np.ndarray:
        """(n,) time of every sample of the trial, s (a copy)."""
        return self._history_time_s[:self._count].copy()

    @property
    def history_energy_j(self) -> np.ndarray:
        """(n, K) metric of every object at every sample, J (a copy)."""
        return self._history_energy_j[:self._count].copy()

    @property
    def peak_energy_j(self) -> np.ndarray:
        """(K,) highest metric of each object so far, J; NaN before a finite one."""
        return np.where(np.isneginf(self._peak_energy_j), np.nan, self._peak_energy_j)

    @property
    def peak_time_s(self) -> np.ndarray:
        """(K,) time of each object's peak, s; NaN before a finite one."""
        return self._peak_time_s.copy()

    @property
    def failed(self) -> bool:
        """Whether any sample of the trial failed."""
        return self._failure_time_s is not None

    @property
    def failure_time_s(self) -> float | None:
        """Time of the first failed sample, s, or None."""
        return self._failure_time_s
