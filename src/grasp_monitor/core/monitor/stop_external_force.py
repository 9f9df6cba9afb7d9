"""The stop-external-force event: ends the force test after its duration."""

from __future__ import annotations

from grasp_monitor.core.monitor.event import check_positive, MonitorEvent
from grasp_monitor.core.monitor.records import Command
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.state import TIME_TOLERANCE_S, TrialState


class StopExternalForceEvent(MonitorEvent):
    """Stops the trial ``force_test_s`` of trial time after the grasp.

    It reads only the trial clock, so it is checked on stale samples too: the
    force test must end whatever the sensors say.

    Args:
        force_test_s: duration of the external force test, s (default 5).
    """

    name = 'stop_external_force'
    requires = ('grasp',)
    needs_fresh_data = False

    def __init__(self, force_test_s: float = 5.0) -> None:
        check_positive(force_test_s=force_test_s)
        self.force_test_s = float(force_test_s)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """STOP once ``t > t_grasp + force_test_s``."""
        grasp_s = state.fired.get('grasp')
        if grasp_s is None or state.trial_time_s <= grasp_s + self.force_test_s + TIME_TOLERANCE_S:
            return Command.CONTINUE
        self._fire(state, grasp_time_s=grasp_s, force_test_s=self.force_test_s)
        return Command.STOP
