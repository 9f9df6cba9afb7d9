"""The slip-out event: contact lost for too long."""

from __future__ import annotations

from grasp_monitor.core.monitor.event import check_positive, MonitorEvent
from grasp_monitor.core.monitor.records import Command
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.state import TIME_TOLERANCE_S, TrialState


class SlipOutEvent(MonitorEvent):
    """Stops the trial when contact was lost for longer than ``slip_time_s``.

    Counts only after a first contact; the timer runs on monitored time.

    Args:
        slip_time_s: rostok's ``ref_time``, s (default 1).
        count_palm: a contact of the palm alone counts as contact (false: only
            the other bodies').
    """

    name = 'slip_out'

    def __init__(self, slip_time_s: float = 1.0, count_palm: bool = False) -> None:
        check_positive(slip_time_s=slip_time_s)
        self.slip_time_s = float(slip_time_s)
        self.count_palm = bool(count_palm)
        super().__init__()

    def reset(self) -> None:
        """Forget the last contact too."""
        super().reset()
        self.last_contact_s: float | None = None

    def resume(self, state: TrialState) -> None:
        """Restart the window now if contact was seen (by it or the contact event).

        Contact was not watched while disabled, so the time without contact
        counts from the moment it is enabled again.
        """
        if self.last_contact_s is not None or 'contact' in state.fired:
            self.last_contact_s = state.monitored_time_s

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """Remember the last contact; STOP once ``t - last > slip_time_s``."""
        if sample.contact_count(self.count_palm) > 0:
            self.last_contact_s = state.monitored_time_s
            return Command.CONTINUE
        if self.last_contact_s is None:
            return Command.CONTINUE
        since_s = state.monitored_time_s - self.last_contact_s
        if since_s > self.slip_time_s + TIME_TOLERANCE_S:
            self._fire(state, last_contact_s=self.last_contact_s, since_contact_s=since_s,
                       slip_time_s=self.slip_time_s)
            return Command.STOP
        return Command.CONTINUE
