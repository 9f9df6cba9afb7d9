"""One trial of a sweep: its values, its key, and running it as ``grasp-monitor run`` does."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, Optional

from grasp_monitor.app.batch.names import split
from grasp_monitor.app.batch.row import result_columns


@dataclasses.dataclass(frozen=True)
class Trial:
    """One trial: a scenario, its parameter file, a duration and the swept values.

    Attributes:
        scenario: the scenario.
        params_file: its ROS parameter file ('' = config/<scenario>.yaml).
        duration_s: simulated seconds at most (None: the scenario's own trial length).
        values: (name, value) pairs: scenario parameters, physics settings and
            ``<node>.<parameter>`` values.
        continue_after_end: simulate the whole duration after the monitor's verdict
            (trial_end) too; by default a trial stops there.
    """

    scenario: str
    params_file: str
    duration_s: Optional[float]
    values: tuple[tuple[str, Any], ...]
    continue_after_end: bool = False

    @property
    def key(self) -> str:
        """What identifies the trial's result: everything that sets it, as canonical JSON."""
        # the final poses after a verdict differ from those at it: a key of its own
        return json.dumps({'scenario': self.scenario, 'params_file': self.params_file,
                           'duration_s': self.duration_s, 'values': dict(self.values),
                           'continue_after_end': self.continue_after_end}, sort_keys=True)


def run_trial(trial: Trial, report: Optional[Callable[[float], None]] = None) -> dict[str, Any]:
    """Run ``trial`` offline (monitors, criteria, reward, energy, epsilon); return its row.

    The row: key, scenario, parameter file, duration, the trial's values, then
    ``row.result_columns``.

    ``report`` is not called (a trial is one unit of progress); it is there so that the
    function is ``sim.process_pool``'s work.
    """
    from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
    from grasp_monitor.sim.scenario_run import run_scenario
    from grasp_monitor.sim.scenes import build_scene
    config = ScenarioConfig.from_file(trial.params_file) if trial.params_file else \
        ScenarioConfig.for_scenario(trial.scenario)
    kinds = split(trial.scenario, dict(trial.values))
    config = config.with_values(kinds['node'], 'sweep')
    settings, params, setup = offline_run(config, kinds['set'], kinds['param'])
    result = run_scenario(config.scenario, trial.duration_s, settings, setup=setup,
                          continue_after_end=trial.continue_after_end, **params)
    duration_s = trial.duration_s if trial.duration_s is not None else \
        build_scene(config.scenario, settings, **params).duration_s
    return {'key': trial.key, 'scenario': trial.scenario, 'params_file': trial.params_file,
            'duration_s': duration_s, **dict(trial.values), **result_columns(result)}
