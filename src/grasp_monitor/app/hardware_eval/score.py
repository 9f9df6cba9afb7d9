"""Each event of a hardware-fed monitor held against the simulator's truth, per preset.

Per trial and event: the truth's time (the referee's event; for incipient_slip, the
gross slip: the object 2 mm from the pads after the hold) and the monitor's.

- a true positive: both fired, the monitor no earlier than ``EARLY_S`` before the truth
  (incipient_slip: after the hold began and no later than the gross slip);
- a false positive: the monitor fired where the truth did not, or too early (then the
  truth's is also a false negative);
- latency: monitor - truth of the true positives (incipient_slip: its lead, gross slip -
  monitor); false alarms: incipient_slip or slip_out while the truth holds the object,
  per minute of holding; a grasp fired while a finger still closed is counted apart.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from grasp_monitor.app.hardware_eval.trial import EVENTS
from grasp_monitor.app.slip_eval.family import HOLD_S
import numpy as np

#: How much earlier than the truth a monitor may fire and still be right, s: a few samples
#: of the monitor (the truth reads the contact force of one contact, the monitor a pad's).
EARLY_S = 0.01
#: The events whose firing while the object is held is a false alarm.
ALARMS = ('incipient_slip', 'slip_out')


def _right(event: str, seen_s: float, truth_s: float) -> bool:
    if event == 'incipient_slip':
        return HOLD_S - 1e-9 <= seen_s <= truth_s + 1e-9
    return seen_s >= truth_s - EARLY_S - 1e-9


def score_event(runs: Sequence[dict[str, Any]], preset: str, event: str) -> dict[str, Any]:
    """Return one event's counts, precision, recall, F1 and latencies over ``runs``."""
    truth_key = 'gross_slip' if event == 'incipient_slip' else event
    tp = fp = fn = 0
    latencies = []
    for run in runs:
        truth_s = run['truth'].get(truth_key)
        seen_s = run['seen'][preset].get(event)
        if seen_s is not None and truth_s is not None and _right(event, seen_s, truth_s):
            tp += 1
            latencies.append(truth_s - seen_s if event == 'incipient_slip'
                             else seen_s - truth_s)
            continue
        fp += seen_s is not None
        fn += truth_s is not None
    precision = tp / (tp + fp) if tp + fp else math.nan
    recall = tp / (tp + fn) if tp + fn else math.nan
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else \
        (math.nan if math.isnan(precision) or math.isnan(recall) else 0.0)
    values = np.array(latencies) * 1e3
    # incipient_slip: its lead (larger is better), so its low tail; the others their high tail
    tail = 10 if event == 'incipient_slip' else 90
    return {'truth': tp + fn, 'seen': tp + fp, 'tp': tp, 'fp': fp, 'fn': fn,
            'precision': precision, 'recall': recall, 'f1': f1,
            'median_ms': float(np.median(values)) if values.size else math.nan,
            f'p{tail}_ms': float(np.percentile(values, tail)) if values.size else math.nan}


def false_alarms(runs: Sequence[dict[str, Any]], preset: str) -> dict[str, Any]:
    """Return alarms (incipient_slip, slip_out) fired while the truth held, per minute."""
    held_s = sum(run['held_s'] for run in runs)
    count = 0
    for run in runs:
        grasp_s = run['truth'].get('grasp')
        if grasp_s is None:
            continue
        until_s = grasp_s + run['held_s']
        count += sum(grasp_s <= run['seen'][preset].get(event, math.inf) <= until_s
                     for event in ALARMS)
    return {'alarms': count, 'held_min': held_s / 60.0,
            'per_min': count / (held_s / 60.0) if held_s > 0 else math.nan}


def score_preset(runs: Sequence[dict[str, Any]], preset: str) -> dict[str, Any]:
    """Return every event's score, the false alarms and the grasps fired while closing."""
    return {'events': {event: score_event(runs, preset, event) for event in EVENTS},
            'false_alarms': false_alarms(runs, preset),
            'grasp_while_closing': sum(run['closing'][preset] for run in runs),
            'trials': len(runs)}


def table(scores: dict[str, Any]) -> str:
    """Return a preset's scores as a Markdown table."""
    lines = ['| event | truth | seen | TP | FP | FN | precision | recall | F1 | '
             'latency median ms | latency p90 ms |', '|---' * 11 + '|']
    for event, s in scores['events'].items():
        tail = s.get('p90_ms', s.get('p10_ms'))
        name = f'{event} (lead; p10)' if event == 'incipient_slip' else event
        lines.append(f"| {name} | {s['truth']} | {s['seen']} | {s['tp']} | {s['fp']} | "
                     f"{s['fn']} | {_f(s['precision'])} | {_f(s['recall'])} | {_f(s['f1'])} "
                     f"| {_f(s['median_ms'], 0)} | {_f(tail, 0)} |")
    alarms = scores['false_alarms']
    lines.append('')
    lines.append(f"False alarms (incipient_slip or slip_out while held): {alarms['alarms']} "
                 f"over {alarms['held_min']:.1f} min of holding "
                 f"({_f(alarms['per_min'], 2)} per min); grasps fired while a finger still "
                 f"closed: {scores['grasp_while_closing']} of {scores['trials']} trials.")
    return '\n'.join(lines)


def _f(value: float, digits: int = 3) -> str:
    # + 0.0: no '-0' for a latency a rounding below zero
    if value is None or math.isnan(value):
        return '–'
    return f'{round(value, digits) + 0.0:.{digits}f}'
