"""What real joint encoders report for the fingers' true motion: ``JointRealism``.

Effects, in order: backlash (the encoder sees the finger through a play),
encoder quantisation, the velocity (the true one, or differenced from the
reported positions as an encoder-based estimate), velocity noise, latency,
dropped frames.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.realism.checks import model_arguments, real_field
from grasp_monitor.core.realism.play import play
from grasp_monitor.core.realism.stream import delivered, FrameDelay, latency_frames
import numpy as np
import numpy.typing as npt

_OWNER = 'JointRealismConfig'


@dataclass(frozen=True)
class JointRealismConfig:
    """The imperfections of joint states; the defaults are exact.

    Units are the joints' own: rad for revolute, m for prismatic joints.

    Attributes:
        resolution: encoder quantum, units; 0: exact.
        velocity_noise: Gaussian std added to the reported velocity, units/s.
        backlash: play width between motor and finger, units.
        differentiate: report the difference of successive reported positions
            over the sample period instead of the true velocity.
        latency_s: a frame carries the reading of ``latency_s`` earlier, s.
        drop_rate: probability a frame is not delivered, < 1.

    Raises:
        ConfigError: a field out of range, named.
    """

    resolution: float = 0.0
    velocity_noise: float = 0.0
    backlash: float = 0.0
    differentiate: bool = False
    latency_s: float = 0.0
    drop_rate: float = 0.0

    def __post_init__(self) -> None:
        for field in fields(self):
            name = field.name
            value = getattr(self, name)
            if name == 'differentiate':
                if not isinstance(value, (bool, np.bool_)):
                    raise ConfigError(f'{_OWNER}.differentiate must be a bool, got '
                                      f'{type(value).__name__} {value!r}')
                checked = bool(value)
            elif name == 'drop_rate':
                checked = real_field(_OWNER, name, value, 0.0, 1.0, high_open=True)
            else:
                checked = real_field(_OWNER, name, value, 0.0, math.inf)
            object.__setattr__(self, name, checked)

    @property
    def is_ideal(self) -> bool:
        """True when the joint states are reported exactly."""
        return self == JointRealismConfig()


class JointRealism:
    """Turns true joint positions and velocities into what encoders report.

    Args:
        config: the imperfections.
        joints: number of joints J (>= 1).
        sample_period_s: time between frames, s.
        seed: seed of the noise and the drops (>= 0).

    Raises:
        ConfigError: bad joint count, period or seed.
    """

    def __init__(self, config: JointRealismConfig, joints: int, sample_period_s: float,
                 seed: int) -> None:
        if not isinstance(joints, (int, np.integer)) or isinstance(joints, bool) \
                or joints < 1:
            raise ConfigError(f'joints must be an int >= 1, got {joints!r}')
        self.config = config
        self.joints = int(joints)
        self.sample_period_s, self.seed = model_arguments(sample_period_s, seed)
        self._streams = np.random.SeedSequence(self.seed).spawn(2)
        self._delay = FrameDelay(latency_frames(config.latency_s, self.sample_period_s))
        self.reset()

    def reset(self) -> None:
        """Return to the state after construction: the same draws ahead."""
        self._played: np.ndarray | None = None
        self._last: np.ndarray | None = None
        self._delay.reset()
        self._noise = np.random.default_rng(self._streams[0])
        self._drops = np.random.default_rng(self._streams[1])

    def apply(self, positions: npt.ArrayLike,
              velocities: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return reported positions and velocities of S frames, and which arrive.

        Stateful across calls (backlash, the last position, latency, the noise
        sequence): a block of S frames and S calls of one frame give the same.

        Args:
            positions: (S, J) true positions, units.
            velocities: (S, J) true velocities, units/s.

        Returns:
            (S, J) positions, (S, J) velocities, (S,) bool delivered (False: the
            frame is dropped and its values are not to be used).

        Raises:
            ValueError: wrong shapes.
        """
        reported = np.array(positions, dtype=float)
        speeds = np.array(velocities, dtype=float)
        if reported.ndim != 2 or reported.shape[1] != self.joints \
                or speeds.shape != reported.shape:
            raise ValueError(f'positions and velocities must both be (S, {self.joints}), got '
                             f'{reported.shape} and {speeds.shape}')
        frames = reported.shape[0]
        config = self.config
        if config.is_ideal or frames == 0:
            return reported, speeds, np.ones(frames, dtype=bool)
        if config.backlash > 0:
            if self._played is None:
                self._played = reported[0].copy()
            reported = play(reported, self._played, 0.5 * config.backlash)
        if config.resolution > 0:
            reported = np.round(reported / config.resolution) * config.resolution
        if config.differentiate:
            before = reported[:1] if self._last is None else self._last[None]
            speeds = np.diff(reported, axis=0, prepend=before) / self.sample_period_s
        self._last = reported[-1].copy()
        if config.velocity_noise > 0:
            speeds = speeds + config.velocity_noise * self._noise.standard_normal(speeds.shape)
        both = self._delay.apply(np.stack((reported, speeds), axis=1))
        return both[:, 0], both[:, 1], delivered(self._drops, frames, config.drop_rate)
