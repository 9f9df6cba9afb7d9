"""The parameters of a grasp monitor, and the events they build."""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.contact import ContactEvent, ContactTimeoutEvent
from grasp_monitor.core.monitor.event import check_positive
from grasp_monitor.core.monitor.event_set import check_name, EventSet
from grasp_monitor.core.monitor.flying_apart import FlyingApartEvent
from grasp_monitor.core.monitor.grasp import GraspEvent
from grasp_monitor.core.monitor.incipient_slip import IncipientSlipEvent
from grasp_monitor.core.monitor.records import EVENT_ORDER
from grasp_monitor.core.monitor.settings import default
from grasp_monitor.core.monitor.slip_out import SlipOutEvent
from grasp_monitor.core.monitor.slip_signals import AXES
from grasp_monitor.core.monitor.stop_external_force import StopExternalForceEvent


@dataclass(frozen=True)
class MonitorConfig:
    """Parameters of a grasp monitor (defaults: rostok's constants, from ``settings``).

    Attributes:
        sensor_period_s: nominal interval between samples, s.
        grasp_dwell_s: how long the object must stay still for a grasp, s;
            0 means 10 sensor periods (rostok's 10 steps). Resolved on
            construction.
        object_still_speed_m_per_s: object still threshold, m/s.
        finger_still_speed: finger joint still threshold when the object speed
            is unknown, rad/s or m/s.
        min_grasp_bodies: robot bodies in contact needed for a grasp.
        grasp_count_palm: the palm counts among ``min_grasp_bodies``.
        grasp_limit_s: no grasp by then stops the trial, s.
        contact_timeout_s: no contact by then stops the trial, s.
        slip_out_s: contact lost this long stops the trial, s.
        slip_out_count_palm: a palm contact alone counts as contact for slip-out.
        max_distance_m: a robot body this far from the base stops the trial, m.
        force_test_s: the external force test lasts this long after the grasp, s.
        contact_count_palm: the contact event counts a palm contact.
        palm: which of ``robot_bodies`` is the palm ('' = none); samples built
            from this configuration (``palm_index``) mark it.
        max_sample_age_s: a sample older than this is stale, s (inf: never).
        time_reset_tolerance_s: time going back by more than this opens a new
            trial; by less, the sample is dropped as out of order, s.
        auto_start: open a trial on the first sample without a start call.
        restart_on_reset: time going back opens the next trial by itself (else a
            reset ends the trial and the monitor waits for a start).
        robot_bodies: names of the B robot bodies, in sample order (optional;
            when given, every sample must have B bodies).
        events: the events to run (any order; they run in EVENT_ORDER).
        slip_normal_axis: the tactile pads' axis normal to their surface ('x', 'y', 'z'),
            for the samples' ``pad_signals`` (``MonitorInputs``).
        slip_friction, slip_ratio, slip_cop_speed, slip_vibration, slip_speed,
        slip_min_force_n, slip_high_pass_s, slip_cop_window_s, slip_stall, slip_stall_rise,
        slip_stall_window_s, slip_settle_s: the incipient_slip event's
            (``IncipientSlipEvent``: friction, ratio, cop_speed, vibration,
            slip_speed, min_force_n, high_pass_s, cop_window_s, stall, stall_rise,
            stall_window_s, settle_s).
    """

    sensor_period_s: float = 0.001
    grasp_dwell_s: float = default('grasp_dwell_s')
    object_still_speed_m_per_s: float = default('object_still_speed_m_per_s')
    finger_still_speed: float = default('finger_still_speed')
    min_grasp_bodies: int = default('min_grasp_bodies')
    grasp_count_palm: bool = default('grasp_count_palm')
    grasp_limit_s: float = default('grasp_limit_s')
    contact_timeout_s: float = default('contact_timeout_s')
    slip_out_s: float = default('slip_out_s')
    slip_out_count_palm: bool = default('slip_out_count_palm')
    max_distance_m: float = default('max_distance_m')
    force_test_s: float = default('force_test_s')
    contact_count_palm: bool = default('contact_count_palm')
    palm: str = default('palm')
    max_sample_age_s: float = math.inf
    time_reset_tolerance_s: float = 0.0
    auto_start: bool = True
    restart_on_reset: bool = default('restart_on_reset')
    robot_bodies: tuple[str, ...] = ()
    events: tuple[str, ...] = tuple(default('events'))
    slip_normal_axis: str = default('slip_normal_axis')
    slip_friction: float = default('slip_friction')
    slip_ratio: float = default('slip_ratio')
    slip_cop_speed: float = default('slip_cop_speed')
    slip_vibration: float = default('slip_vibration')
    slip_speed: float = default('slip_speed')
    slip_min_force_n: float = default('slip_min_force_n')
    slip_high_pass_s: float = default('slip_high_pass_s')
    slip_cop_window_s: float = default('slip_cop_window_s')
    slip_stall: float = default('slip_stall')
    slip_stall_rise: float = default('slip_stall_rise')
    slip_stall_window_s: float = default('slip_stall_window_s')
    slip_settle_s: float = default('slip_settle_s')

    def __post_init__(self) -> None:
        check_positive(sensor_period_s=self.sensor_period_s)
        if self.grasp_dwell_s == 0:
            object.__setattr__(self, 'grasp_dwell_s', 10 * self.sensor_period_s)
        check_positive(**{name: getattr(self, name) for name in (
            'grasp_dwell_s', 'grasp_limit_s', 'contact_timeout_s', 'slip_out_s',
            'max_distance_m', 'force_test_s')})
        for name in ('object_still_speed_m_per_s', 'finger_still_speed'):
            if not (getattr(self, name) >= 0 and math.isfinite(getattr(self, name))):
                raise ConfigError(f'{name} must be finite and >= 0, got {getattr(self, name)}')
        if self.min_grasp_bodies < 1:
            raise ConfigError(f'min_grasp_bodies must be >= 1, got {self.min_grasp_bodies}')
        if not self.max_sample_age_s > 0:
            raise ConfigError(
                f'max_sample_age_s must be > 0 (inf disables it), got {self.max_sample_age_s}')
        if not (self.time_reset_tolerance_s >= 0 and math.isfinite(self.time_reset_tolerance_s)):
            raise ConfigError(
                f'time_reset_tolerance_s must be finite and >= 0, '
                f'got {self.time_reset_tolerance_s}')
        object.__setattr__(self, 'robot_bodies', tuple(self.robot_bodies))
        if len(set(self.robot_bodies)) != len(self.robot_bodies):
            raise ConfigError(f'robot_bodies must be unique, got {list(self.robot_bodies)}')
        if self.palm and self.palm not in self.robot_bodies:
            raise ConfigError(f'palm {self.palm!r} is not one of the robot bodies: '
                              f'{", ".join(self.robot_bodies) or "(none)"}')
        if self.slip_normal_axis not in AXES:
            raise ConfigError(f'slip_normal_axis must be one of {", ".join(AXES)}, '
                              f'got {self.slip_normal_axis!r}')
        events = tuple(self.events)
        for name in events:
            check_name(name)
        object.__setattr__(self, 'events', events)
        # Builds (and so validates) every event: parameters, duplicates, prerequisites.
        self.build_events()

    @property
    def palm_index(self) -> int:
        """The palm's index in ``robot_bodies``; -1 without a palm."""
        return self.robot_bodies.index(self.palm) if self.palm else -1

    def build_events(self) -> EventSet:
        """Return fresh event objects for ``events``.

        Raises:
            ConfigError: an event is named twice, lacks its prerequisite, or a
                parameter is out of range.
        """
        bodies = self.robot_bodies
        dwell_s = float(self.grasp_dwell_s)
        factories = {
            'contact': lambda: ContactEvent(self.contact_count_palm, bodies),
            'contact_timeout': lambda: ContactTimeoutEvent(self.contact_timeout_s),
            'flying_apart': lambda: FlyingApartEvent(self.max_distance_m, bodies),
            'slip_out': lambda: SlipOutEvent(self.slip_out_s, self.slip_out_count_palm),
            'grasp': lambda: GraspEvent(
                self.grasp_limit_s, dwell_s, self.sensor_period_s,
                self.object_still_speed_m_per_s, self.finger_still_speed,
                self.min_grasp_bodies, self.grasp_count_palm),
            'incipient_slip': lambda: IncipientSlipEvent(
                self.slip_friction, self.slip_ratio, self.slip_cop_speed, self.slip_vibration,
                self.slip_speed, self.slip_min_force_n, self.slip_high_pass_s,
                self.slip_cop_window_s, self.slip_stall, self.slip_stall_rise,
                self.slip_stall_window_s, self.slip_settle_s, body_names=bodies),
            'stop_external_force': lambda: StopExternalForceEvent(self.force_test_s),
        }
        # Sorted, so a prerequisite is always added before the events that need it.
        return EventSet(factories[name]() for name in sorted(self.events, key=EVENT_ORDER.index))
