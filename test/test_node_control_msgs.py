"""control_msgs's gripper actions as ROS users have them: standard type names and hashes.

Without a ROS installation, set-up generates control_msgs from interfaces/control_msgs (the
upstream definitions, verbatim); MoveIt and ``ros2 action`` match an action server only when
the type names and type hashes are those of the real package.
"""

import json
import pathlib

from common import wait_for
import control_msgs
from control_msgs.action import GripperCommand, ParallelGripperCommand
import pytest
from rclpy.action import ActionClient, ActionServer

# Computed by rosidl_generator_type_description (Jazzy, 4.6.6) from ros-controls/control_msgs
# at f901df2662f22a39a06aa04a85a34602c47e3cc0 (5.8.0, branch jazzy), the package's own files.
UPSTREAM_TYPE_HASHES = {
    'control_msgs/action/GripperCommand':
        'RIHS01_e17c0e644eccf14bea84a0a93e0977182872c2eb7873ca6694900059b46dbc84',
    'control_msgs/action/GripperCommand_FeedbackMessage':
        'RIHS01_392ff03fcd872f9dc2405cbeb2897fcf011ad9998458b6aa85c603b8a49e431d',
    'control_msgs/msg/GripperCommand':
        'RIHS01_57eb8f326c9889ca8bb34ead82cc94cc09bf6bc5c3b6c09546dca3a00b589890',
    'control_msgs/action/ParallelGripperCommand':
        'RIHS01_adfd3c1ebe8abc38ebcc0e454b6423d291d4010dd5697d14eca5b9be4726ae18',
    'control_msgs/action/ParallelGripperCommand_FeedbackMessage':
        'RIHS01_c61f4cf99d06c5a3e24bed17c2910bdf66a30d89461e2ac7b5fd538a34b022cc',
}


def installed_type_hashes(interface):
    """Return every type hash the installed package's ``interface`` description lists."""
    # <prefix>/lib/pythonX.Y/site-packages/control_msgs/__init__.py: its share is beside lib.
    prefix = pathlib.Path(control_msgs.__file__).resolve().parents[4]
    with open(prefix / 'share' / 'control_msgs' / (interface + '.json')) as description:
        return {entry['type_name']: entry['hash_string']
                for entry in json.load(description)['type_hashes']}


@pytest.mark.parametrize('interface', ['action/GripperCommand', 'action/ParallelGripperCommand',
                                       'msg/GripperCommand'])
def test_installed_descriptions_carry_the_upstream_hashes(interface):
    installed = installed_type_hashes(interface)
    expected = {name: value for name, value in UPSTREAM_TYPE_HASHES.items() if name in installed}
    assert f'control_msgs/{interface}' in expected
    assert {name: installed[name] for name in expected} == expected


@pytest.mark.parametrize('action_type, name', [
    (GripperCommand, 'GripperCommand'), (ParallelGripperCommand, 'ParallelGripperCommand')])
def test_a_goal_crosses_dds_with_the_standard_type_name_and_hash(ros, action_type, name):
    server_node = ros.client('gripper_server')
    client_node = ros.client('gripper_client')
    received = []

    def execute(goal_handle):
        received.append(goal_handle.request)
        goal_handle.publish_feedback(action_type.Feedback())
        goal_handle.succeed()
        result = action_type.Result()
        result.reached_goal = True
        return result

    ActionServer(server_node, action_type, name, execute)
    client = ActionClient(client_node, action_type, name)
    assert client.wait_for_server(timeout_sec=10.0)
    goal = action_type.Goal()
    if action_type is GripperCommand:
        goal.command.position, goal.command.max_effort = 0.02, 15.0
    else:
        goal.command.name, goal.command.position = ['finger_left'], [0.02]
    sent = client.send_goal_async(goal)
    assert wait_for(sent.done)
    finished = sent.result().get_result_async()
    assert wait_for(finished.done)
    assert finished.result().result.reached_goal
    assert received == [goal]

    topic = server_node.get_namespace() + f'/{name}/_action/feedback'
    (endpoint,) = wait_for(lambda: client_node.get_publishers_info_by_topic(topic))
    assert endpoint.topic_type == f'control_msgs/action/{name}_FeedbackMessage'
    assert str(endpoint.topic_type_hash) == UPSTREAM_TYPE_HASHES[endpoint.topic_type]
