"""The grasp event: the object still in contact for a dwell, or the grasp limit."""

from __future__ import annotations

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.event import check_positive, MonitorEvent
from grasp_monitor.core.monitor.records import Command
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.state import TIME_TOLERANCE_S, TrialState
import numpy as np


class GraspEvent(MonitorEvent):
    """Fires (ACTIVATE) when the object stayed still in contact for ``dwell_s``.

    After the first contact, a sample counts as *still* when at least
    ``min_bodies`` robot bodies (the palm among them only if ``count_palm``)
    touch the object and

    - the object speed is known: it is at most ``still_speed_m_per_s``;
    - the object speed is unknown (NaN, hardware): every finger joint speed
      is at most ``finger_still_speed`` in magnitude (fingers that stopped
      closing while two pads press the object); with no finger speeds either,
      a sample is never still.

    Each still sample adds the time it stands for to the dwell (the interval
    since the previous sample; the first of a run adds at most one sensor
    period, so a run of 10 samples at the sensor rate is exactly 10 periods);
    any other checked sample resets the dwell. Stale samples are not checked,
    so they neither add nor reset. If monitored time passes ``limit_s`` first,
    the trial stops without the event firing (record 'grasp_timeout').

    Args:
        limit_s: rostok's ``grasp_limit_time``, s (default 5).
        dwell_s: how long the object must stay still, s (rostok: 10 steps).
        sensor_period_s: nominal interval between samples, s.
        still_speed_m_per_s: object still threshold, m/s (default 0.01).
        finger_still_speed: finger still threshold, rad/s or m/s (default 0.01).
        min_bodies: bodies that must touch (default 2).
        count_palm: the palm counts among them (default False).
    """

    name = 'grasp'
    requires = ('contact',)
    stop_kind = 'grasp_timeout'

    def __init__(self, limit_s: float = 5.0, dwell_s: float = 0.0,
                 sensor_period_s: float = 0.001, still_speed_m_per_s: float = 0.01,
                 finger_still_speed: float = 0.01, min_bodies: int = 2,
                 count_palm: bool = False) -> None:
        check_positive(sensor_period_s=sensor_period_s)
        dwell_s = dwell_s or 10 * sensor_period_s  # rostok's 10 steps
        check_positive(limit_s=limit_s, dwell_s=dwell_s)
        for name, value in (('still_speed_m_per_s', still_speed_m_per_s),
                            ('finger_still_speed', finger_still_speed)):
            if not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f'{name} must be finite and >= 0, got {value}')
        if min_bodies < 1:
            raise ConfigError(f'min_bodies must be >= 1, got {min_bodies}')
        self.limit_s = float(limit_s)
        self.dwell_s = float(dwell_s)
        self.sensor_period_s = float(sensor_period_s)
        self.still_speed_m_per_s = float(still_speed_m_per_s)
        self.finger_still_speed = float(finger_still_speed)
        self.min_bodies = int(min_bodies)
        self.count_palm = bool(count_palm)
        super().__init__()

    def reset(self) -> None:
        """Forget the dwell too."""
        super().reset()
        self.still_for_s = 0.0
        self._in_run = False

    def resume(self, state: TrialState) -> None:
        """Stillness was not watched while disabled: start the dwell again."""
        self.still_for_s = 0.0
        self._in_run = False

    def _still(self, sample: GraspSample) -> tuple[bool, str]:
        speed = sample.object_speed_m_per_s
        if not math.isnan(speed):
            return speed <= self.still_speed_m_per_s, 'object_speed'
        if sample.finger_speeds.size:
            # NaN speeds compare false, so an unknown finger is never still.
            still = bool(np.all(np.abs(sample.finger_speeds) <= self.finger_still_speed))
            return still, 'finger_speed'
        return False, 'unknown'

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """STOP past the limit; else add to or reset the dwell; ACTIVATE when it is long enough."""
        if state.monitored_time_s > self.limit_s + TIME_TOLERANCE_S:
            self.details = {'limit_s': self.limit_s, 'still_for_s': self.still_for_s}
            return Command.STOP
        if 'contact' not in state.fired:
            return Command.CONTINUE
        still, basis = self._still(sample)
        touching = sample.contact_count(self.count_palm)
        if not (still and touching >= self.min_bodies):
            self.still_for_s = 0.0
            self._in_run = False
            return Command.CONTINUE
        credit_s = state.dt_s if self._in_run else min(state.dt_s, self.sensor_period_s)
        self.still_for_s += credit_s
        self._in_run = True
        if self.still_for_s + TIME_TOLERANCE_S < self.dwell_s:
            return Command.CONTINUE
        self._fire(state, still_for_s=self.still_for_s, dwell_s=self.dwell_s, basis=basis,
                   object_speed_m_per_s=sample.object_speed_m_per_s,
                   bodies_in_contact=touching)
        return Command.ACTIVATE
