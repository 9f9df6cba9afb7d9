"""A gripper goal as control_msgs's GripperCommand gives it: checked, driven and judged.

A goal is one finger position (m, closing positive, the same for every finger, as the
one joint of a parallel gripper's controller) and a maximum effort (N). The fingers
follow a position target that moves from where they were towards the goal at a set
speed; the target never leads a finger by more than ``max_effort / stiffness``, so a
finger blocked by an object squeezes it with the goal's effort and no more, on any
servo that takes position targets. Whether the goal ended stalled on an object is the
grasp monitor's verdict (its ``grasp`` event), never a finger-speed threshold: blocked
fingers that jitter cannot make it chatter.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import CommandError, ConfigError
import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class GripperLimits:
    """What a gripper can do, and how goals are driven and judged.

    Attributes:
        stroke_min_m: most open finger position, m.
        stroke_max_m: most closed finger position, m.
        max_effort_n: the largest effort a goal may ask, N (the servos' force limit).
        default_effort_n: the effort of a goal asking 0 (MoveIt's default), N.
        stiffness_n_per_m: the finger servos' position gain, N/m.
        speed_m_per_s: speed of the position target, m/s.
        tolerance_m: a finger this close to the goal position has reached it, m.
        timeout_s: a goal with no outcome after this long ends as a timeout, s.
    """

    stroke_min_m: float = -0.01
    stroke_max_m: float = 0.054
    max_effort_n: float = 20.0
    default_effort_n: float = 10.0
    stiffness_n_per_m: float = 300.0
    speed_m_per_s: float = 0.05
    tolerance_m: float = 0.001
    timeout_s: float = 5.0

    def __post_init__(self) -> None:
        for name in ('stroke_min_m', 'stroke_max_m'):
            if not math.isfinite(getattr(self, name)):
                raise ConfigError(f'{name} must be finite, got {getattr(self, name)}')
        if not self.stroke_min_m < self.stroke_max_m:
            raise ConfigError(f'stroke_min_m ({self.stroke_min_m}) must be below stroke_max_m '
                              f'({self.stroke_max_m})')
        for name in ('max_effort_n', 'stiffness_n_per_m', 'speed_m_per_s', 'tolerance_m',
                     'timeout_s'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f'{name} must be finite and > 0, got {value}')
        if not 0 < self.default_effort_n <= self.max_effort_n:
            raise ConfigError(f'default_effort_n must be in (0, max_effort_n='
                              f'{self.max_effort_n}], got {self.default_effort_n}')

    def hold(self, effort_n: float, now_s: float, positions_m: npt.ArrayLike) -> 'GripperGoal':
        """Return the goal that holds the fingers where they are (within the stroke)."""
        positions = np.asarray(positions_m, dtype=float)
        hold_m = min(max(float(positions.mean()), self.stroke_min_m), self.stroke_max_m)
        return self.goal(hold_m, effort_n, now_s, positions)

    def goal(self, position_m: float, max_effort_n: float, now_s: float,
             positions_m: npt.ArrayLike, speed_m_per_s: float = 0.0) -> 'GripperGoal':
        """Return the goal to drive from the fingers' positions now, or refuse it.

        Args:
            position_m: the goal's finger position, m.
            max_effort_n: the goal's effort, N; 0 takes ``default_effort_n``.
            now_s: the time the goal starts, s.
            positions_m: (N,) each finger's position now, m.
            speed_m_per_s: the goal's speed, m/s, at most ``speed_m_per_s`` of the limits;
                0 takes that.

        Raises:
            CommandError: a position that is not finite or beyond the stroke, an effort
                that is not finite, negative or above ``max_effort_n``, a speed that is
                not finite or negative; the message names the value given and the valid
                range.
        """
        stroke = f'[{self.stroke_min_m:g}, {self.stroke_max_m:g}] m'
        if not math.isfinite(position_m):
            raise CommandError(f'position {position_m} m is not finite: give one within the '
                               f'stroke {stroke}', 'not_finite')
        if not self.stroke_min_m <= position_m <= self.stroke_max_m:
            raise CommandError(f'position {position_m:g} m is beyond the stroke {stroke}',
                               'out_of_range')
        effort = f'[0, {self.max_effort_n:g}] N (0: the default, {self.default_effort_n:g} N)'
        if not math.isfinite(max_effort_n):
            raise CommandError(f'max_effort {max_effort_n} N is not finite: give one in '
                               f'{effort}', 'not_finite')
        if not 0 <= max_effort_n <= self.max_effort_n:
            raise CommandError(f'max_effort {max_effort_n:g} N is outside {effort}',
                               'out_of_range')
        if not (math.isfinite(speed_m_per_s) and speed_m_per_s >= 0):
            raise CommandError(f'velocity {speed_m_per_s:g} m/s is not a speed: give one in '
                               f'[0, {self.speed_m_per_s:g}] m/s (0: that)', 'out_of_range')
        start = np.asarray(positions_m, dtype=float).reshape(-1)
        if start.size == 0 or not np.isfinite(start).all():
            raise CommandError(f'finger positions {start.tolist()} m: need one finite value '
                               'per finger', 'not_finite')
        return GripperGoal(self, float(position_m),
                           float(max_effort_n) or self.default_effort_n, float(now_s),
                           float(start.mean()),
                           min(float(speed_m_per_s), self.speed_m_per_s) or self.speed_m_per_s)


@dataclass(frozen=True)
class GripperGoal:
    """One accepted goal: where the fingers go, how hard they may push, since when.

    Attributes:
        limits: the gripper's limits the goal was checked against.
        target_m: the goal's finger position, m.
        effort_n: the largest force a finger pushes with, N.
        start_s: when the goal started, s.
        start_m: the fingers' mean position then, m.
        speed_m_per_s: speed of the position target, m/s.
    """

    limits: GripperLimits
    target_m: float
    effort_n: float
    start_s: float
    start_m: float
    speed_m_per_s: float

    @property
    def closing(self) -> bool:
        """Whether the goal closes the fingers (else it opens them or holds)."""
        return self.target_m > self.start_m + self.limits.tolerance_m

    @property
    def opening(self) -> bool:
        """Whether the goal opens the fingers."""
        return self.target_m < self.start_m - self.limits.tolerance_m

    def ramp_m(self, now_s: float) -> float:
        """Return the moving target at ``now_s``: from the start towards the goal, m."""
        travel_m = self.speed_m_per_s * max(0.0, now_s - self.start_s)
        if self.target_m >= self.start_m:
            return min(self.target_m, self.start_m + travel_m)
        return max(self.target_m, self.start_m - travel_m)

    def setpoint(self, now_s: float,
                 positions_m: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Return each finger's position target (m) and velocity target (m/s) now.

        The target leads a finger by at most ``effort_n / stiffness_n_per_m``: a finger
        held still by an object pushes with ``effort_n``. A finger held back that way,
        or whose target has arrived, gets velocity target 0 (no damping force on it).
        """
        positions = np.asarray(positions_m, dtype=float).reshape(-1)
        ramp = self.ramp_m(now_s)
        lead = self.effort_n / self.limits.stiffness_n_per_m
        targets = np.clip(ramp, positions - lead, positions + lead)
        moving = (targets == ramp) & (ramp != self.target_m)
        speed = math.copysign(self.speed_m_per_s, self.target_m - self.start_m)
        return targets, np.where(moving, speed, 0.0)

    def outcome(self, now_s: float, positions_m: npt.ArrayLike, grasped: bool) -> str | None:
        """Return how the goal ends now, or None while it runs.

        ``stalled``: the monitor saw the object grasped; ``reached``: the fingers reached
        the target; ``timeout``: neither in time.

        Args:
            now_s: the time now, s.
            positions_m: (N,) each finger's position now, m.
            grasped: the monitor reported a grasp since the goal started.
        """
        if grasped and self.closing:
            return 'stalled'
        positions = np.asarray(positions_m, dtype=float).reshape(-1)
        if self.ramp_m(now_s) == self.target_m and (
                np.abs(positions - self.target_m) <= self.limits.tolerance_m).all():
            return 'reached'
        if now_s - self.start_s > self.limits.timeout_s:
            return 'timeout'
        return None
