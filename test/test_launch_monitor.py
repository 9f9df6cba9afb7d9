"""launch/monitor.launch.py through launch_testing: monitor and metrics up, then clean exits.

Twice: as two processes, and composed (``composed:=true``: one process, monitor_metrics).

Skipped, with the reason, where launch_testing is not importable or grasp_monitor is
not installed in an ament prefix (see launch_support).
"""

import unittest

import launch_support as support  # skips this module where launch_testing is missing
import launch_testing
import launch_testing.asserts
import pytest

CONFIG = support.event_log_in_temp(support.CONFIG / 'monitor.yaml')


@pytest.mark.launch_test
@pytest.mark.skipif(bool(support.SKIP), reason=support.SKIP)
@launch_testing.parametrize('composed', ['false', 'true'])
def generate_test_description(composed):
    """Launch the monitor and the metrics with this tree's parameter file."""
    return support.description('monitor.launch.py', config=CONFIG, composed=composed), {
        'processes': 1 if composed == 'true' else 2}


class TestMonitorGraph(unittest.TestCase):
    """Tests run while the graph is up."""

    def test_both_nodes_show_exactly_their_declared_topics_and_services(self):
        support.assert_nodes_up({'grasp_monitor': CONFIG, 'grasp_metrics': CONFIG},
                                use_sim_time=False)

    def test_a_trial_started_before_any_input_opens_when_the_inputs_come(self):
        support.assert_trial_waits_for_inputs_then_starts()


@launch_testing.post_shutdown_test()
class TestMonitorShutdown(unittest.TestCase):
    """Tests run once launch has stopped every process."""

    def test_every_process_exits_cleanly(self, proc_info, processes):
        launch_testing.asserts.assertExitCodes(proc_info)
        self.assertEqual(len(support.exit_codes(proc_info)), processes)
