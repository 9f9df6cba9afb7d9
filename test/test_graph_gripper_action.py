"""MoveIt's side of a pick over DDS: GripperCommand goals to gripper_action, judged by the monitor.

mujoco_sim (pick_lift), grasp_monitor and gripper_action run as separate processes, as
users run them; the test is the arm (it moves the lift on servo_commands) and MoveIt
(it sends GripperCommand goals and reads the results).
"""

import os
import subprocess

from action_msgs.msg import GoalStatus
from common import interrupt_all, NAMESPACE, publish_until, wait_for
from control_msgs.action import GripperCommand
from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.nodes import node_command
from grasp_monitor.nodes.qos import EVENTS_QOS, LATCHED_QOS
import pytest
from rclpy.action import ActionClient
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

pytestmark = pytest.mark.graph


@pytest.fixture
def graph(ros, tmp_path):
    """Start the three processes; yield the test's node, its action client and what it saw."""
    log = (tmp_path / 'nodes.log').open('w')
    no_pull = {'force_test.amplitude_per_kg': 0.0, 'force_test.offset': 0.0}
    processes = [subprocess.Popen(node_command(name, params, namespace=NAMESPACE),
                                  env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT)
                 for name, params in (
                     ('mujoco_sim', {'real_time_factor': 1.0, 'publish_rate': 500.0,
                                     'command_timeout': 0.0, **no_pull}),
                     ('grasp_monitor', {'use_sim_time': 'true', 'max_sample_age': 0.5,
                                        'event_log': tmp_path / 'events.jsonl'}),
                     ('gripper_action', {'use_sim_time': 'true'}))]
    node = ros.client('moveit')
    seen = {'events': [], 'holding': [], 'lift': None}
    node.create_subscription(DiagnosticStatus, 'grasp_monitor/events',
                             lambda msg: seen['events'].append(msg.name), EVENTS_QOS)
    node.create_subscription(Bool, 'grasp_monitor/holding',
                             lambda msg: seen['holding'].append(msg.data), LATCHED_QOS)

    def on_state(msg):
        seen['lift'] = msg.position[msg.name.index('lift')]
    node.create_subscription(JointState, 'joint_states', on_state, 10)
    client = ActionClient(node, GripperCommand, 'gripper_action/gripper_cmd')
    assert client.wait_for_server(timeout_sec=60.0)
    # Until the gripper has heard joint_states it rejects goals (the reason logged); a
    # goal to hold the fingers open, sent again until accepted, waits for that.
    assert wait_for(lambda: held_open(client), timeout_s=30.0, period_s=0.5)
    yield node, client, seen
    codes = interrupt_all(processes)
    log.close()
    text = (tmp_path / 'nodes.log').read_text()
    assert codes == [0] * len(processes) and 'Traceback' not in text, (codes, text[-3000:])


def held_open(client):
    """Send a goal to hold the fingers open; return whether it was accepted and reached."""
    goal = GripperCommand.Goal()
    sent = client.send_goal_async(goal)
    if not wait_for(sent.done) or not sent.result().accepted:
        return False
    finished = sent.result().get_result_async()
    return wait_for(finished.done) and finished.result().result.reached_goal


def move_lift(node, seen, height_m):
    """Hold the lift at ``height_m`` (the arm's part), until it is there."""
    publisher = node.create_publisher(JointState, 'servo_commands', 10)
    command = JointState(name=['lift'], position=[height_m], velocity=[0.0], effort=[9.0])
    assert publish_until(lambda: publisher.publish(command),
                         lambda: seen['lift'] is not None
                         and abs(seen['lift'] - height_m) < 0.002, timeout_s=30.0), seen['lift']


def close(client, position_m, max_effort_n, timeout_s=30.0):
    """Send a goal as MoveIt's GripperCommand controller handle does; return its ending."""
    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = position_m, max_effort_n
    sent = client.send_goal_async(goal)
    assert wait_for(sent.done, timeout_s) and sent.result().accepted
    finished = sent.result().get_result_async()
    assert wait_for(finished.done, timeout_s)
    return finished.result().status, finished.result().result


def test_close_on_nothing_reaches_the_goal_then_on_the_object_stalls_at_the_grasp(graph):
    node, client, seen = graph
    # above the object (the pads clear it by 6 cm): nothing to close on
    move_lift(node, seen, 0.1)
    status, result = close(client, 0.045, 10.0)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert (result.reached_goal, result.stalled) == (True, False)
    assert result.position == pytest.approx(0.045, abs=0.001)
    assert 'grasp' not in seen['events']
    status, result = close(client, 0.0, 0.0)  # open again: MoveIt's max_effort 0 default
    assert status == GoalStatus.STATUS_SUCCEEDED and result.reached_goal

    # the pads level with the object: the fingers close on it 3 cm in
    move_lift(node, seen, 0.0)
    status, result = close(client, 0.054, 10.0)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert (result.stalled, result.reached_goal) == (True, False), seen['events']
    assert seen['events'].index('contact') < seen['events'].index('grasp')
    assert result.position == pytest.approx(0.03, abs=0.003)  # the pads on a 5 cm box
    assert wait_for(lambda: seen['holding'][-1:] == [True])
    status, result = close(client, 0.0, 10.0)  # release
    assert status == GoalStatus.STATUS_SUCCEEDED and result.reached_goal
    assert wait_for(lambda: seen['holding'][-1:] == [False])
    assert 'trial_end' in seen['events']
