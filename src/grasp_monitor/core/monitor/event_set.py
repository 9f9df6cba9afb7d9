"""The events a monitor runs, in rostok's order."""

from __future__ import annotations

from typing import Iterable, Iterator

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.event import MonitorEvent
from grasp_monitor.core.monitor.records import EVENT_ORDER


def check_name(name: str) -> None:
    """Refuse a name that is not in :data:`EVENT_ORDER`.

    Raises:
        ConfigError: lists the valid names.
    """
    if name not in EVENT_ORDER:
        raise ConfigError(f'unknown event {name!r}; valid events: {", ".join(EVENT_ORDER)}')


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
        check_name(event.name)
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
        check_name(name)
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
