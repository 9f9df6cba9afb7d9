"""The gripper_action node over real rclpy: GripperCommand goals, as MoveIt sends them.

Fingers that follow their position targets (blocked by an object where the test puts
one) answer the node's servo_commands with joint_states; the test speaks for the
monitor on grasp_monitor/events.
"""

from action_msgs.msg import GoalStatus
from common import Observer, publish_until, wait_for
from control_msgs.action import GripperCommand, ParallelGripperCommand
from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.nodes.gripper_action import GripperActionNode
from grasp_monitor.nodes.qos import EVENTS_QOS
import numpy as np
import pytest
from rclpy.action import ActionClient
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState


class Fingers:
    """Two fingers that go to their targets at once, stopped at ``block_m`` if set."""

    def __init__(self, node):
        self.node = node
        self.position = np.zeros(2)
        self.block_m = None
        self.commands = []
        node.create_subscription(JointState, 'servo_commands', self.on_command, 10)
        self.publisher = node.create_publisher(JointState, 'joint_states', 10)
        node.create_timer(0.01, self.publish)

    def on_command(self, msg):
        self.commands.append(msg)
        target = np.asarray(msg.position)
        self.position = target if self.block_m is None else np.minimum(target, self.block_m)

    def publish(self):
        self.publisher.publish(JointState(
            name=['lift', 'finger_left', 'finger_right'], position=[0.0, *self.position],
            velocity=[0.0] * 3, effort=[0.0, 5.0, 5.0]))


@pytest.fixture
def gripper(ros):
    """Start the node, the fingers, a client and the monitor's voice."""
    node = ros.add(GripperActionNode(context=ros.context, parameter_overrides=[
        Parameter('trials', value=False), Parameter('timeout', value=3.0)]))
    client_node = ros.client('moveit')
    fingers = Fingers(client_node)
    events = client_node.create_publisher(DiagnosticStatus, 'grasp_monitor/events', EVENTS_QOS)
    client = ActionClient(client_node, GripperCommand, 'gripper_action/gripper_cmd')
    assert client.wait_for_server(timeout_sec=10.0)
    assert wait_for(lambda: node.fingers is not None)
    return node, client, fingers, events


def send(client, position, max_effort):
    """Send a goal; return its handle once the server answered."""
    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = position, max_effort
    sent = client.send_goal_async(goal)
    assert wait_for(sent.done)
    return sent.result()


def result_of(handle, timeout_s=10.0):
    """Wait for a goal's result; return (status, result)."""
    finished = handle.get_result_async()
    assert wait_for(finished.done, timeout_s)
    return finished.result().status, finished.result().result


def test_closing_on_an_object_ends_stalled_at_the_monitors_grasp(gripper):
    node, client, fingers, events = gripper
    fingers.block_m = 0.03
    handle = send(client, 0.054, 6.0)
    assert handle.accepted
    assert wait_for(lambda: (fingers.position == 0.03).all())
    # blocked, no verdict yet: the goal runs on, the fingers pushing 6 N through the lead
    # once the target has passed the object, it leads the fingers (as the node last heard
    # them, one joint_states behind the double) by 6 N / 300 N/m
    assert wait_for(lambda: fingers.commands[-1].position[0] > 0.0499
                    and (node.fingers[0] == 0.03).all())
    assert wait_for(lambda: np.allclose(
        300.0 * (np.asarray(fingers.commands[-1].position) - 0.03), 6.0, rtol=1e-6))
    assert not handle.get_result_async().done()
    events.publish(DiagnosticStatus(name='grasp'))
    status, result = result_of(handle)
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert (result.stalled, result.reached_goal) == (True, False)
    assert result.position == pytest.approx(0.03) and result.effort == 5.0
    # opening releases it
    fingers.block_m = None
    status, result = result_of(send(client, 0.0, 0.0))
    assert (status, result.reached_goal, result.stalled) == (GoalStatus.STATUS_SUCCEEDED,
                                                             True, False)


def test_closing_on_nothing_reaches_the_goal_with_feedback_on_the_way(gripper):
    node, client, fingers, events = gripper
    feedback = []
    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = 0.04, 10.0
    sent = client.send_goal_async(goal, feedback_callback=lambda f: feedback.append(
        f.feedback.position))
    assert wait_for(sent.done) and sent.result().accepted
    status, result = result_of(sent.result())
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert (result.stalled, result.reached_goal) == (False, True)
    assert result.position == pytest.approx(0.04, abs=0.001)
    assert len(feedback) >= 10 and feedback == sorted(feedback)  # 0.8 s at 0.05 m/s, 100 Hz


BAD_GOALS = [
    (float('nan'), 10.0, 'position nan m is not finite'),
    (0.07, 10.0, 'position 0.07 m is beyond the stroke [-0.01, 0.054] m'),
    (0.03, -2.0, 'max_effort -2 N is outside [0, 20] N'),
]


def test_bad_goals_are_rejected_with_their_reasons_logged(ros, gripper):
    observer = Observer(ros)
    node, client, fingers, events = gripper
    for position, effort, reason in BAD_GOALS:
        # sent again until the observer's /rosout has met the node's: a log before is lost
        refusals = []
        assert publish_until(lambda: refusals.append(send(client, position, effort).accepted),
                             lambda: observer.logged('gripper_action', reason, timeout_s=0.0)), \
            reason
        assert refusals and not any(refusals)
    assert fingers.commands == []  # nothing moved


def test_a_cancel_holds_the_fingers_where_they_are(gripper):
    node, client, fingers, events = gripper
    handle = send(client, 0.05, 10.0)
    assert wait_for(lambda: fingers.position[0] > 0.01)
    cancel = handle.cancel_goal_async()
    assert wait_for(cancel.done)
    status, result = result_of(handle)
    assert status == GoalStatus.STATUS_CANCELED and not result.reached_goal
    held = fingers.position.copy()
    assert wait_for(lambda: len(fingers.commands) > 20)
    assert np.abs(fingers.position - held).max() < 0.002  # one tick's travel at most


def test_a_new_goal_preempts_the_running_one(gripper):
    node, client, fingers, events = gripper
    first = send(client, 0.05, 10.0)
    assert wait_for(lambda: fingers.position[0] > 0.005)
    second = send(client, 0.0, 10.0)
    status, result = result_of(first)
    assert status == GoalStatus.STATUS_ABORTED and not result.reached_goal
    status, result = result_of(second)
    assert status == GoalStatus.STATUS_SUCCEEDED and result.reached_goal


def test_a_goal_with_no_verdict_times_out_aborted(gripper):
    node, client, fingers, events = gripper
    fingers.block_m = 0.02  # blocked, but the monitor never says grasp
    status, result = result_of(send(client, 0.054, 10.0))
    assert status == GoalStatus.STATUS_ABORTED
    assert (result.stalled, result.reached_goal) == (False, False)
    assert result.position == pytest.approx(0.02)


def test_the_parallel_gripper_action_names_the_fingers_and_returns_their_state(ros, gripper):
    node, client, fingers, events = gripper
    parallel = ActionClient(ros.client('parallel'), ParallelGripperCommand,
                            'gripper_action/parallel_gripper_cmd')
    assert parallel.wait_for_server(timeout_sec=10.0)
    fingers.block_m = 0.03
    goal = ParallelGripperCommand.Goal()
    goal.command = JointState(name=['finger_left'], position=[0.054], effort=[6.0],
                              velocity=[0.1])
    sent = parallel.send_goal_async(goal)
    assert wait_for(sent.done) and sent.result().accepted
    # the node has heard the blocked fingers before the monitor's grasp comes
    assert wait_for(lambda: (node.fingers[0] == 0.03).all())
    events.publish(DiagnosticStatus(name='grasp'))
    finished = sent.result().get_result_async()
    assert wait_for(finished.done)
    result = finished.result().result
    assert finished.result().status == GoalStatus.STATUS_SUCCEEDED
    assert (result.stalled, result.reached_goal) == (True, False)
    assert result.state.name == ['finger_left', 'finger_right']
    assert result.state.position == pytest.approx([0.03, 0.03])
    # fingers that do not move together, or are not this gripper's, are refused
    for command in (JointState(name=['finger_left', 'finger_right'], position=[0.01, 0.02]),
                    JointState(name=['thumb'], position=[0.01])):
        goal.command = command
        sent = parallel.send_goal_async(goal)
        assert wait_for(sent.done) and not sent.result().accepted
