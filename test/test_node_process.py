"""``run_node``: how every node's process stops on a signal."""

import os
import signal

from common import child_python, wait_for
from diagnostic_msgs.msg import DiagnosticArray
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
from grasp_monitor.nodes.subscription import subscribe
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


# A stand-in for `ros2 launch`: starts real nodes as children (as launch does, from its own
# process), says their pids, then waits. SIGTERM kills it at once, as it did real launch 3.4.
LAUNCH = """
import subprocess
import sys
import time
from grasp_monitor.nodes import node_command

children = [subprocess.Popen(node_command(name, {'exit_with_parent': sys.argv[1],
                                                  'use_sim_time': 'false'}),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name in ('grasp_monitor', 'grasp_metrics')]
print(' '.join(str(child.pid) for child in children), flush=True)
time.sleep(600)
"""


def alive(pid):
    """Whether process ``pid`` still runs (a zombie or a reaped pid does not)."""
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


@pytest.mark.parametrize('exit_with_parent', [True, False])
def test_nodes_exit_when_the_launch_that_started_them_is_sigtermed(ros, tmp_path, monkeypatch,
                                                                   exit_with_parent):
    monkeypatch.chdir(tmp_path)  # the monitor's event log
    client = ros.client()
    seen = set()
    client.create_subscription(
        DiagnosticArray, '/diagnostics',
        lambda msg: seen.update(s.name.split(':')[0] for s in msg.status), 10)
    with child_python(LAUNCH, str(exit_with_parent).lower()) as launch:
        pids = [int(pid) for pid in launch.stdout.readline().split()]
        try:
            assert len(pids) == 2, launch.stderr.read()
            # both nodes spin (their diagnostics come): the launch then dies at once
            assert wait_for(lambda: {'/grasp_monitor', '/grasp_metrics'} <= seen,
                            timeout_s=60.0), seen
            launch.send_signal(signal.SIGTERM)
            launch.wait(timeout=5.0)
            assert launch.returncode == -signal.SIGTERM
            gone = wait_for(lambda: not any(alive(pid) for pid in pids), timeout_s=2.0)
            assert gone == exit_with_parent, [pid for pid in pids if alive(pid)]
        finally:
            for pid in pids:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
