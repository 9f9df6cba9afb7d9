"""The detector scored against the simulator's truth: ticks, trials, lead time, false alarms.

A tick is a monitor sample from the grasp on. It *slips* when a pad contact slides
faster than ``SLIP_SPEED_M_PER_S``; the detector *alarms* when its score (the
largest cue over its threshold) reaches 1. A trial slips grossly once the object
drifted ``GROSS_SLIP_M`` from the pads; its lead time is from the first alarm to
that moment (negative: the alarm came after). False alarms: alarm onsets (a tick
alarming after one that did not) on trials that never slip grossly, per minute.
A trial is scored until the object is lost (``LOST_M`` from the pads): what
follows is no longer a grasp (an object pulled up rests on the palm, the pads
at their friction limit without sliding).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping, Sequence

from grasp_monitor.sim.slip_truth import GROSS_SLIP_M, SLIP_SPEED_M_PER_S
import numpy as np

#: The object is lost once it drifted this far from the pads: scoring ends there, m.
LOST_M = 10e-3


def scored(run: Mapping[str, Any]) -> dict[str, Any]:
    """Return the ticks of ``run`` that are scored: until the object is lost."""
    lost = np.flatnonzero(run['drift_m'] > LOST_M)
    end = int(lost[0]) if lost.size else len(run['time_s'])
    return {key: value[:end] if isinstance(value, np.ndarray) else value
            for key, value in run.items()}


@dataclasses.dataclass(frozen=True)
class Scores:
    """The detector's figures over a set of trials at one set of thresholds.

    Attributes:
        tick_precision, tick_recall, tick_f1: over every tick of every trial.
        trial_precision, trial_recall, trial_f1: a trial alarms at any tick; it is
            positive when it slips grossly.
        lead_median_s, lead_p10_s: lead time before gross slip over the gross-slip
            trials that alarmed, s (NaN: none).
        missed: gross-slip trials with no alarm before the end.
        false_alarms_per_min: alarm onsets per minute of the trials without gross slip.
        trials, slip_trials: trials scored, those with gross slip.
        hold_minutes: simulated minutes of the trials without gross slip.
    """

    tick_precision: float
    tick_recall: float
    tick_f1: float
    trial_precision: float
    trial_recall: float
    trial_f1: float
    lead_median_s: float
    lead_p10_s: float
    missed: int
    false_alarms_per_min: float
    trials: int
    slip_trials: int
    hold_minutes: float


def _f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def score_of(cues: np.ndarray, thresholds: Sequence[float]) -> np.ndarray:
    """Return (T,) the score of (T, 5) unscaled cues: the largest cue over its threshold.

    A threshold of 0 turns its cue off.
    """
    scale = np.array([1.0 / t if t > 0 else 0.0 for t in thresholds])
    return (cues * scale).max(axis=1)


def score_trials(runs: Sequence[Mapping[str, Any]], thresholds: Sequence[float]) -> Scores:
    """Score ``runs`` (``trial.run_slip_trial`` results) at ``thresholds`` (one per cue)."""
    tp = fp = fn = 0
    trial_counts = [0, 0, 0]  # tp, fp, fn
    leads: list[float] = []
    missed = onsets = 0
    hold_s = 0.0
    slip_trials = 0
    for run in map(scored, runs):
        alarm = score_of(run['cues'], thresholds) >= 1.0
        slips = run['slip_speed'] > SLIP_SPEED_M_PER_S
        tp += int(np.count_nonzero(alarm & slips))
        fp += int(np.count_nonzero(alarm & ~slips))
        fn += int(np.count_nonzero(~alarm & slips))
        time_s = run['time_s']
        gross = np.flatnonzero(run['drift_m'] > GROSS_SLIP_M)
        alarmed = bool(alarm.any())
        if gross.size:
            slip_trials += 1
            trial_counts[0 if alarmed else 2] += 1
            if alarmed:
                leads.append(float(time_s[gross[0]] - time_s[np.argmax(alarm)]))
            else:
                missed += 1
        else:
            trial_counts[1] += int(alarmed)
            onsets += int(alarm[0]) + int(np.count_nonzero(alarm[1:] & ~alarm[:-1]))
            hold_s += float(time_s[-1] - time_s[0]) if time_s.size > 1 else 0.0
    tick = _f1(tp, fp, fn)
    trial = _f1(*trial_counts)
    lead = np.array(leads)
    return Scores(*tick, *trial,
                  float(np.median(lead)) if lead.size else math.nan,
                  float(np.percentile(lead, 10)) if lead.size else math.nan,
                  missed, onsets / (hold_s / 60.0) if hold_s > 0 else math.nan,
                  len(runs), slip_trials, hold_s / 60.0)


def pr_curve(runs: Sequence[Mapping[str, Any]], thresholds: Sequence[float],
             factors: np.ndarray) -> np.ndarray:
    """Return (F, 3) tick precision, recall, F1 with every threshold times each factor."""
    runs = [scored(run) for run in runs]
    scores = np.concatenate([score_of(run['cues'], thresholds) for run in runs])
    slips = np.concatenate([run['slip_speed'] for run in runs]) > SLIP_SPEED_M_PER_S
    order = np.argsort(-scores)
    # thresholds times k divide the score by k: a tick alarms where its score >= k
    out = np.empty((len(factors), 3))
    sorted_scores, sorted_slips = scores[order], slips[order]
    true_before = np.concatenate(([0], np.cumsum(sorted_slips)))
    total = int(np.count_nonzero(slips))
    for i, factor in enumerate(factors):
        alarms = int(np.searchsorted(-sorted_scores, -factor, side='right'))
        tp = int(true_before[alarms])
        out[i] = _f1(tp, alarms - tp, total - tp)
    return out


def tune(runs: Sequence[Mapping[str, Any]], candidates: Sequence[Sequence[float]],
         factors: np.ndarray) -> tuple[tuple[float, ...], Scores]:
    """Return the thresholds (a candidate times a factor) with the best tick F1 on ``runs``.

    Ties go to the earliest alarm (the smallest thresholds).
    """
    best: tuple[float, tuple[float, ...]] | None = None
    for candidate in candidates:
        curve = pr_curve(runs, candidate, factors)
        i = int(np.argmax(curve[:, 2]))
        if best is None or curve[i, 2] > best[0]:
            best = (float(curve[i, 2]), tuple(t * factors[i] for t in candidate))
    assert best is not None
    return best[1], score_trials(runs, best[1])


def confusion(runs: Sequence[Mapping[str, Any]], thresholds: Sequence[float]
              ) -> dict[str, float]:
    """Return where the wrong ticks fall: false alarms and misses, by phase of their trial.

    ``fp_hold``: alarms on trials without gross slip; ``fp_before_slip``: alarms before a
    trial's first slipping tick; ``fp_while_slipping``: after it (a slide pausing below the
    speed); ``fn_before_alarm``: slipping ticks before a trial's first alarm; ``fn_after_alarm``:
    after it; ``fn_hold``: slipping ticks of trials without gross slip;
    ``fp_before_slip_median_mm_per_s``: the contacts' median speed at the ``fp_before_slip``
    ticks (an object already sliding, below the ground truth's speed), mm/s.
    """
    counts: dict[str, float] = dict.fromkeys((
        'fp_hold', 'fp_before_slip', 'fp_while_slipping', 'fn_before_alarm', 'fn_after_alarm',
        'fn_hold'), 0)
    early: list[np.ndarray] = []
    for run in map(scored, runs):
        alarm = score_of(run['cues'], thresholds) >= 1.0
        slips = run['slip_speed'] > SLIP_SPEED_M_PER_S
        fp, fn = alarm & ~slips, ~alarm & slips
        if not np.any(run['drift_m'] > GROSS_SLIP_M):
            counts['fp_hold'] += int(np.count_nonzero(fp))
            counts['fn_hold'] += int(np.count_nonzero(fn))
            continue
        first_slip = int(np.argmax(slips)) if slips.any() else slips.size
        first_alarm = int(np.argmax(alarm)) if alarm.any() else alarm.size
        counts['fp_before_slip'] += int(np.count_nonzero(fp[:first_slip]))
        early.append(run['slip_speed'][:first_slip][fp[:first_slip]])
        counts['fp_while_slipping'] += int(np.count_nonzero(fp[first_slip:]))
        counts['fn_before_alarm'] += int(np.count_nonzero(fn[:first_alarm]))
        counts['fn_after_alarm'] += int(np.count_nonzero(fn[first_alarm:]))
    speeds = np.concatenate(early) if early else np.zeros(0)
    counts['fp_before_slip_median_mm_per_s'] = \
        round(float(np.median(speeds)) * 1e3, 3) if speeds.size else math.nan
    return counts


def event_leads(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Return how the monitor's own event did: firings on slips and holds, its lead times."""
    leads, fired_hold, holds = [], 0, 0
    for run in runs:
        gross = np.flatnonzero(run['drift_m'] > GROSS_SLIP_M)
        fired = not math.isnan(run['event_s'])
        if not gross.size:
            holds += 1
            fired_hold += int(fired)
        elif fired:
            leads.append(float(run['time_s'][gross[0]] - run['event_s']))
    lead = np.array(leads)
    return {'slip_trials': len(runs) - holds, 'fired_slip': len(leads), 'hold_trials': holds,
            'fired_hold': fired_hold,
            'lead_median_s': float(np.median(lead)) if lead.size else math.nan,
            'lead_p10_s': float(np.percentile(lead, 10)) if lead.size else math.nan}
