"""The base of every grasp event, and the parameter check the events share."""

from __future__ import annotations

import abc
import math
from typing import ClassVar

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.records import Command, DetailValue
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.state import TrialState


def check_positive(**values: float) -> None:
    """Refuse any value that is not finite and > 0.

    Raises:
        ConfigError: names the first such value.
    """
    for name, value in values.items():
        if not (value > 0 and math.isfinite(value)):
            raise ConfigError(f'{name} must be finite and > 0, got {value}')


class MonitorEvent(abc.ABC):
    """An event that fires at most once per trial.

    Attributes:
        name: its name in :data:`EVENT_ORDER`.
        requires: events that must exist before it.
        needs_fresh_data: checked only on samples that are not stale.
        stop_kind: record kind when it stops the trial without firing ('' if never).
        fired: it fired in this trial.
        fired_time_s: trial time it fired, s (NaN before).
        details: facts about the firing (or the stop), for the event record.
    """

    name: ClassVar[str] = ''
    requires: ClassVar[tuple[str, ...]] = ()
    needs_fresh_data: ClassVar[bool] = True
    stop_kind: ClassVar[str] = ''

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything, for a new trial."""
        self.fired = False
        self.fired_time_s = math.nan
        self.details: dict[str, DetailValue] = {}

    def resume(self, state: TrialState) -> None:
        """Restart what was being timed, after the event was disabled for a while."""

    @abc.abstractmethod
    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """Look at one sample; fire (setting ``fired``) or not; say what to do."""

    def _fire(self, state: TrialState, **details: DetailValue) -> None:
        self.fired = True
        self.fired_time_s = state.trial_time_s
        self.details = dict(details)
