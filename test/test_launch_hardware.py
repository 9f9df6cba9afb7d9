"""launch/hardware.launch.py on a machine without a CAN-FD adapter: the launch fails, says why.

moteus_servos finds no fdcanusb and exits with status 2 and the reason; it is required,
so the launch stops the monitor and the metrics (which exit cleanly) and ends with a
non-zero status naming it, as ``ros2 launch`` would. Skipped, with the reason, where
launch is not importable or grasp_monitor is not installed in an ament prefix (see
launch_support).
"""

import re

import launch_support as support  # skips this module where launch_testing is missing
import pytest

CONFIG = support.event_log_in_temp(support.CONFIG / 'hardware.yaml')
SERVOS = str(support.CONFIG / 'moteus_servos.example.yaml')


@pytest.mark.skipif(bool(support.SKIP), reason=support.SKIP)
def test_a_required_node_that_dies_ends_the_launch_with_its_name_and_status():
    result = support.run_launch('hardware.launch.py', config=CONFIG, servos_config=SERVOS)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert re.search(r'moteus_servos-\d+ exited with status 2; it is required', output), \
        output[-3000:]
    assert re.search(r'\[moteus_servos-\d+\] error: ', output), output[-3000:]
    for node in ('grasp_monitor', 'grasp_metrics'):
        assert re.search(rf'\[INFO\] \[{node}-\d+\]: process has finished cleanly', output), \
            (node, output[-3000:])
