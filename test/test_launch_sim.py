"""launch/sim.launch.py through launch_testing: the pick_lift graph, recorded, up and down.

With record:=true the recorder runs beside the graph; after the clean shutdown its
MCAP file holds the simulator's streams and the monitor's events.

Skipped, with the reason, where launch_testing is not importable or grasp_monitor is
not installed in an ament prefix (see launch_support).
"""

from pathlib import Path
import tempfile
import unittest

from grasp_monitor.recording import message_counts
import launch_support as support  # skips this module where launch_testing is missing
import launch_testing
import launch_testing.asserts
import pytest

CONFIG = support.event_log_in_temp(support.CONFIG / 'pick_lift.yaml')
RECORDING = Path(tempfile.mkdtemp(prefix='grasp_monitor_launch_')) / 'trial.mcap'
RECORDED = ('/clock', '/joint_states', '/tactile/finger_left', '/ground_truth/object',
            '/grasp_monitor/events')
NODES = ('mujoco_sim', 'tactile_sensor', 'grasp_monitor', 'grasp_metrics', 'grasp_controller')


@pytest.mark.launch_test
@pytest.mark.skipif(bool(support.SKIP), reason=support.SKIP)
def generate_test_description():
    """Launch pick_lift with this tree's launch file and parameter file."""
    return support.description('sim.launch.py', scenario='pick_lift', config=CONFIG,
                               record='true', record_path=str(RECORDING))


class TestSimGraph(unittest.TestCase):
    """Tests run while the graph is up."""

    def test_every_node_shows_exactly_its_declared_topics_and_services(self):
        support.assert_nodes_up({name: CONFIG for name in NODES}, use_sim_time=True)
        support.assert_nodes_up({'recorder': CONFIG}, use_sim_time=True)

    def test_the_documented_service_sequence_gives_the_offline_trial(self):
        support.assert_documented_trial_is_the_offline_trial(CONFIG)

    def test_the_recorder_receives_the_streams_and_the_events(self):
        support.assert_recorded(RECORDED)


@launch_testing.post_shutdown_test()
class TestSimShutdown(unittest.TestCase):
    """Tests run once launch has stopped every process."""

    def test_every_process_exits_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)
        # the simulator (hosting the tactile sensor and the controller), the monitor, the
        # metrics and the recorder
        self.assertEqual(len(support.exit_codes(proc_info)), 4)

    def test_the_recording_holds_the_streams_and_the_trial(self):
        counts = message_counts(RECORDING)  # the finished file, read back
        for topic in RECORDED:
            self.assertGreater(counts.get(topic, 0), 0, (topic, counts))
