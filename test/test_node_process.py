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


# The traps of rclpy 7.1's EventsExecutor, each seen once: timers that never ran under
# spin(), a timer made after add_node that never fired, a subscription callback taking the
# message info that failed ("null argument to internal routine"), a process deaf to
# SIGTERM. The child meets each, on either executor, and says what it saw.
TRAPS = """
import sys
from rclpy.node import Node
from std_msgs.msg import String
from grasp_monitor.nodes.inputs import subscribe
from grasp_monitor.nodes.process import run_node

def make():
    node = Node('trap_probe')
    node.declare_parameter('executor', sys.argv[1])
    seen = set()

    def say(what):
        if what not in seen:
            seen.add(what)
            print(what, flush=True)

    publisher = node.create_publisher(String, 'trap', 10)
    subscribe(node, String, 'trap', lambda msg: say('message ' + msg.data), 10)

    def tick():
        say('timer')
        publisher.publish(String(data='in'))
        if 'late' not in seen:
            seen.add('late')
            node.create_timer(0.05, lambda: say('late timer'))  # made while spinning
    node.create_timer(0.05, tick)
    return node

code = run_node(make, sys.argv[2:])
print('exit', code, flush=True)
"""


@pytest.mark.parametrize('executor', ['events', 'single_threaded'])
def test_each_executor_runs_timers_made_late_messages_with_info_and_stops_on_sigterm(
        executor):
    with child_python(TRAPS, executor) as child:
        seen = {child.stdout.readline().strip() for _ in range(3)}
        child.send_signal(signal.SIGTERM)
        stdout, stderr = child.communicate(timeout=20.0)
    assert seen == {'timer', 'late timer', 'message in'}, stderr
    assert child.returncode == 0 and stdout.endswith('exit 0\n'), stderr
    assert 'Traceback' not in stderr
