"""Event records, their kinds and their flat string form (diagnostics, JSON lines)."""

from __future__ import annotations

from dataclasses import dataclass, field
import enum
import math
import re
from types import MappingProxyType
from typing import Mapping, Union

from grasp_monitor.core.errors import ConfigError
import numpy as np

#: Every event, in the order the monitor checks them (rostok's order).
EVENT_ORDER = (
    'contact', 'contact_timeout', 'flying_apart', 'slip_out', 'grasp', 'incipient_slip',
    'stop_external_force',
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
