"""A scripted pick: approach, close, lift, hold; as servo commands over time.

Joints: a vertical lift axis (m, up positive) and two fingers (m, closing
positive). The fingers close under a constant feedforward force with some
damping and no position feedback, so the grip force is ``grip_force_n``
whatever the object's width.
"""

from __future__ import annotations

from dataclasses import dataclass

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand
import numpy as np

PHASES = ('approach', 'close', 'lift', 'hold')


@dataclass(frozen=True)
class PickLiftScript:
    """Timing and forces of a scripted pick.

    Attributes:
        approach_height_m: start height of the lift axis above the grasp height.
        lift_height_m: how far to lift the object, m.
        grip_force_n: closing force of each finger, N (0: the fingers never close).
        approach_s, close_s, lift_s: duration of each phase, s; hold lasts for ever.
        lift_feedforward_n: gravity compensation of the lift axis, N.
        lift_max_force_n: force limit of the lift axis, N.
        finger_max_force_n: force limit of each finger, N.
        finger_kd_scale: damping of the closing fingers, in [0, 1].
    """

    approach_height_m: float = 0.1
    lift_height_m: float = 0.2
    grip_force_n: float = 10.0
    approach_s: float = 1.0
    close_s: float = 1.0
    lift_s: float = 1.5
    lift_feedforward_n: float = 9.0
    lift_max_force_n: float = 60.0
    finger_max_force_n: float = 20.0
    finger_kd_scale: float = 0.3

    def __post_init__(self) -> None:
        for name in ('approach_s', 'close_s', 'lift_s'):
            if not getattr(self, name) > 0:
                raise ConfigError(f'{name} must be > 0, got {getattr(self, name)}')
        if not 0 <= self.grip_force_n <= self.finger_max_force_n:
            raise ConfigError(
                f'grip_force_n must be in [0, finger_max_force_n={self.finger_max_force_n}],'
                f' got {self.grip_force_n}')
        if not 0 <= self.finger_kd_scale <= 1:
            raise ConfigError(f'finger_kd_scale must be in [0, 1], got {self.finger_kd_scale}')

    def phase(self, time_s: float) -> str:
        """Return the phase at ``time_s`` since the start of the script."""
        if time_s < self.approach_s:
            return 'approach'
        if time_s < self.approach_s + self.close_s:
            return 'close'
        if time_s < self.approach_s + self.close_s + self.lift_s:
            return 'lift'
        return 'hold'

    def command(self, time_s: float) -> ServoCommand:
        """Return the command for (lift, finger_left, finger_right) at ``time_s``."""
        phase = self.phase(time_s)
        lift_start_s = self.approach_s + self.close_s
        if phase == 'approach':
            lift_m = self.approach_height_m * (1.0 - time_s / self.approach_s)
        elif phase == 'close':
            lift_m = 0.0
        else:
            fraction = min(1.0, (time_s - lift_start_s) / self.lift_s)
            lift_m = self.lift_height_m * fraction
        closing = phase != 'approach'
        finger_force = self.grip_force_n if closing else 0.0
        finger_target = np.nan if closing else 0.0
        return ServoCommand(
            position=[lift_m, finger_target, finger_target],
            velocity=[0.0, 0.0, 0.0],
            feedforward_torque=[self.lift_feedforward_n, finger_force, finger_force],
            kp_scale=[1.0, 0.0 if closing else 1.0, 0.0 if closing else 1.0],
            kd_scale=[1.0, self.finger_kd_scale if closing else 1.0,
                      self.finger_kd_scale if closing else 1.0],
            maximum_torque=[self.lift_max_force_n, self.finger_max_force_n,
                            self.finger_max_force_n])
