"""What ``grasp-monitor demo`` reports: the results table, the JSON and the summary figure.

Plain data in, text and files out; no ROS here, so the report reads the same
whatever ran the trial.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
import json
from pathlib import Path
from typing import Any, Sequence

from grasp_monitor.core.quality import epsilon_summary
import numpy as np

#: Marker colour of each event kind in the figure (others grey).
EVENT_COLOURS = {'contact': 'tab:green', 'grasp': 'tab:blue', 'stop_external_force': 'tab:purple',
                 'slip_out': 'tab:red', 'contact_timeout': 'tab:red', 'grasp_timeout': 'tab:red',
                 'flying_apart': 'tab:red', 'trial_end': 'black'}
#: Records that say something about the grasp (sensor_stale and friends are status).
SHOWN_EVENTS = tuple(EVENT_COLOURS)


@dataclass(frozen=True)
class TopicCount:
    """Messages of one topic: in the recording, as published, as the demo received them.

    Attributes:
        topic: absolute topic name.
        recorded: messages in the MCAP (None without a recording).
        published: messages the publisher reports for the recording window (None when
            it reports none: the topic is listed, not checked).
        source: where ``published`` comes from.
        received: messages the demo's own subscription received in the window.
    """

    topic: str
    recorded: int | None
    published: int | None
    source: str
    received: int | None

    @property
    def matches(self) -> bool | None:
        """Whether the recording holds every published message (None: not checked)."""
        if self.published is None or self.recorded is None:
            return None
        return self.recorded == self.published


@dataclass
class DemoResult:
    """Everything the demo found out, as the table, the JSON and the figure show it.

    Attributes:
        scenario: the scenario that ran.
        mode: how the trial ran (scripted pick, or monitoring for a fixed time).
        trial_start_s: simulated time of the trial's first sample, s.
        events: the monitor's records of the trial (``EventRecord.as_strings``).
        criteria: each criterion's reward, from the metrics node.
        reward: the weighted total reward (None if the metrics node sent none).
        basis: what the criteria come from, as the metrics node says: ``contacts``
            or ``taxels (estimate)`` ('' without criteria).
        energy_peak_j: largest energy metric in the trial, J.
        energy_peak_time_s: its stamp (the first sample of that value), s.
        epsilon: the trial's grasp quality summary (``core.quality.epsilon_summary``
            of the metrics' ``epsilon.variant``, and ``variant``), as the offline run's.
        counts: per-topic message counts.
        mcap_path: the recording ('' without one).
        recording_note: why there is no recording, if there is none.
        png_path: the summary figure.
        logs_dir: where each node's output went.
        failures: what went wrong with the processes or the recording, if anything.
    """

    scenario: str
    mode: str
    trial_start_s: float = 0.0
    events: list[dict[str, str]] = field(default_factory=list)
    criteria: dict[str, float] = field(default_factory=dict)
    reward: float | None = None
    basis: str = ''
    energy_peak_j: float | None = None
    energy_peak_time_s: float | None = None
    epsilon: dict = field(default_factory=dict)
    counts: list[TopicCount] = field(default_factory=list)
    mcap_path: str = ''
    png_path: str = ''
    logs_dir: str = ''
    recording_note: str = ''
    failures: list[str] = field(default_factory=list)

    def fired(self) -> list[str]:
        """Return the kinds of the grasp events in the trial, in order."""
        return [e['type'] for e in self.events if e['type'] in SHOWN_EVENTS]

    def counts_match(self) -> bool:
        """Whether every checked topic's recording holds every published message."""
        return all(c.matches is not False for c in self.counts)

    def to_json(self) -> dict:
        """Return the JSON document of the result."""
        document = asdict(self)
        document['fired'] = self.fired()
        for count, entry in zip(self.counts, document['counts']):
            entry['matches'] = count.matches
        return document


@dataclass
class Series:
    """Time series of the trial for the figure; times are simulated seconds.

    Attributes:
        energy: (time, energy J) rows.
        pad_force: pad name -> (time, total force N) rows.
        joints: finger joint name -> (time, position m) rows.
        lift: (time, position m) rows of the scene's lift axis, if it has one.
        epsilon: (time, epsilon L1, epsilon L∞, contacts) rows: the grasp quality of
            every metrics sample (NaN: a variant not computed).
    """

    energy: list[tuple[float, float]] = field(default_factory=list)
    pad_force: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    joints: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    lift: list[tuple[float, float]] = field(default_factory=list)
    epsilon: list[tuple[float, float, float, float]] = field(default_factory=list)


def results_table(result: DemoResult) -> str:
    """Return the results table printed at the end of the demo."""
    lines = [f'grasp-monitor demo: {result.scenario} ({result.mode})', '',
             'events                 trial time']
    for event in result.events:
        if event['type'] in SHOWN_EVENTS:
            detail = f'  ({event["reason"]})' if 'reason' in event else ''
            lines.append(f'  {event["type"]:20s} {float(event["trial_time_s"]):8.3f} s'
                         f'{detail}')
    lines += ['', 'criteria']
    for name, value in result.criteria.items():
        lines.append(f'  {name:24s} {value:6.3f}')
    reward = 'none received' if result.reward is None else f'{result.reward:.3f}'
    peak = 'none received' if result.energy_peak_j is None else \
        f'{result.energy_peak_j:.4g} J at {result.energy_peak_time_s:.3f} s'
    lines += [f'  {"total reward":24s} {reward}', f'energy peak                {peak}', '']
    if result.mcap_path:
        lines.append(f'recording  {result.mcap_path}')
        lines.append(f'  {"topic":36s} {"mcap":>7s} {"published":>9s} {"received":>8s}'
                     '  check (published by)')
        for c in result.counts:
            check = {True: 'same', False: 'DIFFERENT', None: 'listed'}[c.matches]
            lines.append(f'  {c.topic:36s} {_count(c.recorded):>7s} {_count(c.published):>9s}'
                         f' {_count(c.received):>8s}  {check}'
                         + (f' ({c.source})' if c.source else ''))
    else:
        lines.append(f'recording  none ({result.recording_note or "the trial did not run"})')
    lines += [f'figure     {result.png_path or "none (no events)"}',
              f'node logs  {result.logs_dir}']
    for failure in result.failures:  # the first line; standard error has the log's end
        lines.append(f'FAILED     {failure.splitlines()[0]}')
    return '\n'.join(lines)


def _count(value: int | None) -> str:
    return '-' if value is None else str(value)


def write_json(result: DemoResult, path: Path) -> Path:
    """Write the result as JSON to ``path`` and return it."""
    path.write_text(json.dumps(result.to_json(), indent=2) + '\n')
    return path


def plot_summary(result: DemoResult, series: Series, path: Path) -> Path:
    """Draw energy, grasp quality, contact force and fingers over time with the events.

    Time is simulated seconds since the trial's start; each grasp event is a
    vertical line across the panels, labelled in the legend. Saves a PNG.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    start_s = result.trial_start_s
    figure, (energy_ax, quality_ax, force_ax, finger_ax) = plt.subplots(
        4, 1, sharex=True, figsize=(12, 10.5), constrained_layout=True)
    styles = ('-', '--', ':', '-.')  # left and right often coincide: keep both visible
    reward = '' if result.reward is None else f', total reward {result.reward:.3f}'
    figure.suptitle(f'grasp-monitor demo: {result.scenario} ({result.mode}){reward}')
    rows = np.array(series.energy, float).reshape(-1, 2)
    energy_ax.plot(rows[:, 0] - start_s, rows[:, 1], color='tab:orange', label='energy')
    energy_ax.set_yscale('symlog', linthresh=1e-3)
    energy_ax.set_ylabel('energy metric (J)')
    energy_ax.set_title('energy to restore the object to its pose in the hand (max over objects)',
                        fontsize='medium')
    _plot_epsilon(quality_ax, series, start_s, _grasp_s(result))
    for index, (pad, samples) in enumerate(series.pad_force.items()):
        rows = np.array(samples, float).reshape(-1, 2)
        force_ax.plot(rows[:, 0] - start_s, rows[:, 1], styles[index % 4], label=pad)
    force_ax.set_ylabel('contact force (N)')
    force_ax.set_title('total tactile force on each pad', fontsize='medium')
    for index, (joint, samples) in enumerate(series.joints.items()):
        rows = np.array(samples, float).reshape(-1, 2)
        finger_ax.plot(rows[:, 0] - start_s, 1e3 * rows[:, 1], styles[index % 4], label=joint)
    finger_ax.set_ylabel('finger position (mm, closing +)')
    finger_ax.set_title('finger joints' + (' and lift axis' if series.lift else ''),
                        fontsize='medium')
    if series.lift:
        rows = np.array(series.lift, float)
        lift_ax = finger_ax.twinx()
        lift_ax.plot(rows[:, 0] - start_s, 1e3 * rows[:, 1], color='grey', linewidth=1.0)
        lift_ax.set_ylabel('lift (mm, grey)', color='grey')
        finger_ax.plot([], [], color='grey', linewidth=1.0, label='lift (right axis)')
    finger_ax.set_xlabel('simulated time since the trial started (s)')
    drawn: set[str] = set()
    for event in result.events:
        kind = event['type']
        if kind not in SHOWN_EVENTS:
            continue
        time_s = float(event['trial_time_s'])
        for ax in (energy_ax, quality_ax, force_ax, finger_ax):
            ax.axvline(time_s, color=EVENT_COLOURS[kind], linestyle='--', linewidth=1.2,
                       label=f'{kind} {time_s:.2f} s' if ax is energy_ax and kind not in drawn
                       else None)
        drawn.add(kind)
    for ax in (energy_ax, quality_ax, force_ax, finger_ax):
        ax.grid(True, alpha=0.3)
        # right of the panel, past the lift axis's labels
        ax.legend(loc='upper left', bbox_to_anchor=(1.07 if series.lift else 1.01, 1.0),
                  fontsize='small')
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def _grasp_s(result: DemoResult) -> float | None:
    """Return the grasp's stamp, s (None: no grasp)."""
    return next((float(e['time_s']) for e in result.events if e['type'] == 'grasp'), None)


def _plot_epsilon(ax: Any, series: Series, start_s: float, grasp_s: float | None) -> None:
    """Draw the grasp quality panel: each epsilon computed, titled with its summary."""
    rows = np.array(series.epsilon, float).reshape(-1, 4)
    drawn = False
    for column, (name, colour) in enumerate((('L1', 'tab:blue'), ('L∞', 'tab:purple')), 1):
        if rows.size and np.isfinite(rows[:, column]).any():
            summary = epsilon_summary(rows[:, 0], rows[:, column], grasp_s)
            ax.plot(rows[:, 0] - start_s, rows[:, column], color=colour,
                    label=f'epsilon {name}\nat the grasp {summary["at_grasp"]:.3g}\n'
                          f'peak {summary["peak"]:.3g}\n'
                          f'mean from the grasp {summary["mean_after_grasp"]:.3g}\n'
                          f'least from the grasp {summary["min_after_grasp"]:.3g}')
            drawn = True
    ax.set_ylabel('epsilon (per unit grip)')
    ax.set_title('grasp quality: Ferrari–Canny epsilon of the contacts about the centre of mass'
                 + ('' if drawn else ': none received'), fontsize='medium')


def event_line(event: dict[str, str]) -> str:
    """Return one plain line for an event as it fires."""
    details = {k: v for k, v in event.items() if k not in (
        'type', 'time_s', 'trial_time_s', 'step', 'trial', 'command')}
    extra = ' '.join(f'{k}={v}' for k, v in details.items())
    return f'event {event["type"]:20s} t={float(event["trial_time_s"]):7.3f} s {extra}'.rstrip()


def status_lines(scenario: str, phase: str, sim_time_s: float, pad_forces: Sequence[float],
                 energy_j: float | None, events: Sequence[dict[str, str]]) -> list[str]:
    """Return the live view's block: phase, time, contact force, energy, events so far."""
    force = ' '.join(f'{f:7.2f}' for f in pad_forces) or '-'  # none yet in this trial
    energy = '-' if energy_j is None else f'{energy_j:.4g}'
    fired = ', '.join(f'{e["type"]} {float(e["trial_time_s"]):.2f}s' for e in events
                      if e['type'] in SHOWN_EVENTS) or '-'
    return [f'{scenario}  phase {phase:24s} sim time {sim_time_s:7.2f} s',
            f'contact force (N) {force}   energy {energy} J',
            f'events: {fired}']
