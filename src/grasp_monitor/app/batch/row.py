"""A trial's result as the columns of its table row (after its swept values)."""

from __future__ import annotations

import math
from typing import Any, TYPE_CHECKING

from grasp_monitor.core.monitor import EVENT_ORDER

if TYPE_CHECKING:
    from grasp_monitor.sim.scenario_run import RunResult

#: The columns that time the trial: not results, so not compared between backends.
TIMING_COLUMNS = ('wall_time_s', 'real_time_factor')
#: The events with a column of their first time (the grasp timeout ends a trial too).
EVENT_COLUMNS = EVENT_ORDER + ('grasp_timeout', 'trial_end')


def result_columns(result: RunResult) -> dict[str, Any]:
    """Return a run's result as columns.

    Columns: steps, simulated time, divergence; each object's final position
    (``<body>_x_m``...); each event's first time (``<event>_time_s``, NaN if none) and
    all events in order (``events``); each pad's peak contact force
    (``<pad>_peak_force_n``); the energy metric's peak and its time; each criterion
    (``criterion_<name>``) and the reward; the basis; the grasp quality
    (``epsilon_<key>``); and, last, the timing columns.
    """
    row: dict[str, Any] = {'steps': result.steps, 'sim_time_s': result.sim_time_s,
                           'diverged': result.diverged}
    for body, pose in result.final_objects.items():
        for axis, value in zip('xyz', pose['position_m']):
            row[f'{body}_{axis}_m'] = value
    events = [event for event in result.events if event['type'] != 'trial_start']
    for kind in EVENT_COLUMNS:
        row[f'{kind}_time_s'] = next(
            (float(event['time_s']) for event in events if event['type'] == kind), math.nan)
    row['events'] = ' '.join(event['type'] for event in events)
    for pad, force in result.peak_contact_force_n.items():
        row[f'{pad}_peak_force_n'] = force
    row.update(peak_energy_j=result.peak_energy_j, peak_energy_time_s=result.peak_energy_time_s,
               energy_failed=result.energy_failed)
    for name, value in result.criteria.items():
        row[f'criterion_{name}'] = value
    row['reward'] = math.nan if result.reward is None else result.reward
    row['basis'] = result.basis
    for name, value in result.epsilon.items():
        row[f'epsilon_{name}'] = value
    row.update(wall_time_s=result.wall_time_s, real_time_factor=result.real_time_factor)
    return row
