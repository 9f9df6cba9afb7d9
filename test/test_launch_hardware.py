"""launch/hardware.launch.py through launch_testing, on a machine without a CAN-FD adapter.

moteus_servos finds no fdcanusb and stops with exit status 2 and the reason; the
monitor and the metrics come up regardless and exit cleanly. Skipped, with the
reason, where launch_testing is not importable or grasp_monitor is not installed in
an ament prefix (see launch_support).
"""

import unittest

import launch_support as support  # skips this module where launch_testing is missing
import launch_testing
import pytest

CONFIG = support.event_log_in_temp(support.CONFIG / 'hardware.yaml')
SERVOS = str(support.CONFIG / 'moteus_servos.example.yaml')


@pytest.mark.launch_test
@pytest.mark.skipif(bool(support.SKIP), reason=support.SKIP)
def generate_test_description():
    """Launch the hardware graph with this tree's parameter files."""
    return support.description('hardware.launch.py', config=CONFIG, servos_config=SERVOS)


class TestHardwareGraph(unittest.TestCase):
    """Tests run while the graph is up."""

    def test_monitor_and_metrics_show_exactly_their_declared_topics_and_services(self):
        support.assert_nodes_up({'grasp_monitor': CONFIG, 'grasp_metrics': CONFIG},
                                use_sim_time=False)

    def test_a_trial_starts_through_the_monitor(self):
        support.assert_trial_starts()


@launch_testing.post_shutdown_test()
class TestHardwareShutdown(unittest.TestCase):
    """Tests run once launch has stopped every process."""

    def test_servos_fail_with_the_reason_and_the_rest_exit_cleanly(
            self, proc_info, proc_output):
        codes = support.exit_codes(proc_info)
        servos = [name for name in codes if name.startswith('moteus_servos')]
        self.assertEqual([codes.pop(name) for name in servos], [2])
        self.assertEqual(sorted(codes.values()), [0, 0])
        output = ''.join(event.text.decode() for event in proc_output
                         if event.process_name in servos)
        self.assertIn('error:', output)
