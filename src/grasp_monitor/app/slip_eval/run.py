"""``grasp-monitor slip-eval``: the family run offline, the detector tuned and scored, a PR curve.

Thresholds are picked on the tuning split (best tick F1 over a few cue sets, each
scaled along a grid) and the figures reported on the held-out rest; the PR curve
sweeps the picked thresholds' scale on the held-out trials.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
import resource
import sys
import time
from typing import Any, Sequence, TextIO

from grasp_monitor.app.slip_eval.family import (
    LONG_HOLD_S, long_holds, make_family, NOSLIP_ITERATIONS)
from grasp_monitor.app.slip_eval.score import (
    confusion, event_leads, pr_curve, score_trials, scored, Scores, tune)
from grasp_monitor.app.slip_eval.trial import Detector, run_slip_trial
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.incipient_slip import CUES
from grasp_monitor.sim.slip_truth import GROSS_SLIP_M
import numpy as np

#: The friction coefficient a detector that does not know the pair's assumes.
ASSUMED_FRICTION = 0.85
_FORCES = ((1.0, 0.0, 0.0, 0.0, 0.0), (1.0, 0.05, 0.0, 0.0, 0.0), (1.0, 0.0, 0.2, 0.0, 0.0),
           (1.0, 0.05, 0.2, 0.0, 0.0))
#: Cue sets the tuning picks from (thresholds per ``CUES``; 0 = off), by detector.
CANDIDATES = {
    'forces': _FORCES,
    'slip channel': ((0.0, 0.0, 0.0, 1e-3, 0.0), (1.0, 0.0, 0.0, 1e-3, 0.0)),
    f'forces, friction taken as {ASSUMED_FRICTION}': _FORCES,
}
#: Scales of a cue set's thresholds the tuning and the PR curve sweep.
FACTORS = np.round(np.arange(0.5, 1.2001, 0.0025), 4)
#: Trials of ``--quick``.
QUICK_TRIALS = 8
#: Long holds by default, and with ``--quick`` (whose hold is ``QUICK_HOLD_S``).
LONG_HOLDS, QUICK_LONG_HOLDS = 10, 1
QUICK_HOLD_S = 5.0


def slip_eval(output_dir: Path, trials: int, seed: int = 0, jobs: int = 1,
              noslip_iterations: int = NOSLIP_ITERATIONS, pull_s: float = 2.5,
              out: TextIO = sys.stdout, holds: int = LONG_HOLDS,
              hold_s: float = LONG_HOLD_S, preset: str = 'ideal') -> dict[str, Any]:
    """Run ``trials`` trials, tune on the tuning split, score the rest; write the table and PNG.

    The detectors read the pads' clouds as the tactile arrays of realism preset
    ``preset`` report them (``core.realism``; ideal: the simulated forces).

    Then ``holds`` long holds of ``hold_s`` (``family.long_holds``): the false alarms
    per minute of stable grasp at the picked thresholds, over minutes rather than the
    family's seconds of holding.

    Writes ``slip_eval.json`` (figures, thresholds, the family's parameters),
    ``slip_eval.md`` (the table) and ``pr_curve.png`` into ``output_dir``.

    Raises:
        ConfigError: fewer than 4 trials, or a split without a trial of each kind.
    """
    from grasp_monitor.app.slip_eval.plot import plot_pr
    if trials < 4:
        raise ConfigError(f'--trials must be at least 4 (two slip, two hold), got {trials}')
    family = make_family(trials, seed, pull_s, noslip_iterations=noslip_iterations)
    held_long = long_holds(holds, seed, hold_s, noslip_iterations)
    started = _cpu_s()
    results = _run(family, 'trial', jobs, out, preset)
    long_runs = _run(held_long, 'long hold', jobs, out, preset)
    cpu_s = _cpu_s() - started
    tuning = [r for t, r in zip(family, results) if t.tuning]
    held = [r for t, r in zip(family, results) if not t.tuning]
    if not tuning or not held:
        raise ConfigError(f'{trials} trials leave a split empty; run more trials')
    rows: dict[str, dict[str, Any]] = {}
    curves = {}
    for name, candidates in CANDIDATES.items():
        tune_runs, held_runs = (assumed_friction(tuning), assumed_friction(held)) \
            if 'taken as' in name else (tuning, held)
        thresholds, tuned = tune(tune_runs, candidates, FACTORS)
        scores = score_trials(held_runs, thresholds)
        rows[name] = {'thresholds': dict(zip(CUES, thresholds)),
                      'tuning': dataclasses.asdict(tuned), 'held_out': dataclasses.asdict(scores),
                      'confusion': confusion(held_runs, thresholds),
                      'long_holds': dataclasses.asdict(score_trials(
                          assumed_friction(long_runs) if 'taken as' in name else long_runs,
                          thresholds))}
        curves[name] = (pr_curve(held_runs, thresholds, FACTORS), FACTORS)
    output_dir.mkdir(parents=True, exist_ok=True)
    plot_pr(curves, output_dir / 'pr_curve.png',
            f'{len(held)} held-out trials, {sum(scored(r)["time_s"].size for r in held)} ticks')
    event = event_leads(held)
    summary = {
        'trials': trials, 'seed': seed, 'tuning_trials': len(tuning),
        'held_out_trials': len(held), 'noslip_iterations': noslip_iterations,
        'pull_s': pull_s, 'cpu_s': cpu_s, 'preset': preset,
        'slip_trials_by_design': sum(t.slips for t in family),
        'diverged': sum(bool(r['diverged']) for r in results), 'detectors': rows,
        'event': event, 'long_holds': len(held_long), 'long_hold_s': hold_s,
        'long_holds_gross_slip': _gross_slips(long_runs),
        'family': [dataclasses.asdict(t) for t in family],
        'long_hold_trials': [dataclasses.asdict(t) for t in held_long]}
    (output_dir / 'slip_eval.json').write_text(json.dumps(summary, indent=1, default=float))
    table = markdown_table(rows, len(held)) + '\n' + confusion_table(rows) + '\n' + (
        f"The monitor's own incipient_slip event (default thresholds, forces only) on the "
        f"held-out trials: fired on {event['fired_slip']} of {event['slip_trials']} gross "
        f"slips, median lead {_figure(event['lead_median_s'], 'ms')} ms, p10 "
        f"{_figure(event['lead_p10_s'], 'ms')} ms; on {event['fired_hold']} of "
        f"{event['hold_trials']} holds.\n") + '\n' + long_hold_line(
            rows, long_runs, hold_s)
    (output_dir / 'slip_eval.md').write_text(table)
    print(table, file=out)
    print(f'{trials} trials ({len(tuning)} tuning, {len(held)} held out), sensors {preset}, '
          f'in {cpu_s:.0f} s of CPU; {output_dir / "pr_curve.png"}', file=out)
    return summary


def _run(trials: Sequence[Any], label: str, jobs: int, out: TextIO,
         preset: str = 'ideal') -> list[Any]:
    """Return each trial's ``run_slip_trial`` result, in order, counting them on ``out``."""
    from grasp_monitor.sim.process_pool import check_jobs, run_each
    results: list[Any] = [None] * len(trials)

    def finish(index: int, result: Any) -> None:
        results[index] = result
        done = sum(r is not None for r in results)
        print(f'\r{label} {done}/{len(trials)}', end='', file=out, flush=True)

    run_each(run_slip_trial, [(trial, Detector(preset=preset)) for trial in trials],
             check_jobs(jobs), finish)
    print(file=out)
    return results


def _gross_slips(runs: Sequence[dict[str, Any]]) -> int:
    """Return how many of ``runs`` slip grossly (the object drifts past ``GROSS_SLIP_M``)."""
    return sum(bool((run['drift_m'] > GROSS_SLIP_M).any()) for run in runs)


def long_hold_line(rows: dict[str, dict[str, Any]], long_runs: Sequence[dict[str, Any]],
                   hold_s: float) -> str:
    """Return the false alarms of each detector and of the monitor's event on the long holds."""
    if not long_runs:
        return ''
    minutes = next(iter(rows.values()))['long_holds']['hold_minutes']
    parts = [f"{name} {row['long_holds']['false_alarms_per_min']:.2f} per min"
             for name, row in rows.items()]
    fired = sum(not math.isnan(r['event_s']) for r in long_runs)
    slipped = _gross_slips(long_runs)
    if minutes == 0:
        return (f'Long holds: {len(long_runs)} of {hold_s:g} s, every one slipping grossly: '
                f"no stable grasp to count false alarms on; the monitor's own event fired "
                f'on {fired} of them.\n')
    return (f'Long holds: {len(long_runs)} of {hold_s:g} s ({minutes:.1f} min of grasp under a '
            f'load swinging up to half the holding limit, {slipped} of them slipping grossly): '
            f"false alarms {', '.join(parts)}; the monitor's own event fired on {fired} of "
            f'them.\n')


def _cpu_s() -> float:
    """Return the CPU time of this process and its finished workers, s."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def assumed_friction(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``runs`` with the friction cue of a cone of ``ASSUMED_FRICTION``, not the trial's."""
    changed = []
    for run in runs:
        cues = run['cues'].copy()
        cues[:, 0] *= run['friction'] / ASSUMED_FRICTION
        changed.append(run | {'cues': cues})
    return changed


def _figure(value: float, unit: str = '') -> str:
    if math.isnan(value):
        return '–'
    if unit == 'ms':
        return f'{value * 1e3:.0f}'
    return f'{value:.3f}'


def markdown_table(rows: dict[str, dict[str, Any]], held: int) -> str:
    """Return the held-out figures of each detector as a Markdown table."""
    lines = [f'| detector (held out: {held} trials) | thresholds | tick P | tick R | tick F1 '
             '| trial P | trial R | trial F1 | lead median ms | lead p10 ms | missed '
             '| false alarms / min |',
             '|' + '---|' * 12]
    for name, row in rows.items():
        s = Scores(**row['held_out'])
        thresholds = ', '.join(f'{cue} {value:.4g}' for cue, value in row['thresholds'].items()
                               if value > 0)
        lines.append(
            f'| {name} | {thresholds} | {_figure(s.tick_precision)} | {_figure(s.tick_recall)} '
            f'| {_figure(s.tick_f1)} | {_figure(s.trial_precision)} '
            f'| {_figure(s.trial_recall)} | {_figure(s.trial_f1)} '
            f'| {_figure(s.lead_median_s, "ms")} | {_figure(s.lead_p10_s, "ms")} '
            f'| {s.missed}/{s.slip_trials} | {s.false_alarms_per_min:.2f} '
            f'(over {s.hold_minutes:.1f} min) |')
    return '\n'.join(lines) + '\n'


def confusion_table(rows: dict[str, dict[str, Any]]) -> str:
    """Return where each detector's wrong held-out ticks fall, as a Markdown table."""
    keys = list(next(iter(rows.values()))['confusion'])
    lines = ['| detector | ' + ' | '.join(key.replace('_', ' ') for key in keys) + ' |',
             '|' + '---|' * (len(keys) + 1)]
    lines += [f'| {name} | ' + ' | '.join(str(row['confusion'][key]) for key in keys) + ' |'
              for name, row in rows.items()]
    return '\n'.join(lines) + '\n'


def check_args(trials: int, jobs: int, noslip_iterations: int, pull_s: float,
               argv: Sequence[str] = (), holds: int = LONG_HOLDS) -> None:
    """Refuse values the command cannot run, naming what was written and what is valid.

    Raises:
        ConfigError: the first bad value.
    """
    if not 4 <= trials <= 100000:
        raise ConfigError(f'--trials {trials}: must be in [4, 100000]')
    if jobs < 1:
        raise ConfigError(f'--jobs {jobs}: must be >= 1')
    if not 0 <= holds <= 10000:
        raise ConfigError(f'--long-holds {holds}: must be in [0, 10000]')
    if not 0 <= noslip_iterations <= 1000:
        raise ConfigError(f'--noslip-iterations {noslip_iterations}: must be in [0, 1000]')
    if not (math.isfinite(pull_s) and 0.5 <= pull_s <= 60):
        raise ConfigError(f'--pull {pull_s}: must be in [0.5, 60] s')
