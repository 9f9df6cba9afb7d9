"""A scripted pick: approach, close, lift, hold; as servo commands over time.

Joints: a vertical lift axis (m, up positive) and two fingers (m, closing
positive). The fingers close under a feedforward force with some damping and
no position feedback, so the grip force is ``grip_force_n`` whatever the
object's width. The force rises linearly over the first ``close_ramp_s`` of
the close: a full force at once would slam light fingers into the object at
over 2 m/s, deep into its soft contact.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand
import numpy as np


@dataclass(frozen=True)
class PickLiftScript:
    """Timing and forces of a scripted pick.

    Attributes:
        approach_height_m: start height of the lift axis above the grasp height.
        lift_height_m: how far to lift the object, m.
        grip_force_n: closing force of each finger, N (0: the fingers never close).
        approach_duration_s, close_duration_s, lift_duration_s: duration of each phase, s;
            hold lasts for ever.
        close_ramp_s: time for the grip force to rise from 0 to ``grip_force_n`` at the
            start of the close, s (0: at once; at most ``close_duration_s``).
        lift_feedforward_n: gravity compensation of the lift axis, N.
        lift_max_force_n: force limit of the lift axis, N.
        finger_max_force_n: force limit of each finger, N.
        finger_kd_scale: damping of the closing fingers, in [0, 1].
        close_speed_m_per_s: 0: the fingers close under the grip force as above; > 0:
            they close at this speed instead (a position target moving at it, full
            stiffness and damping), squeezing with at most ``grip_force_n``: a slow close.
    """

    approach_height_m: float = 0.1
    lift_height_m: float = 0.2
    grip_force_n: float = 10.0
    approach_duration_s: float = 1.0
    close_duration_s: float = 1.0
    lift_duration_s: float = 1.5
    close_ramp_s: float = 0.5
    lift_feedforward_n: float = 9.0
    lift_max_force_n: float = 60.0
    finger_max_force_n: float = 20.0
    finger_kd_scale: float = 0.3
    close_speed_m_per_s: float = 0.0

    def __post_init__(self) -> None:
        for name in ('approach_duration_s', 'close_duration_s', 'lift_duration_s'):
            if not getattr(self, name) > 0:
                raise ConfigError(f'{name} must be > 0, got {getattr(self, name)}')
        # Every value of a command comes from these: finite ones make valid commands.
        for name in ('approach_height_m', 'lift_height_m', 'lift_feedforward_n'):
            if not math.isfinite(getattr(self, name)):
                raise ConfigError(f'{name} must be finite, got {getattr(self, name)}')
        for name in ('lift_max_force_n', 'finger_max_force_n'):
            if not (math.isfinite(getattr(self, name)) and getattr(self, name) >= 0):
                raise ConfigError(f'{name} must be finite and >= 0, got {getattr(self, name)}')
        if not 0 <= self.grip_force_n <= self.finger_max_force_n:
            raise ConfigError(
                f'grip_force_n must be in [0, finger_max_force_n={self.finger_max_force_n}],'
                f' got {self.grip_force_n}')
        if not 0 <= self.close_ramp_s <= self.close_duration_s:
            raise ConfigError(f'close_ramp_s must be in [0, close_duration_s='
                              f'{self.close_duration_s}], got {self.close_ramp_s}')
        if not (math.isfinite(self.close_speed_m_per_s) and self.close_speed_m_per_s >= 0):
            raise ConfigError(f'close_speed_m_per_s must be finite and >= 0, '
                              f'got {self.close_speed_m_per_s}')
        if not 0 <= self.finger_kd_scale <= 1:
            raise ConfigError(f'finger_kd_scale must be in [0, 1], got {self.finger_kd_scale}')
        # Per phase kind (fingers open, closing) every value but the lift target is fixed.
        tables = {}
        for closing in (False, True):
            finger_force = self.grip_force_n if closing else 0.0
            finger_kd = self.finger_kd_scale if closing else 1.0
            tables[closing] = np.array([
                [0.0, math.nan if closing else 0.0, math.nan if closing else 0.0],
                [0.0, 0.0, 0.0],
                [self.lift_feedforward_n, finger_force, finger_force],
                [1.0, 0.0 if closing else 1.0, 0.0 if closing else 1.0],
                [1.0, finger_kd, finger_kd],
                [self.lift_max_force_n, self.finger_max_force_n, self.finger_max_force_n]])
        object.__setattr__(self, '_tables', tables)
        object.__setattr__(self, '_last', (None, None))

    def phase(self, time_s: float) -> str:
        """Return the phase at ``time_s`` since the start of the script."""
        if time_s < self.approach_duration_s:
            return 'approach'
        if time_s < self.approach_duration_s + self.close_duration_s:
            return 'close'
        if time_s < self.approach_duration_s + self.close_duration_s + self.lift_duration_s:
            return 'lift'
        return 'hold'

    def command(self, time_s: float) -> ServoCommand:
        """Return the command for (lift, finger_left, finger_right) at ``time_s``."""
        phase = self.phase(time_s)
        lift_start_s = self.approach_duration_s + self.close_duration_s
        if phase == 'approach':
            lift_m = self.approach_height_m * (1.0 - time_s / self.approach_duration_s)
        elif phase == 'close':
            lift_m = 0.0
        else:
            fraction = min(1.0, (time_s - lift_start_s) / self.lift_duration_s)
            lift_m = self.lift_height_m * fraction
        closing = phase != 'approach'
        grip = 1.0
        if phase == 'close' and self.close_ramp_s > 0:
            grip = min(1.0, (time_s - self.approach_duration_s) / self.close_ramp_s)
        target = math.nan
        if closing and self.close_speed_m_per_s > 0:
            target = self.close_speed_m_per_s * (time_s - self.approach_duration_s)
        key, command = self._last
        if key == (closing, lift_m, grip, target):
            # Hold and close repeat one command: the same object lets the backend skip it.
            return command
        # Built from the validated settings above: no need to validate it again.
        table = self._tables[closing].copy()
        table[0, 0] = lift_m
        table[2, 1:] *= grip
        if not math.isnan(target):  # the slow close: a moving target, the force its cap
            table[:, 1:] = np.array([[target], [self.close_speed_m_per_s], [0.0], [1.0],
                                     [1.0], [self.grip_force_n]])
        command = ServoCommand.trusted(table)
        object.__setattr__(self, '_last', ((closing, lift_m, grip, target), command))
        return command
