"""Which input streams went silent, on wall time: the STALE of ROS diagnostics.

A node notes the wall time of each message it takes from a stream; a stream with no
message for more than ``STALE_FACTOR`` times its expected period (at least
``MIN_SILENCE_S``) is stale, and so is one never heard. Wall time, not the node's clock:
a paused simulator stops simulated time, and with it every timer and every stamp on it.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Iterable

#: A stream is stale after this many of its expected periods without a message.
STALE_FACTOR = 10.0
#: ... and never sooner than this, s: a reading a little late under load is no stoppage.
MIN_SILENCE_S = 0.5


@dataclass(frozen=True)
class StreamStatus:
    """One stream's state: stale or not, and how long it has been silent (inf: never heard)."""

    name: str
    stale: bool
    silent_s: float
    messages: int


class StreamWatch:
    """The wall time each input stream was last heard; not thread-safe.

    Args:
        periods_s: each stream's expected period between messages, s, by name.
        factor: silent for more than ``factor`` periods is stale.
    """

    def __init__(self, periods_s: dict[str, float], factor: float = STALE_FACTOR) -> None:
        self.limits_s = {name: max(MIN_SILENCE_S, factor * period_s)
                         for name, period_s in periods_s.items()}
        self._heard_s = dict.fromkeys(periods_s, -math.inf)
        self._messages = dict.fromkeys(periods_s, 0)

    def heard(self, name: str, now_s: float) -> None:
        """Note a message of stream ``name`` taken at wall time ``now_s``."""
        if name in self._heard_s:
            self._heard_s[name] = now_s
            self._messages[name] += 1

    def statuses(self, now_s: float) -> Iterable[StreamStatus]:
        """Return every stream's status at wall time ``now_s``, in the order given."""
        for name, heard_s in self._heard_s.items():
            silent_s = now_s - heard_s
            yield StreamStatus(name, silent_s > self.limits_s[name], silent_s,
                               self._messages[name])
