"""Grasp events (rostok's simulation flags) and the monitor that runs them on a sample stream.

Each event watches one condition and fires at most once per trial; its ``check``
returns a :class:`Command`: STOP ends the trial at once (later events are not
checked for that sample), ACTIVATE asks for the external force test, CONTINUE
does nothing. Events always run in rostok's order, :data:`EVENT_ORDER`.

Differences from rostok, all on purpose:

- Time, not step counts: the grasp dwell is a duration (default 10 sensor
  periods) and every timer compares durations, with a tolerance of
  :data:`TIME_TOLERANCE_S` so that sums of float periods fire on the sample the
  rule names. Timers read the time stamp of the sample (taken after the
  physics step), where rostok reads the time before the step.
- Stale samples (flagged, or older than ``max_sample_age_s``) are never
  trusted: no event that reads sensor data is checked on them, the dwell and the
  timers of contact timeout, slip-out and the grasp limit are paused (they run
  on the *monitored* clock, trial time minus stale time), and the monitor
  reports the status STALE. Only stop-external-force, which reads nothing but
  the trial clock, still ends the force test.
- Time going backwards (a simulator reset) ends the trial and opens a new one;
  a sample whose time did not advance (a pause) is ignored.
- Grasp and slip-out count robot bodies other than the palm in contact, as
  REFERENCE.md defines them (rostok counts contacts of any kind).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
import enum
import functools
import math
import re
from types import MappingProxyType
from typing import ClassVar, Iterable, Iterator, Mapping, Union

from grasp_monitor.core.errors import ConfigError
import numpy as np
import numpy.typing as npt

#: Two times closer than this (s) are equal; absorbs float error in sums of periods.
TIME_TOLERANCE_S = 1e-9

#: Every event, in the order the monitor checks them (rostok's order).
EVENT_ORDER = (
    'contact', 'contact_timeout', 'flying_apart', 'slip_out', 'grasp', 'stop_external_force',
)
#: Events that must be added (and enabled) before another one.
PREREQUISITES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    'contact_timeout': ('contact',),
    'grasp': ('contact',),
    'stop_external_force': ('grasp',),
})
#: Records about the trial and its input rather than the grasp.
STATUS_KINDS = ('trial_start', 'trial_end', 'sensor_stale', 'sensor_fresh')
#: Every kind of record the monitor emits; 'grasp_timeout' is the grasp event
#: stopping the trial without firing.
RECORD_KINDS = EVENT_ORDER + ('grasp_timeout',) + STATUS_KINDS
#: Keys an event record's string form uses for its own fields.
RESERVED_KEYS = ('type', 'time_s', 'trial_time_s', 'step', 'trial', 'command')

DetailValue = Union[bool, int, float, str]
_INTEGER = re.compile(r'[+-]?\d+')


class Command(enum.Enum):
    """What an event asks of the simulation (rostok's ``EventCommands``)."""

    STOP = 'STOP'
    CONTINUE = 'CONTINUE'
    ACTIVATE = 'ACTIVATE'


class MonitorStatus(enum.Enum):
    """What the monitor made of the last sample."""

    IDLE = 'idle'                   # no trial is open
    OK = 'ok'                       # events checked
    STALE = 'stale'                 # sample not trusted; sensor events paused
    PAUSED = 'paused'               # time did not advance; sample ignored
    OUT_OF_ORDER = 'out_of_order'   # slightly older than the last one; dropped
    ENDED = 'ended'                 # the trial was stopped by an event


# -- input -------------------------------------------------------------------------------
def _vector(value: npt.ArrayLike, dtype: type, name: str) -> np.ndarray:
    array: np.ndarray = np.array(value, dtype=dtype)
    if array.ndim != 1:
        raise ConfigError(f'{name} must be one-dimensional, got shape {array.shape}')
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class GraspSample:
    """What the monitor sees at one instant.

    Works with ground truth (simulation: object speed and body distances known)
    and without (hardware: contact from tactile pads, stillness from the finger
    joint speeds).

    Attributes:
        time_s: time stamp of the reading, s (sim or wall clock).
        in_contact: (B,) bool, robot body b touches the object (with at least
            1e-3 N, see ``trial.summarize_contacts``).
        palm_index: which of the B bodies is the palm; -1 when there is none.
        object_speed_m_per_s: speed of the object's COG, m/s; NaN when unknown
            (no ground truth).
        finger_speeds: (J,) finger joint speeds, rad/s or m/s per joint; used
            for stillness only when the object speed is unknown; may be empty.
        distances_from_base_m: (B,) distance of each robot body from the base
            body, m, NaN meaning infinitely far; empty when unknown.
        stale: the source flags the reading as stale.
        age_s: how old the reading is when the monitor gets it, s.
    """

    time_s: float
    in_contact: np.ndarray
    palm_index: int = -1
    object_speed_m_per_s: float = math.nan
    finger_speeds: np.ndarray = ()  # type: ignore[assignment]
    distances_from_base_m: np.ndarray = ()  # type: ignore[assignment]
    stale: bool = False
    age_s: float = 0.0

    def __post_init__(self) -> None:
        if not math.isfinite(self.time_s):
            raise ConfigError(f'time_s must be finite, got {self.time_s}')
        mask = _vector(self.in_contact, bool, 'in_contact')
        object.__setattr__(self, 'in_contact', mask)
        n_bodies = mask.size
        if not -1 <= self.palm_index < n_bodies:
            raise ConfigError(
                f'palm_index must be -1 (no palm) or in [0, {n_bodies - 1}], '
                f'got {self.palm_index}')
        if self.object_speed_m_per_s < 0:
            raise ConfigError(
                f'object_speed_m_per_s must be >= 0 or NaN (unknown), '
                f'got {self.object_speed_m_per_s}')
        object.__setattr__(
            self, 'finger_speeds', _vector(self.finger_speeds, float, 'finger_speeds'))
        distances = _vector(self.distances_from_base_m, float, 'distances_from_base_m')
        if distances.size not in (0, n_bodies):
            raise ConfigError(
                f'distances_from_base_m must have 0 or {n_bodies} values (one per body), '
                f'got {distances.size}')
        object.__setattr__(self, 'distances_from_base_m', distances)
        if math.isnan(self.age_s):
            raise ConfigError('age_s must be a number of seconds, got nan')

    # Every event of a monitor reads these: computed once per sample (the values are frozen).
    @functools.cached_property
    def bodies_in_contact(self) -> int:
        """Number of robot bodies touching the object, palm included."""
        return int(np.count_nonzero(self.in_contact))

    @functools.cached_property
    def non_palm_in_contact(self) -> int:
        """Number of robot bodies other than the palm touching the object."""
        palm = self.palm_index >= 0 and bool(self.in_contact[self.palm_index])
        return self.bodies_in_contact - int(palm)

    @functools.cached_property
    def farthest_from_base_m(self) -> float:
        """The largest of ``distances_from_base_m``, m: NaN if one is NaN, -inf if none."""
        distances = self.distances_from_base_m
        return float(distances.max()) if distances.size else -math.inf

    @classmethod
    def trusted_series(cls, time_s: np.ndarray, in_contact: np.ndarray,
                       object_speed_m_per_s: np.ndarray,
                       distances_from_base_m: np.ndarray) -> list['GraspSample']:
        """Return T samples from arrays, unchecked: row t of each array is sample t.

        Only for values a caller computes itself from a simulation (the
        offline pipeline's blocks): finite increasing times, speeds >= 0 or
        NaN. Outside input goes through the constructor, which refuses bad
        values. No palm, no finger speeds, never stale.

        Args:
            time_s: (T,) time stamps, s.
            in_contact: (T, B) bool, robot body b touches the object.
            object_speed_m_per_s: (T,) the object's speed, m/s.
            distances_from_base_m: (T, B) each body's distance from the base, m.
        """
        in_contact = np.array(in_contact, dtype=bool)
        distances = np.array(distances_from_base_m, dtype=float)
        in_contact.setflags(write=False)
        distances.setflags(write=False)
        counts = np.count_nonzero(in_contact, axis=1).tolist()
        farthest = (distances.max(axis=1) if distances.shape[1] else
                    np.full(distances.shape[0], -math.inf)).tolist()
        samples = []
        new = cls.__new__
        for values in zip(time_s.tolist(), in_contact, object_speed_m_per_s.tolist(),
                          distances, counts, counts, farthest):
            sample = new(cls)
            # Frozen: the fields go straight into the instance, as __init__ would set them.
            sample.__dict__.update(zip(_TRUSTED_KEYS, values), **_TRUSTED_DEFAULTS)
            samples.append(sample)
        return samples


#: What ``GraspSample.trusted_series`` sets from its arrays, and the rest as constants.
_TRUSTED_KEYS = ('time_s', 'in_contact', 'object_speed_m_per_s', 'distances_from_base_m',
                 'bodies_in_contact', 'non_palm_in_contact', 'farthest_from_base_m')
_TRUSTED_DEFAULTS = MappingProxyType({
    'palm_index': -1, 'finger_speeds': _vector((), float, 'finger_speeds'), 'stale': False,
    'age_s': 0.0})


# -- records -----------------------------------------------------------------------------
def _plain(value: object, key: str) -> DetailValue:
    # numpy scalars become Python ones so that records print and compare simply.
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, str):
        return value
    raise ConfigError(
        f'detail {key!r} must be a bool, int, float or str, got {type(value).__name__}')


def _format(value: DetailValue) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _parse(text: str) -> DetailValue:
    if text in ('true', 'false'):
        return text == 'true'
    if _INTEGER.fullmatch(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


@dataclass(frozen=True)
class EventRecord:
    """One thing that happened in a trial, ready to publish or log.

    Attributes:
        kind: one of :data:`RECORD_KINDS`.
        time_s: time stamp of the sample it happened on, s.
        trial_time_s: time since the trial's first sample, s.
        step: index of that sample among the samples the trial accepted.
        trial_id: the trial, counted from 1.
        command: what the event asked for.
        details: scalar facts about it (names, distances in m, times in s).
    """

    kind: str
    time_s: float
    trial_time_s: float
    step: int
    trial_id: int
    command: Command = Command.CONTINUE
    details: Mapping[str, DetailValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in RECORD_KINDS:
            raise ConfigError(
                f'record kind {self.kind!r} is not one of {", ".join(RECORD_KINDS)}')
        details = {}
        for key, value in self.details.items():
            if key in RESERVED_KEYS:
                raise ConfigError(
                    f'detail key {key!r} is reserved; reserved keys: {", ".join(RESERVED_KEYS)}')
            details[str(key)] = _plain(value, key)
        object.__setattr__(self, 'details', MappingProxyType(details))

    def __deepcopy__(self, memo: dict) -> EventRecord:
        """Return itself: a record never changes (and a read-only mapping cannot be copied)."""
        return self

    @property
    def reset_from_s(self) -> float:
        """Where time last went back from before a trial_start, s.

        -inf when the record does not say (no reset seen, an older monitor) or says
        something that is not a number: the trial is then placed by stamps alone.
        """
        value = self.details.get('reset_from_s')
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return -math.inf
        return float(value)

    def as_strings(self) -> dict[str, str]:
        """Return a flat dict of strings (DiagnosticStatus values, a JSON-lines entry).

        Floats are written with ``repr`` so they read back exactly; booleans
        as 'true'/'false'; the kind under 'type'.
        """
        flat = {
            'type': self.kind,
            'time_s': repr(float(self.time_s)),
            'trial_time_s': repr(float(self.trial_time_s)),
            'step': str(self.step),
            'trial': str(self.trial_id),
            'command': self.command.value,
        }
        flat.update((key, _format(value)) for key, value in self.details.items())
        return flat

    @staticmethod
    def from_strings(values: Mapping[str, str]) -> 'EventRecord':
        """Read back :meth:`as_strings`.

        Detail values come back as bool, int, float or str, whichever parses
        first in that order (so a str detail that looks like a number becomes one).

        Raises:
            ConfigError: a reserved key is missing or does not parse.
        """
        missing = [key for key in RESERVED_KEYS if key not in values]
        if missing:
            raise ConfigError(f'event record lacks {", ".join(missing)}')
        try:
            command = Command(values['command'])
            numbers = (float(values['time_s']), float(values['trial_time_s']),
                       int(values['step']), int(values['trial']))
        except ValueError as error:
            raise ConfigError(f'event record does not parse: {error}') from None
        details = {key: _parse(text) for key, text in values.items() if key not in RESERVED_KEYS}
        return EventRecord(values['type'], *numbers, command, details)


# -- the state a trial keeps -------------------------------------------------------------
@dataclass
class TrialState:
    """The clocks and facts of the open trial, owned by the monitor, read by events.

    Attributes:
        trial_id: the trial, counted from 1.
        start_time_s: time stamp of the trial's first sample, s.
        time_s: time stamp of the current sample, s.
        step: index of the current sample among those the trial accepted.
        trial_time_s: ``time_s - start_time_s``.
        stale_time_s: total time covered by stale samples, s.
        monitored_time_s: trial time minus stale time, s; the clock of every
            timer that could otherwise fire on untrusted data.
        dt_s: time the current sample stands for, s (the interval since the
            previous sample; one sensor period for the first).
        fired: event name -> trial time it fired, s.
        stale: the last sample was stale.
        stale_since_s: trial time the current stale stretch began, s.
        ended: an event stopped the trial.
    """

    trial_id: int
    start_time_s: float
    time_s: float = 0.0
    step: int = 0
    trial_time_s: float = 0.0
    stale_time_s: float = 0.0
    monitored_time_s: float = 0.0
    dt_s: float = 0.0
    fired: dict[str, float] = field(default_factory=dict)
    stale: bool = False
    stale_since_s: float = 0.0
    ended: bool = False


# -- events ------------------------------------------------------------------------------
def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if not (value > 0 and math.isfinite(value)):
            raise ConfigError(f'{name} must be finite and > 0, got {value}')


class MonitorEvent(abc.ABC):
    """An event that fires at most once per trial.

    Attributes:
        name: its name in :data:`EVENT_ORDER`.
        requires: events that must exist before it.
        needs_fresh_data: checked only on samples that are not stale.
        stop_kind: record kind when it stops the trial without firing ('' if never).
        fired: it fired in this trial.
        fired_time_s: trial time it fired, s (NaN before).
        fired_step: step it fired on (-1 before).
        details: facts about the firing (or the stop), for the event record.
    """

    name: ClassVar[str] = ''
    requires: ClassVar[tuple[str, ...]] = ()
    needs_fresh_data: ClassVar[bool] = True
    stop_kind: ClassVar[str] = ''

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything, for a new trial."""
        self.fired = False
        self.fired_time_s = math.nan
        self.fired_step = -1
        self.details: dict[str, DetailValue] = {}

    def resume(self, state: TrialState) -> None:
        """Restart what was being timed, after the event was disabled for a while."""

    @abc.abstractmethod
    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """Look at one sample; fire (setting ``fired``) or not; say what to do."""

    def _fire(self, state: TrialState, **details: DetailValue) -> None:
        self.fired = True
        self.fired_time_s = state.trial_time_s
        self.fired_step = state.step
        self.details = dict(details)


def _body_list(mask: np.ndarray, names: tuple[str, ...]) -> str:
    indices = np.flatnonzero(mask)
    if names:
        return ','.join(names[i] for i in indices)
    return ','.join(str(i) for i in indices)


class ContactEvent(MonitorEvent):
    """Fires when the object touches the robot; never stops the trial.

    Args:
        non_palm_only: count only bodies other than the palm (rostok's variant).
        body_names: names of the B robot bodies, for the record ('' list: indices).
    """

    name = 'contact'

    def __init__(self, non_palm_only: bool = False, body_names: tuple[str, ...] = ()) -> None:
        self.non_palm_only = bool(non_palm_only)
        self.body_names = tuple(body_names)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """Fire on the first sample with a contact (of a non-palm body, if so set)."""
        count = sample.non_palm_in_contact if self.non_palm_only else sample.bodies_in_contact
        if count >= 1:
            self._fire(state, bodies=_body_list(sample.in_contact, self.body_names),
                       non_palm_in_contact=sample.non_palm_in_contact)
        return Command.CONTINUE


class ContactTimeoutEvent(MonitorEvent):
    """Stops the trial when no contact happened within ``timeout_s`` of monitored time.

    Args:
        timeout_s: rostok's ``ref_time``, s (default 2).
    """

    name = 'contact_timeout'
    requires = ('contact',)

    def __init__(self, timeout_s: float = 2.0) -> None:
        _check_positive(timeout_s=timeout_s)
        self.timeout_s = float(timeout_s)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """STOP once ``t > timeout_s`` with no contact so far."""
        if 'contact' in state.fired:
            return Command.CONTINUE
        if state.monitored_time_s > self.timeout_s + TIME_TOLERANCE_S:
            self._fire(state, timeout_s=self.timeout_s)
            return Command.STOP
        return Command.CONTINUE


class FlyingApartEvent(MonitorEvent):
    """Stops the trial when a robot body is farther than ``max_distance_m`` from the base.

    A NaN distance (diverged state) counts as infinitely far. Samples without
    distances (hardware) never fire it.

    Args:
        max_distance_m: m (default 2).
        body_names: names of the B robot bodies, for the record.
    """

    name = 'flying_apart'

    def __init__(self, max_distance_m: float = 2.0, body_names: tuple[str, ...] = ()) -> None:
        _check_positive(max_distance_m=max_distance_m)
        self.max_distance_m = float(max_distance_m)
        self.body_names = tuple(body_names)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """STOP on the first sample with a body too far (or NaN)."""
        # `<=` is false for NaN, which counts as infinitely far.
        if sample.farthest_from_base_m <= self.max_distance_m:
            return Command.CONTINUE
        distances = sample.distances_from_base_m
        too_far = ~(distances <= self.max_distance_m)
        body = int(np.argmax(too_far))
        distance = float(distances[body])
        self._fire(state, body=self.body_names[body] if self.body_names else str(body),
                   distance_m=math.inf if math.isnan(distance) else distance,
                   max_distance_m=self.max_distance_m)
        return Command.STOP


class SlipOutEvent(MonitorEvent):
    """Stops the trial when non-palm contact was lost for longer than ``slip_time_s``.

    Counts only after a first non-palm contact; the timer runs on monitored time.

    Args:
        slip_time_s: rostok's ``ref_time``, s (default 1).
    """

    name = 'slip_out'

    def __init__(self, slip_time_s: float = 1.0) -> None:
        _check_positive(slip_time_s=slip_time_s)
        self.slip_time_s = float(slip_time_s)
        super().__init__()

    def reset(self) -> None:
        """Forget the last contact too."""
        super().reset()
        self.last_contact_s: float | None = None

    def resume(self, state: TrialState) -> None:
        """Restart the window now if contact was seen (by it or the contact event).

        Contact was not watched while disabled, so the time without contact
        counts from the moment it is enabled again.
        """
        if self.last_contact_s is not None or 'contact' in state.fired:
            self.last_contact_s = state.monitored_time_s

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """Remember the last non-palm contact; STOP once ``t - last > slip_time_s``."""
        if sample.non_palm_in_contact > 0:
            self.last_contact_s = state.monitored_time_s
            return Command.CONTINUE
        if self.last_contact_s is None:
            return Command.CONTINUE
        since_s = state.monitored_time_s - self.last_contact_s
        if since_s > self.slip_time_s + TIME_TOLERANCE_S:
            self._fire(state, last_contact_s=self.last_contact_s, since_contact_s=since_s,
                       slip_time_s=self.slip_time_s)
            return Command.STOP
        return Command.CONTINUE


class GraspEvent(MonitorEvent):
    """Fires (ACTIVATE) when the object stayed still in contact for ``dwell_s``.

    After the first contact, a sample counts as *still* when at least
    ``min_bodies`` non-palm bodies touch the object and

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
        min_bodies: non-palm bodies that must touch (default 2).
    """

    name = 'grasp'
    requires = ('contact',)
    stop_kind = 'grasp_timeout'

    def __init__(self, limit_s: float = 5.0, dwell_s: float = 0.01,
                 sensor_period_s: float = 0.001, still_speed_m_per_s: float = 0.01,
                 finger_still_speed: float = 0.01, min_bodies: int = 2) -> None:
        _check_positive(limit_s=limit_s, dwell_s=dwell_s, sensor_period_s=sensor_period_s)
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
        if not (still and sample.non_palm_in_contact >= self.min_bodies):
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
                   non_palm_in_contact=sample.non_palm_in_contact)
        return Command.ACTIVATE


class StopExternalForceEvent(MonitorEvent):
    """Stops the trial ``force_test_s`` of trial time after the grasp.

    It reads only the trial clock, so it is checked on stale samples too: the
    force test must end whatever the sensors say.

    Args:
        force_test_s: duration of the external force test, s (default 5).
    """

    name = 'stop_external_force'
    requires = ('grasp',)
    needs_fresh_data = False

    def __init__(self, force_test_s: float = 5.0) -> None:
        _check_positive(force_test_s=force_test_s)
        self.force_test_s = float(force_test_s)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """STOP once ``t > t_grasp + force_test_s``."""
        grasp_s = state.fired.get('grasp')
        if grasp_s is None or state.trial_time_s <= grasp_s + self.force_test_s + TIME_TOLERANCE_S:
            return Command.CONTINUE
        self._fire(state, grasp_time_s=grasp_s, force_test_s=self.force_test_s)
        return Command.STOP


class EventSet:
    """The events a monitor runs: each at most once, prerequisites first, run in order.

    Args:
        events: events to add, in an order that satisfies the prerequisites.

    Raises:
        ConfigError: as :meth:`add`.
    """

    def __init__(self, events: Iterable[MonitorEvent] = ()) -> None:
        self._events: dict[str, MonitorEvent] = {}
        for event in events:
            self.add(event)

    def add(self, event: MonitorEvent) -> None:
        """Add ``event``.

        Raises:
            ConfigError: unknown name, added twice, or a prerequisite not added yet.
        """
        _check_name(event.name)
        if event.name in self._events:
            raise ConfigError(f"event '{event.name}' is already added; each event runs once")
        for required in event.requires:
            if required not in self._events:
                added = ', '.join(self._events) or 'none'
                raise ConfigError(
                    f"event '{event.name}' needs '{required}' added before it; "
                    f'added so far: {added}')
        self._events[event.name] = event
        self._events = {name: self._events[name] for name in EVENT_ORDER if name in self._events}

    def __iter__(self) -> Iterator[MonitorEvent]:
        return iter(self._events.values())

    def __len__(self) -> int:
        return len(self._events)

    def __contains__(self, name: object) -> bool:
        return name in self._events

    def __getitem__(self, name: str) -> MonitorEvent:
        _check_name(name)
        try:
            return self._events[name]
        except KeyError:
            raise ConfigError(
                f'event {name!r} is not in this monitor; it has: {", ".join(self._events)}'
            ) from None

    @property
    def names(self) -> tuple[str, ...]:
        """Names of the events, in the order they run."""
        return tuple(self._events)


def _check_name(name: str) -> None:
    if name not in EVENT_ORDER:
        raise ConfigError(f'unknown event {name!r}; valid events: {", ".join(EVENT_ORDER)}')


# -- configuration and the monitor -------------------------------------------------------
@dataclass(frozen=True)
class MonitorConfig:
    """Parameters of a grasp monitor (defaults: rostok's constants).

    Attributes:
        sensor_period_s: nominal interval between samples, s.
        grasp_dwell_s: how long the object must stay still for a grasp, s;
            None means 10 sensor periods (rostok's 10 steps). Resolved on
            construction.
        object_still_speed_m_per_s: object still threshold, m/s.
        finger_still_speed: finger joint still threshold when the object speed
            is unknown, rad/s or m/s.
        min_grasp_bodies: non-palm bodies in contact needed for a grasp.
        grasp_limit_s: no grasp by then stops the trial, s.
        contact_timeout_s: no contact by then stops the trial, s.
        slip_out_s: non-palm contact lost this long stops the trial, s.
        max_distance_m: a robot body this far from the base stops the trial, m.
        force_test_s: the external force test lasts this long after the grasp, s.
        contact_non_palm_only: the contact event counts only non-palm bodies.
        max_sample_age_s: a sample older than this is stale, s (inf: never).
        time_reset_tolerance_s: time going back by more than this opens a new
            trial; by less, the sample is dropped as out of order, s.
        auto_start: open a trial on the first sample without a start call.
        robot_bodies: names of the B robot bodies, in sample order (optional;
            when given, every sample must have B bodies).
        events: the events to run (any order; they run in EVENT_ORDER).
    """

    sensor_period_s: float = 0.001
    grasp_dwell_s: float | None = None
    object_still_speed_m_per_s: float = 0.01
    finger_still_speed: float = 0.01
    min_grasp_bodies: int = 2
    grasp_limit_s: float = 5.0
    contact_timeout_s: float = 2.0
    slip_out_s: float = 1.0
    max_distance_m: float = 2.0
    force_test_s: float = 5.0
    contact_non_palm_only: bool = False
    max_sample_age_s: float = math.inf
    time_reset_tolerance_s: float = 0.0
    auto_start: bool = True
    robot_bodies: tuple[str, ...] = ()
    events: tuple[str, ...] = EVENT_ORDER

    def __post_init__(self) -> None:
        _check_positive(sensor_period_s=self.sensor_period_s)
        if self.grasp_dwell_s is None:
            object.__setattr__(self, 'grasp_dwell_s', 10 * self.sensor_period_s)
        _check_positive(**{name: getattr(self, name) for name in (
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
        events = tuple(self.events)
        for name in events:
            _check_name(name)
        object.__setattr__(self, 'events', events)
        # Builds (and so validates) every event: parameters, duplicates, prerequisites.
        self.build_events()

    def build_events(self) -> EventSet:
        """Return fresh event objects for ``events``.

        Raises:
            ConfigError: an event is named twice, lacks its prerequisite, or a
                parameter is out of range.
        """
        bodies = self.robot_bodies
        dwell_s = float(self.grasp_dwell_s)  # type: ignore[arg-type]  # resolved on construction
        factories = {
            'contact': lambda: ContactEvent(self.contact_non_palm_only, bodies),
            'contact_timeout': lambda: ContactTimeoutEvent(self.contact_timeout_s),
            'flying_apart': lambda: FlyingApartEvent(self.max_distance_m, bodies),
            'slip_out': lambda: SlipOutEvent(self.slip_out_s),
            'grasp': lambda: GraspEvent(
                self.grasp_limit_s, dwell_s, self.sensor_period_s,
                self.object_still_speed_m_per_s, self.finger_still_speed,
                self.min_grasp_bodies),
            'stop_external_force': lambda: StopExternalForceEvent(self.force_test_s),
        }
        # Sorted, so a prerequisite is always added before the events that need it.
        return EventSet(factories[name]() for name in sorted(self.events, key=EVENT_ORDER.index))


@dataclass(frozen=True)
class MonitorUpdate:
    """What the monitor made of one sample.

    Attributes:
        status: how the sample was treated.
        command: STOP if an event stopped the trial, ACTIVATE if the grasp
            fired, else CONTINUE.
        records: records emitted, in order (events, and trial/sensor status).
        trial_id: the trial (0 when none is open).
        step: the sample's step in the trial (-1 when none is open).
    """

    status: MonitorStatus
    command: Command
    records: tuple[EventRecord, ...]
    trial_id: int
    step: int


class GraspMonitor:
    """Runs the enabled events over a stream of samples, trial after trial.

    A trial opens on the first sample after construction (with ``auto_start``)
    or after :meth:`start_trial`, and when time goes back (a simulator reset);
    it ends when an event says STOP, on :meth:`stop_trial`, or on a reset.
    Not thread-safe: call it from one thread (in a node, one mutually
    exclusive callback group for the samples and the services).

    Args:
        config: the parameters and the events to run.

    Attributes:
        counters: samples, stale, paused, out_of_order, time_resets, trials.
    """

    def __init__(self, config: MonitorConfig | None = None) -> None:
        self.config = config if config is not None else MonitorConfig()
        self.events = self.config.build_events()
        self._enabled = dict.fromkeys(self.events.names, True)
        self._trial: TrialState | None = None
        self._last_trial_id = 0
        self._pending_id = 1 if self.config.auto_start else 0
        self._latest_s = -math.inf  # the latest sample's stamp, trial or not
        self._reset_from_s = -math.inf  # where time last went back from
        self.status = MonitorStatus.IDLE
        self.counters = dict.fromkeys(
            ('samples', 'stale', 'paused', 'out_of_order', 'time_resets', 'trials'), 0)

    # -- control ---------------------------------------------------------------------
    @property
    def trial_id(self) -> int:
        """The open trial, or the one the next sample opens; 0 when none."""
        if self._pending_id:
            return self._pending_id
        return self._trial.trial_id if self._trial is not None else 0

    @property
    def trial(self) -> TrialState | None:
        """Return the state of the current or last ended trial; None when there is none."""
        return self._trial

    def enabled(self, name: str) -> bool:
        """Whether event ``name`` runs.

        Raises:
            ConfigError: unknown event or not in this monitor.
        """
        return self._enabled[self.events[name].name]

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Enable or disable event ``name`` from the next sample on.

        Re-enabling restarts its timers (it did not watch meanwhile).

        Raises:
            ConfigError: unknown event, or the change would leave an enabled
                event without its enabled prerequisite.
        """
        event = self.events[name]
        if enabled:
            missing = [req for req in event.requires if not self._enabled[req]]
            if missing:
                raise ConfigError(
                    f"cannot enable '{name}': it needs {', '.join(missing)} enabled")
            if not self._enabled[name] and self._trial is not None:
                event.resume(self._trial)
        else:
            dependents = [other.name for other in self.events
                          if name in other.requires and self._enabled[other.name]]
            if dependents:
                raise ConfigError(
                    f"cannot disable '{name}': enabled events need it: {', '.join(dependents)}")
        self._enabled[name] = bool(enabled)

    def start_trial(self) -> list[EventRecord]:
        """End the open trial (reason 'restarted'); the next sample opens a new one.

        Returns:
            The 'trial_end' record of the trial it ended, if any.
        """
        records = self._close('restarted')
        self._pending_id = self._last_trial_id + 1
        return records

    def stop_trial(self, reason: str = 'stopped') -> list[EventRecord]:
        """End the open trial and wait for :meth:`start_trial`.

        Returns:
            The 'trial_end' record, if a trial was running.
        """
        records = self._close(reason)
        self._pending_id = 0
        self.status = MonitorStatus.IDLE
        return records

    def _close(self, reason: str) -> list[EventRecord]:
        trial, self._trial = self._trial, None
        if trial is None or trial.ended:
            return []
        trial.ended = True
        return [self._record(trial, 'trial_end', Command.CONTINUE, {'reason': reason})]

    def _open(self, time_s: float) -> EventRecord:
        trial_id = self._pending_id or self._last_trial_id + 1
        self._pending_id = 0
        self._last_trial_id = trial_id
        self._trial = TrialState(trial_id, start_time_s=time_s, time_s=time_s,
                                 dt_s=self.config.sensor_period_s)
        for event in self.events:
            event.reset()
        self.counters['trials'] += 1
        # where time went back from tells a node that has not yet seen the reset that
        # the trial is on the next timeline, not on the one it is still reading
        reset = {'reset_from_s': self._reset_from_s} if math.isfinite(self._reset_from_s) \
            else {}
        return self._record(self._trial, 'trial_start', Command.CONTINUE,
                            {'start_time_s': time_s} | reset)

    @staticmethod
    def _record(trial: TrialState, kind: str, command: Command,
                details: Mapping[str, DetailValue]) -> EventRecord:
        return EventRecord(kind, trial.time_s, trial.trial_time_s, trial.step, trial.trial_id,
                           command, details)

    # -- the stream ------------------------------------------------------------------
    def update(self, sample: GraspSample) -> MonitorUpdate:
        """Take one sample, run the events, and say what happened.

        Raises:
            ConfigError: the sample's number of bodies differs from ``robot_bodies``.
        """
        bodies = self.config.robot_bodies
        if bodies and sample.in_contact.size != len(bodies):
            raise ConfigError(
                f'sample has {sample.in_contact.size} bodies, the monitor watches '
                f'{len(bodies)}: {", ".join(bodies)}')
        self.counters['samples'] += 1
        went_back_s = self._latest_s - sample.time_s
        if went_back_s > max(TIME_TOLERANCE_S, self.config.time_reset_tolerance_s):
            self._reset_from_s = self._latest_s
            self._latest_s = sample.time_s
        else:
            self._latest_s = max(self._latest_s, sample.time_s)
        records: list[EventRecord] = []
        trial = self._trial
        if trial is not None and sample.time_s < trial.time_s - TIME_TOLERANCE_S:
            if trial.time_s - sample.time_s <= self.config.time_reset_tolerance_s:
                self.counters['out_of_order'] += 1
                return self._result(MonitorStatus.OUT_OF_ORDER, Command.CONTINUE, records)
            self.counters['time_resets'] += 1
            records += self._close('time_reset')
            self._pending_id = self._last_trial_id + 1
            trial = None
        first = trial is None
        if first:
            if not self._pending_id:
                return self._result(MonitorStatus.IDLE, Command.CONTINUE, records)
            records.append(self._open(sample.time_s))
            trial = self._trial
        assert trial is not None
        if trial.ended:
            trial.time_s = max(trial.time_s, sample.time_s)
            return self._result(MonitorStatus.ENDED, Command.CONTINUE, records)
        if not first:
            dt_s = sample.time_s - trial.time_s
            if dt_s <= TIME_TOLERANCE_S:
                self.counters['paused'] += 1
                return self._result(MonitorStatus.PAUSED, Command.CONTINUE, records)
            trial.step += 1
            trial.dt_s = dt_s
            trial.time_s = sample.time_s
            trial.trial_time_s = sample.time_s - trial.start_time_s
        stale = sample.stale or sample.age_s > self.config.max_sample_age_s
        if stale:
            self.counters['stale'] += 1
            if not first:
                trial.stale_time_s += trial.dt_s
            if not trial.stale:
                trial.stale = True
                trial.stale_since_s = trial.trial_time_s
                records.append(self._record(
                    trial, 'sensor_stale', Command.CONTINUE,
                    {'flagged': bool(sample.stale), 'age_s': float(sample.age_s)}))
        elif trial.stale:
            trial.stale = False
            records.append(self._record(
                trial, 'sensor_fresh', Command.CONTINUE,
                {'stale_for_s': trial.trial_time_s - trial.stale_since_s}))
        trial.monitored_time_s = trial.trial_time_s - trial.stale_time_s
        command = self._run_events(sample, trial, stale, records)
        status = MonitorStatus.STALE if stale else MonitorStatus.OK
        return self._result(status, command, records)

    def _run_events(self, sample: GraspSample, trial: TrialState, stale: bool,
                    records: list[EventRecord]) -> Command:
        command = Command.CONTINUE
        enabled = self._enabled
        for event in self.events:
            if event.fired or not enabled[event.name] or (stale and event.needs_fresh_data):
                continue
            result = event.check(sample, trial)
            if result is Command.CONTINUE and not event.fired:
                continue  # the usual case, at every sample
            if event.fired:
                trial.fired[event.name] = event.fired_time_s
                records.append(self._record(trial, event.name, result, event.details))
            elif result is Command.STOP:
                records.append(self._record(trial, event.stop_kind, result, event.details))
            if result is Command.STOP:
                trial.ended = True
                records.append(self._record(
                    trial, 'trial_end', Command.CONTINUE, {'reason': records[-1].kind}))
                return Command.STOP
            if result is Command.ACTIVATE:
                command = Command.ACTIVATE
        return command

    def _result(self, status: MonitorStatus, command: Command,
                records: list[EventRecord]) -> MonitorUpdate:
        self.status = status
        trial = self._trial
        return MonitorUpdate(status, command, tuple(records),
                             trial.trial_id if trial is not None else 0,
                             trial.step if trial is not None else -1)

    def diagnostics(self) -> dict[str, str]:
        """Return the monitor's state as a flat dict of strings (for /diagnostics)."""
        trial = self._trial
        values = {
            'status': self.status.value,
            'trial': str(self.trial_id),
            'trial_time_s': repr(trial.trial_time_s) if trial is not None else 'nan',
            'fired': ','.join(trial.fired) if trial is not None else '',
            'enabled': ','.join(name for name, on in self._enabled.items() if on),
        }
        values.update((name, str(count)) for name, count in self.counters.items())
        return values


# -- the external force test -------------------------------------------------------------
FORCE_PROFILES = ('sine', 'random')


@dataclass(frozen=True)
class ExternalForceTest:
    """The force the simulator applies to the object after a grasp (REFERENCE.md §1).

    'sine': ``(A·sin(ω·τ) + offset) · direction`` with ``A = amplitude_n_per_kg ·
    mass`` and ``τ`` the time since the grasp. 'random': a force of magnitude
    ``amplitude_n_per_kg · mass`` along a direction drawn uniformly on the
    sphere, redrawn every ``redraw_every_steps`` steps since the grasp; the
    direction of each block of steps depends only on ``seed`` and the block
    index, so any step can be evaluated alone and reruns repeat exactly.

    Attributes:
        profile: 'sine' or 'random'.
        amplitude_n_per_kg: force amplitude per kg of object, N/kg (default 100).
        angular_frequency_rad_per_s: ω of the sine, rad/s (default 0.5).
        offset_n: constant part of the sine, N (default 1).
        direction_in_world: (3,) direction of the sine force, normalised
            (default +z).
        redraw_every_steps: steps between random directions (default 100).
        seed: seed of the random directions.
    """

    profile: str = 'sine'
    amplitude_n_per_kg: float = 100.0
    angular_frequency_rad_per_s: float = 0.5
    offset_n: float = 1.0
    direction_in_world: np.ndarray = (0.0, 0.0, 1.0)  # type: ignore[assignment]
    redraw_every_steps: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        if self.profile not in FORCE_PROFILES:
            raise ConfigError(
                f'profile {self.profile!r} is not one of {", ".join(FORCE_PROFILES)}')
        for name in ('amplitude_n_per_kg', 'angular_frequency_rad_per_s', 'offset_n'):
            if not math.isfinite(getattr(self, name)):
                raise ConfigError(f'{name} must be finite, got {getattr(self, name)}')
        if self.amplitude_n_per_kg < 0:
            raise ConfigError(f'amplitude_n_per_kg must be >= 0, got {self.amplitude_n_per_kg}')
        direction = np.array(self.direction_in_world, dtype=float)
        norm = float(np.linalg.norm(direction)) if direction.shape == (3,) else 0.0
        if not (norm > 0 and math.isfinite(norm)):
            raise ConfigError(
                f'direction_in_world must be a finite non-zero 3-vector, '
                f'got {direction.tolist()}')
        direction = direction / norm
        direction.setflags(write=False)
        object.__setattr__(self, 'direction_in_world', direction)
        if self.seed < 0:
            raise ConfigError(f'seed must be >= 0, got {self.seed}')
        if self.redraw_every_steps < 1:
            raise ConfigError(f'redraw_every_steps must be >= 1, got {self.redraw_every_steps}')

    def force_in_world(self, time_since_grasp_s: float, object_mass_kg: float,
                       step_since_grasp: int = 0) -> np.ndarray:
        """Return the (3,) force on the object's COG, N, world frame.

        Args:
            time_since_grasp_s: τ, s; before the grasp (τ < 0) the force is zero.
            object_mass_kg: mass of the object, kg (> 0).
            step_since_grasp: physics steps since the grasp ('random' only).

        Raises:
            ConfigError: a mass that is not > 0.
        """
        if not (object_mass_kg > 0 and math.isfinite(object_mass_kg)):
            raise ConfigError(f'object_mass_kg must be finite and > 0, got {object_mass_kg}')
        if time_since_grasp_s < 0 or step_since_grasp < 0:
            return np.zeros(3)
        amplitude_n = self.amplitude_n_per_kg * object_mass_kg
        if self.profile == 'sine':
            magnitude_n = (amplitude_n * math.sin(self.angular_frequency_rad_per_s
                                                  * time_since_grasp_s) + self.offset_n)
            return magnitude_n * self.direction_in_world
        block = step_since_grasp // self.redraw_every_steps
        # A normal 3-vector has a direction uniform on the sphere.
        draw = np.random.default_rng((self.seed, block)).standard_normal(3)
        return amplitude_n * draw / np.linalg.norm(draw)
