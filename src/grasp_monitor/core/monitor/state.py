"""The clocks and facts of the open trial, and when two times are equal."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Two times closer than this (s) are equal; absorbs float error in sums of periods.
TIME_TOLERANCE_S = 1e-9


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
