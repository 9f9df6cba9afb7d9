"""Commands at a controller's rate: evaluated at the first tick at or after each k / rate.

The hosted grasp controller and the offline drive use the same hold, so both paths
command the servos at the same ticks with the same values.
"""

from __future__ import annotations

import math
from typing import Callable

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand


class CommandHold:
    """Evaluate ``command(t - start_s)`` when due, hold it between; time going back restarts.

    Args:
        command: the command at a time since the start, s.
        rate_hz: how often a new command is due, on the grid k / rate of the clock.
        tolerance_s: a tick this close before a due time counts as at it, s.
    """

    def __init__(self, command: Callable[[float], ServoCommand], rate_hz: float,
                 tolerance_s: float = 1e-9) -> None:
        if not (math.isfinite(rate_hz) and rate_hz > 0):
            raise ConfigError(f'rate_hz must be finite and > 0, got {rate_hz}')
        self.command = command
        self.period_s = 1.0 / rate_hz
        self.tolerance_s = tolerance_s
        self.start_s = 0.0
        self._due_s = -math.inf
        self._last_s = math.inf
        self._held: ServoCommand | None = None

    def restart(self, time_s: float) -> None:
        """Start the commands' timeline at ``time_s`` (a new command is due at once)."""
        self.start_s = time_s
        self._due_s = -math.inf

    def due(self, time_s: float) -> ServoCommand | None:
        """Return the new command due at ``time_s``, or None between due times."""
        if time_s < self._last_s:  # the first tick, or time went back: a reset
            self._due_s = -math.inf
        self._last_s = time_s
        if time_s < self.start_s:
            self.start_s = time_s
        if time_s < self._due_s - self.tolerance_s:
            return None
        self._held = self.command(time_s - self.start_s)
        self._due_s = (math.floor(time_s / self.period_s + 1e-6) + 1) * self.period_s
        return self._held

    def __call__(self, time_s: float) -> ServoCommand:
        """Return the command in force at ``time_s`` (a drive: a command at every tick)."""
        command = self.due(time_s)
        return command if command is not None else self._held
