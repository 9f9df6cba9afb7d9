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

#: ``IncipientSlipEvent``'s arguments in order, each set by ``incipient_slip_<name>``.
SLIP_ARGUMENTS = ('friction', 'ratio', 'cop_speed', 'vibration', 'slip_speed', 'min_force',
                  'high_pass', 'cop_window', 'stall', 'stall_rise', 'stall_window', 'settle')


@dataclass(frozen=True)
class MonitorConfig:
    """Parameters of a grasp monitor (defaults: rostok's constants, from ``settings``).

    Attributes:
        sensor_period_s: nominal interval between samples, s.
        grasp_dwell: how long the object must stay still for a grasp, s;
            0 means 10 sensor periods (rostok's 10 steps). Resolved on
            construction.
        still_speed: object still threshold, m/s.
        finger_still_speed: finger joint still threshold when the object speed
            is unknown, rad/s or m/s.
        grasp_min_bodies: robot bodies in contact needed for a grasp.
        grasp_count_palm: the palm counts among ``grasp_min_bodies``.
        grasp_limit: no grasp by then stops the trial, s.
        contact_timeout: no contact by then stops the trial, s.
        slip_out: contact lost this long stops the trial, s.
        slip_out_count_palm: a palm contact alone counts as contact for slip-out.
        max_distance: a robot body this far from the base stops the trial, m.
        force_test_time: the external force test lasts this long after the grasp, s.
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
        incipient_slip_normal_axis: the tactile pads' axis normal to their surface
            ('x', 'y', 'z'), for the samples' ``pad_signals`` (``MonitorInputs``).
        incipient_slip_*: the incipient_slip event's (``IncipientSlipEvent``'s
            argument of the same name after the prefix; min_force, high_pass,
            cop_window, stall_window, settle in N and s).

    Each field is named as the setting that sets it (``settings.SETTINGS``), its dots
    written ``_`` (``core.setting_values.field_name``).
    """

    sensor_period_s: float = 0.001
    grasp_dwell: float = default('grasp_dwell')
    still_speed: float = default('still_speed')
    finger_still_speed: float = default('finger_still_speed')
    grasp_min_bodies: int = default('grasp_min_bodies')
    grasp_count_palm: bool = default('grasp_count_palm')
    grasp_limit: float = default('grasp_limit')
    contact_timeout: float = default('contact_timeout')
    slip_out: float = default('slip_out')
    slip_out_count_palm: bool = default('slip_out_count_palm')
    max_distance: float = default('max_distance')
    force_test_time: float = default('force_test_time')
    contact_count_palm: bool = default('contact_count_palm')
    palm: str = default('palm')
    max_sample_age_s: float = math.inf
    time_reset_tolerance_s: float = 0.0
    auto_start: bool = True
    restart_on_reset: bool = default('restart_on_reset')
    robot_bodies: tuple[str, ...] = ()
    events: tuple[str, ...] = tuple(default('events'))
    incipient_slip_normal_axis: str = default('incipient_slip_normal_axis')
    incipient_slip_friction: float = default('incipient_slip_friction')
    incipient_slip_ratio: float = default('incipient_slip_ratio')
    incipient_slip_cop_speed: float = default('incipient_slip_cop_speed')
    incipient_slip_vibration: float = default('incipient_slip_vibration')
    incipient_slip_slip_speed: float = default('incipient_slip_slip_speed')
    incipient_slip_min_force: float = default('incipient_slip_min_force')
    incipient_slip_high_pass: float = default('incipient_slip_high_pass')
    incipient_slip_cop_window: float = default('incipient_slip_cop_window')
    incipient_slip_stall: float = default('incipient_slip_stall')
    incipient_slip_stall_rise: float = default('incipient_slip_stall_rise')
    incipient_slip_stall_window: float = default('incipient_slip_stall_window')
    incipient_slip_settle: float = default('incipient_slip_settle')

    def __post_init__(self) -> None:
        check_positive(sensor_period_s=self.sensor_period_s)
        if self.grasp_dwell == 0:
            object.__setattr__(self, 'grasp_dwell', 10 * self.sensor_period_s)
        check_positive(**{name: getattr(self, name) for name in (
            'grasp_dwell', 'grasp_limit', 'contact_timeout', 'slip_out',
            'max_distance', 'force_test_time')})
        for name in ('still_speed', 'finger_still_speed'):
            if not (getattr(self, name) >= 0 and math.isfinite(getattr(self, name))):
                raise ConfigError(f'{name} must be finite and >= 0, got {getattr(self, name)}')
        if self.grasp_min_bodies < 1:
            raise ConfigError(f'grasp_min_bodies must be >= 1, got {self.grasp_min_bodies}')
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
        if self.incipient_slip_normal_axis not in AXES:
            raise ConfigError(f'incipient_slip_normal_axis must be one of {", ".join(AXES)}, '
                              f'got {self.incipient_slip_normal_axis!r}')
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
        dwell_s = float(self.grasp_dwell)
        factories = {
            'contact': lambda: ContactEvent(self.contact_count_palm, bodies),
            'contact_timeout': lambda: ContactTimeoutEvent(self.contact_timeout),
            'flying_apart': lambda: FlyingApartEvent(self.max_distance, bodies),
            'slip_out': lambda: SlipOutEvent(self.slip_out, self.slip_out_count_palm),
            'grasp': lambda: GraspEvent(
                self.grasp_limit, dwell_s, self.sensor_period_s,
                self.still_speed, self.finger_still_speed,
                self.grasp_min_bodies, self.grasp_count_palm),
            'incipient_slip': lambda: IncipientSlipEvent(*(getattr(
                self, f'incipient_slip_{name}') for name in SLIP_ARGUMENTS), body_names=bodies),
            'stop_external_force': lambda: StopExternalForceEvent(self.force_test_time),
        }
        # Sorted, so a prerequisite is always added before the events that need it.
        return EventSet(factories[name]() for name in sorted(self.events, key=EVENT_ORDER.index))
