"""The contact event and its timeout."""

from __future__ import annotations

from grasp_monitor.core.monitor.event import check_positive, MonitorEvent
from grasp_monitor.core.monitor.records import Command
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.state import TIME_TOLERANCE_S, TrialState
import numpy as np


def _body_list(mask: np.ndarray, names: tuple[str, ...]) -> str:
    indices = np.flatnonzero(mask)
    if names:
        return ','.join(names[i] for i in indices)
    return ','.join(str(i) for i in indices)


class ContactEvent(MonitorEvent):
    """Fires when the object touches the robot; never stops the trial.

    Args:
        count_palm: a contact of the palm counts (false: only the other bodies').
        body_names: names of the B robot bodies, for the record ('' list: indices).
    """

    name = 'contact'

    def __init__(self, count_palm: bool = True, body_names: tuple[str, ...] = ()) -> None:
        self.count_palm = bool(count_palm)
        self.body_names = tuple(body_names)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """Fire on the first sample with a contact (of a body other than the palm, if so set)."""
        if sample.contact_count(self.count_palm) >= 1:
            self._fire(state, bodies=_body_list(sample.in_contact, self.body_names),
                       non_palm_in_contact=sample.non_palm_in_contact)
        return Command.CONTINUE


class ContactTimeoutEvent(MonitorEvent):
    """Stops the trial when no contact happened within ``timeout_s`` of monitored time.

    Args:
        timeout_s: rostok's ``ref_time``, s (default 2).
    """

    name = 'contact_timeout'
    requires = ('contact',)

    def __init__(self, timeout_s: float = 2.0) -> None:
        check_positive(timeout_s=timeout_s)
        self.timeout_s = float(timeout_s)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """STOP once ``t > timeout_s`` with no contact so far."""
        if 'contact' in state.fired:
            return Command.CONTINUE
        if state.monitored_time_s > self.timeout_s + TIME_TOLERANCE_S:
            self._fire(state, timeout_s=self.timeout_s)
            return Command.STOP
        return Command.CONTINUE
