"""The monitor's view of its inputs: latest tactile, object and joint readings, and their age.

Each input is kept with the time stamp of its reading. A sample built from
them is *stale* when any input it needs is missing or older than
``max_age_s``, so silence pauses the monitor instead of looking like a slip.
A reading stamped well before the latest one means time went back (a
simulator reset): every reading of the old timeline is dropped, so none of
them can pass for a contact in the new one.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.events import GraspSample
import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class InputsConfig:
    """What the monitor listens to.

    Attributes:
        pads: tactile pads, one robot body each, in sample order.
        finger_joints: joints whose speeds tell stillness without ground truth.
        use_object: whether an object ground truth (speed) is expected.
        contact_force_n: a pad touches when its total taxel force reaches this, N.
        max_age_s: a reading older than this makes the sample stale, s.
    """

    pads: tuple[str, ...]
    finger_joints: tuple[str, ...] = ()
    use_object: bool = True
    contact_force_n: float = 1e-3
    max_age_s: float = 0.1

    def __post_init__(self) -> None:
        object.__setattr__(self, 'pads', tuple(self.pads))
        object.__setattr__(self, 'finger_joints', tuple(self.finger_joints))
        if not self.pads:
            raise ConfigError('pads must name at least one tactile pad')
        if len(set(self.pads)) != len(self.pads):
            raise ConfigError(f'pads must be unique, got {list(self.pads)}')
        if not self.contact_force_n > 0:
            raise ConfigError(f'contact_force_n must be > 0, got {self.contact_force_n}')
        if not self.max_age_s > 0:
            raise ConfigError(f'max_age_s must be > 0, got {self.max_age_s}')
        if not self.use_object and not self.finger_joints:
            raise ConfigError('without object ground truth, finger_joints must name the '
                              'joints whose speeds show the grasp is still')


class MonitorInputs:
    """Holds the latest reading of every input and builds GraspSamples from them."""

    def __init__(self, config: InputsConfig) -> None:
        self.config = config
        n = len(config.pads)
        self._pad_index = {pad: i for i, pad in enumerate(config.pads)}
        self._pad_force_n = np.zeros(n)
        self._pad_time_s = np.full(n, -math.inf)
        self._object_speed = math.nan
        self._object_time_s = -math.inf
        self._finger_speeds = np.full(len(config.finger_joints), np.nan)
        self._joints_time_s = -math.inf
        self._latest_s = -math.inf

    def _note(self, time_s: float) -> None:
        if time_s < self._latest_s - self.config.max_age_s:
            self.reset()
        self._latest_s = max(self._latest_s, time_s)

    def reset(self) -> None:
        """Forget every reading (after a simulator reset)."""
        self.__init__(self.config)  # type: ignore[misc]

    def update_pad(self, pad: str, forces_n: npt.ArrayLike, time_s: float) -> None:
        """Take a pad's taxel forces (N, 3) N (or (N,) normal forces) read at ``time_s``.

        Raises:
            ConfigError: an unknown pad.
        """
        index = self._pad_index.get(pad)
        if index is None:
            raise ConfigError(f'unknown pad {pad!r}; pads: {", ".join(self.config.pads)}')
        self._note(time_s)
        forces = np.asarray(forces_n, float)
        total = np.linalg.norm(forces.sum(axis=0)) if forces.ndim == 2 else abs(forces.sum())
        self._pad_force_n[index] = total
        self._pad_time_s[index] = time_s

    def update_object(self, linear_velocity: npt.ArrayLike, time_s: float) -> None:
        """Take the object's linear velocity (m/s, any frame) read at ``time_s``."""
        self._note(time_s)
        self._object_speed = float(np.linalg.norm(np.asarray(linear_velocity, float)))
        self._object_time_s = time_s

    def update_joints(self, names: tuple[str, ...] | list[str], velocities: npt.ArrayLike,
                      time_s: float) -> None:
        """Take joint velocities (rad/s or m/s); joints not listed as fingers are ignored."""
        self._note(time_s)
        velocity = dict(zip(names, np.asarray(velocities, float).tolist()))
        for i, joint in enumerate(self.config.finger_joints):
            if joint in velocity:
                self._finger_speeds[i] = abs(velocity[joint])
        self._joints_time_s = time_s

    def pad_forces_n(self) -> np.ndarray:
        """Return the latest total force on each pad, N."""
        return self._pad_force_n.copy()

    def sample(self, now_s: float) -> GraspSample:
        """Build the sample at ``now_s`` (sim or wall clock, as the readings)."""
        times = [self._pad_time_s.min()]
        if self.config.use_object:
            times.append(self._object_time_s)
        if self.config.finger_joints:
            times.append(self._joints_time_s)
        age_s = now_s - min(times)
        # Readings from later than now belong to a timeline the clock has left.
        ahead = self._latest_s > now_s + self.config.max_age_s
        return GraspSample(
            time_s=now_s,
            in_contact=self._pad_force_n >= self.config.contact_force_n,
            object_speed_m_per_s=self._object_speed if self.config.use_object else math.nan,
            finger_speeds=self._finger_speeds.copy(),
            stale=bool(age_s > self.config.max_age_s or ahead),
            age_s=age_s if math.isfinite(age_s) else math.inf)
