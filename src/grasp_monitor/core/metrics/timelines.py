"""Which trial is on which timeline: the samples kept per timeline, and trials placed.

Samples come stamped (on the monitor's grid), each on a numbered timeline (a
simulator reset opens one), and a trial's bounds come as the stamps of the
monitor's trial_start and trial_end records. Which timeline a trial is on is
found from stamps alone, never from when its records arrived: a trial that a
reset separates from the one before is on a later timeline; one a reset ended
is on a timeline that ended at its end; one the monitor started after time
went back from a stamp is on the timeline that reset opened (waiting for it
if this node has not seen it yet); otherwise it is on the newest timeline
whose samples reach its start. Recent samples of each timeline are
kept, so a trial holds exactly the samples stamped within its bounds on its
timeline, whichever of samples and records arrives first.
"""

from __future__ import annotations

from collections import deque
import math
from typing import Sequence

from grasp_monitor.core.energy import EnergyTracker
from grasp_monitor.core.metrics.samples import Sample
from grasp_monitor.core.metrics.trial import TrialRecord
from grasp_monitor.core.monitor import TIME_TOLERANCE_S

#: Two nodes' first samples of one timeline differ by less, s (the grid's time_back_s).
TIMELINE_SLACK_S = 0.05
#: A timeline a reset ended: the monitor's last sample and the metrics' differ by less, s
#: (the grid drops the samples its slowest input had not reached when another went back).
RESET_SLACK_S = 1.0


class Timeline:
    """The samples of one timeline the metrics took: its first stamp and the latest ones.

    ``after_s`` is the last stamp of the timeline before it, where time went back from
    (-inf for the first this node had: it does not know where that one began).
    """

    def __init__(self, epoch: int, first_s: float, depth: int, samples: Sequence = (),
                 after_s: float = -math.inf) -> None:
        self.epoch, self.first_s, self.after_s = epoch, first_s, after_s
        self.samples: deque[Sample] = deque(samples, maxlen=depth)

    @property
    def last_s(self) -> float:
        """The stamp of its latest sample, s."""
        return self.samples[-1][0]

    def between(self, from_s: float, to_s: float) -> list[Sample]:
        """Return its kept samples stamped from ``from_s`` to ``to_s``, s (within tolerance)."""
        return [sample for sample in self.samples
                if from_s - TIME_TOLERANCE_S <= sample[0] <= to_s + TIME_TOLERANCE_S]


class Trial:
    """One trial's bounds, its timeline once known, its record and its energy tracker."""

    def __init__(self, record: TrialRecord, start_s: float, tracker: EnergyTracker,
                 energy_from_s: float, after: 'Trial | None', separated: bool,
                 reset_from_s: float) -> None:
        self.record, self.start_s, self.tracker = record, start_s, tracker
        # the monitor saw time go back from this stamp before the trial: its timeline
        # is the one that reset opened
        self.reset_from_s = reset_from_s
        self.energy_from_s = energy_from_s
        self.end_s = math.inf
        self.reset_end = False  # a reset ended it: its timeline ended there too
        self.timeline: int | None = None
        self.before_known = False  # on a timeline older than every one kept
        # the trial before it, and whether a reset came between them
        self.after, self.separated = after, separated


def add_sample(timelines: list[Timeline], sample: Sample, timeline: int,
               history: int) -> list[Timeline]:
    """Keep ``sample`` on ``timeline`` (opened when new); return the timelines kept.

    The newest timeline keeps ``history`` samples, the two before it a fifth.
    """
    time_s = sample[0]
    if not timelines or timeline != timelines[-1].epoch:
        # of a timeline that ended, only its last samples can still join a trial
        kept = [Timeline(t.epoch, t.first_s, max(2, history // 5), t.samples,
                         t.after_s) for t in timelines[-2:]]
        after_s = timelines[-1].last_s if timelines else -math.inf
        timelines = kept + [Timeline(timeline, time_s, history, (), after_s)]
    timelines[-1].samples.append(sample)
    return timelines


def complete(trial: Trial, timelines: Sequence[Timeline]) -> bool:
    """Whether every sample up to the trial's end is in (or none will come)."""
    if trial.before_known:
        return True
    if trial.timeline is None:
        return False
    newest = timelines[-1]
    return newest.epoch > trial.timeline or newest.last_s >= trial.end_s - TIME_TOLERANCE_S


def place(trial: Trial, timelines: Sequence[Timeline]) -> bool:
    """Find the trial's timeline from stamps; return False while it may still come."""
    if trial.timeline is not None or trial.before_known:
        return True
    lowest = -1
    if trial.after is not None:
        if not place(trial.after, timelines):
            return False  # the trial before goes first
        if trial.after.timeline is not None:
            lowest = trial.after.timeline + int(trial.separated)
    candidates = [t for t in timelines if t.epoch >= lowest]
    if not candidates:
        return False
    current = timelines[-1]
    for timeline in reversed(candidates):
        if timeline.first_s > trial.start_s + TIMELINE_SLACK_S and \
                timeline is not candidates[0]:
            continue  # it began after the trial did (the oldest: before this node)
        if math.isfinite(trial.reset_from_s):
            opened = opened_by(timeline, trial, timelines)
            if opened is None:
                return False  # the timeline the reset opened may be still to come
            if not opened:
                continue
        if trial.reset_end:  # a timeline that ended where the trial did
            if timeline is not current and \
                    abs(timeline.last_s - trial.end_s) <= RESET_SLACK_S:
                trial.timeline = timeline.epoch
                return True
            continue
        if timeline is current and timeline.last_s < trial.start_s - TIME_TOLERANCE_S:
            return False  # the trial's samples are still to come
        if timeline is current or trial.start_s <= timeline.last_s + TIMELINE_SLACK_S:
            trial.timeline = timeline.epoch
            return True
    if trial.reset_end and current.last_s > trial.end_s + RESET_SLACK_S and \
            len(candidates) == len(timelines):
        # the newest timeline ran on past the trial's reset, and no older one ended
        # there: the trial's timeline came before every one this node had
        trial.before_known = True
        return True
    return False


def opened_by(timeline: Timeline, trial: Trial, timelines: Sequence[Timeline]) -> bool | None:
    """Whether the reset before ``trial`` opened ``timeline``; None while unknown."""
    reset_from_s = trial.reset_from_s
    if math.isfinite(timeline.after_s):  # this node saw it open
        return abs(timeline.after_s - reset_from_s) <= RESET_SLACK_S
    # it opened before this node's first sample
    if timeline.last_s > reset_from_s + RESET_SLACK_S:
        return True  # it ran on past where the reset came from
    if timeline is not timelines[-1]:  # it ended: the reset's if not there
        return abs(timeline.last_s - reset_from_s) > RESET_SLACK_S
    if trial.end_s < math.inf and timeline.last_s >= trial.end_s - TIME_TOLERANCE_S:
        return True  # it holds the whole trial, and no reset came
    return None
