"""Wall-clock pacing of a timeline (simulated or recorded time), with pause and stop."""

from __future__ import annotations

import threading
import time


class Pacer:
    """Keeps a timeline at ``rate`` × wall time; pausing and stopping are thread-safe.

    The first ``delay_s`` after construction, ``rebase()`` or a resume puts the
    timeline's origin at the wall clock's now: pacing restarts from there instead of
    bunching up whatever a pause or a stall left behind.

    Args:
        rate: timeline units (× ``unit_s``) per wall second; > 0 to pace.
        unit_s: seconds per timeline unit (1e-9 for nanosecond stamps, kept exact as ints).
    """

    def __init__(self, rate: float, unit_s: float = 1.0) -> None:
        self.rate = rate
        self.unit_s = unit_s
        self._paused = threading.Event()
        self._stop = threading.Event()
        self._rebase = True
        self._wall0 = 0.0
        self._origin: float = 0

    @property
    def paused(self) -> bool:
        """Whether the timeline is suspended."""
        return self._paused.is_set()

    @property
    def stopped(self) -> bool:
        """Whether ``stop()`` was called."""
        return self._stop.is_set()

    def set_paused(self, paused: bool) -> None:
        """Suspend or resume; pacing restarts from now on resume."""
        if paused:
            self._paused.set()
        else:
            self._rebase = True
            self._paused.clear()

    def stop(self) -> None:
        """Stop for good; a ``sleep`` under way returns at once."""
        self._stop.set()

    def rebase(self) -> None:
        """Restart pacing from now at the next ``delay_s``."""
        self._rebase = True

    def delay_s(self, due: float, origin: float | None = None) -> float:
        """Return the wall seconds until timeline time ``due`` (negative: late).

        After a rebase, ``origin`` (default ``due``) is placed at the wall clock's now.
        """
        if self._rebase:
            self._wall0 = time.monotonic()
            self._origin = due if origin is None else origin
            self._rebase = False
        return self._wall0 + (due - self._origin) * self.unit_s / self.rate - time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of wall time, or until ``stop()``."""
        self._stop.wait(seconds)
