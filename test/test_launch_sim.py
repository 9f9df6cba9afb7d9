"""launch/sim.launch.py through launch_testing: the pick_lift graph comes up and stops cleanly.

Skipped, with the reason, where launch_testing is not importable or grasp_monitor is
not installed in an ament prefix (see launch_support).
"""

import unittest

import launch_support as support  # skips this module where launch_testing is missing
import launch_testing
import launch_testing.asserts
import pytest

CONFIG = support.event_log_in_temp(support.CONFIG / 'pick_lift.yaml')
NODES = ('mujoco_sim', 'tactile_sensor', 'grasp_monitor', 'grasp_metrics', 'grasp_controller')


@pytest.mark.launch_test
@pytest.mark.skipif(bool(support.SKIP), reason=support.SKIP)
def generate_test_description():
    """Launch pick_lift with this tree's launch file and parameter file."""
    return support.description('sim.launch.py', scenario='pick_lift', config=CONFIG)


class TestSimGraph(unittest.TestCase):
    """Tests run while the graph is up."""

    def test_every_node_shows_exactly_its_declared_topics_and_services(self):
        support.assert_nodes_up({name: CONFIG for name in NODES}, use_sim_time=True)

    def test_a_trial_starts_through_the_monitor(self):
        support.assert_trial_starts()


@launch_testing.post_shutdown_test()
class TestSimShutdown(unittest.TestCase):
    """Tests run once launch has stopped every process."""

    def test_every_process_exits_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)
        self.assertEqual(len(support.exit_codes(proc_info)), 4)  # the controller too
