"""``run_node``: how every node's process stops on a signal."""

import signal

from conftest import child_python
import pytest

# rclpy's own handler wakes the executor, then shuts the context down from its own thread;
# an executor that wakes in between finds the context up. run_node does without rclpy's
# handlers; the child turns them off anyway, so the context stays up after the signal
# every time: the node must stop all the same, in one thread. The timer keeps it busy.
CHILD = """
import sys
import rclpy
from rclpy.node import Node
from rclpy.signals import uninstall_signal_handlers
from grasp_monitor.nodes.process import run_node

def make():
    uninstall_signal_handlers()
    node = Node('stop_probe')
    node.create_timer(0.05, lambda: None)
    print('spinning', flush=True)
    return node

code = run_node(make, sys.argv[1:])
print('exit', code, flush=True)
"""


@pytest.mark.parametrize('signal_number', [signal.SIGINT, signal.SIGTERM],
                         ids=['SIGINT', 'SIGTERM'])
def test_a_signal_stops_the_node_while_its_context_is_still_up(signal_number):
    with child_python(CHILD) as child:
        assert child.stdout.readline() == 'spinning\n', child.stderr.read()
        child.send_signal(signal_number)
        stdout, stderr = child.communicate(timeout=20.0)
    assert child.returncode == 0 and stdout == 'exit 0\n', stderr
    assert 'Traceback' not in stderr
