"""Runtime parameter sets over the real services: refused, naming parameter, node and range.

A valid set of a writable parameter goes through; a refused one changes nothing.
"""

from common import NAMESPACE
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.replay import ReplayNode
from grasp_monitor.recording import McapRecordingWriter
import pytest
from rcl_interfaces.srv import GetParameters, SetParameters, SetParametersAtomically
from rclpy.parameter import Parameter
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState

# (node, parameter, value as the user gives it, reason; '' = accepted)
CASES = [
    ('grasp_monitor', 'rate', 5.0,
     "parameter 'rate' of node 'grasp_monitor' is read-only: set it at start (a parameter "
     'file, or --ros-args -p rate:=...) to a double in [1, 2000]'),
    ('grasp_monitor', 'grasp_min_bodies', 1,
     "parameter 'grasp_min_bodies' of node 'grasp_monitor' is read-only: set it at start (a "
     'parameter file, or --ros-args -p grasp_min_bodies:=...) to an integer in [1, 64]'),
    ('grasp_monitor', 'events', ['contact'],
     "parameter 'events' of node 'grasp_monitor' is read-only: set it at start (a parameter "
     'file, or --ros-args -p events:=...) to a string array'),
    ('grasp_monitor', 'rat', 5.0, "node 'grasp_monitor' has no parameter 'rat'; did you mean "
     "'rate'?"),
    ('grasp_monitor', 'nosuch', 1, "node 'grasp_monitor' has no parameter 'nosuch'"),
    ('replay', 'pause_at', 'abc',
     "parameter 'pause_at' of node 'replay' must be a double in [-1, 1e+09], got string 'abc'"),
    ('replay', 'pause_at', 5,
     "parameter 'pause_at' of node 'replay' must be a double in [-1, 1e+09], got integer 5"),
    ('replay', 'pause_at', 2e9,
     "parameter 'pause_at' of node 'replay' must be a double in [-1, 1e+09], got 2000000000.0"),
    ('replay', 'pause_at', float('nan'),
     "parameter 'pause_at' of node 'replay' must be a double in [-1, 1e+09], got nan"),
    ('replay', 'pause_at', 1.5, ''),
    # the clock every stamp is read on: switching it mid-trial sends time years away
    ('grasp_monitor', 'use_sim_time', True,
     "parameter 'use_sim_time' of node 'grasp_monitor' is fixed once the node runs: "
     'switching between simulated and wall time sends the clock years forward or back '
     'mid-trial (the monitor would end the trial as a reset and every late verdict would be '
     'lost); set it at start (a parameter file, or --ros-args -p use_sim_time:=...)'),
    ('replay', 'use_sim_time', True,
     "parameter 'use_sim_time' of node 'replay' is fixed once the node runs: switching "
     'between simulated and wall time sends the clock years forward or back mid-trial (the '
     'monitor would end the trial as a reset and every late verdict would be lost); set it '
     'at start (a parameter file, or --ros-args -p use_sim_time:=...)'),
    ('grasp_monitor', 'use_sim_time', False, ''),  # no change: nothing to refuse
]


@pytest.fixture
def nodes(ros, tmp_path):
    path = tmp_path / 'short.mcap'
    writer = McapRecordingWriter(path)
    writer.add_topic(f'{NAMESPACE}/joint_states', 'sensor_msgs/msg/JointState')
    writer.write(f'{NAMESPACE}/joint_states', serialize_message(JointState(name=['lift'])),
                 1_700_000_000_000_000_000)
    writer.close()
    ros.add(GraspMonitorNode(context=ros.context, parameter_overrides=[
        Parameter('simulator', value=''),
        Parameter('event_log', value=str(tmp_path / 'events.jsonl'))]))
    ros.add(ReplayNode(context=ros.context, parameter_overrides=[
        Parameter('path', value=str(path)), Parameter('start_paused', value=True)]))
    return ros


@pytest.mark.parametrize('atomically', [False, True])
def test_every_refused_set_names_the_parameter_the_node_and_what_is_valid(nodes, atomically):
    ros = nodes
    client = ros.client()
    for node, name, value, reason in CASES:
        parameter = Parameter(name, value=value).to_parameter_msg()
        if atomically:
            service = client.create_client(SetParametersAtomically,
                                           f'{node}/set_parameters_atomically')
            result = ros.call(service, SetParametersAtomically.Request(
                parameters=[parameter])).result
        else:
            service = client.create_client(SetParameters, f'{node}/set_parameters')
            result = ros.call(service, SetParameters.Request(parameters=[parameter])).results[0]
        assert (result.successful, result.reason) == (not reason, reason), (node, name, value)
    # the accepted set took effect; the refused ones changed nothing
    get = client.create_client(GetParameters, 'replay/get_parameters')
    assert ros.call(get, GetParameters.Request(names=['pause_at'])).values[0].double_value == 1.5
    get = client.create_client(GetParameters, 'grasp_monitor/get_parameters')
    assert ros.call(get, GetParameters.Request(names=['rate'])).values[0].double_value == 100.0
    assert ros.call(get, GetParameters.Request(names=['use_sim_time'])).values[0].bool_value \
        is False
