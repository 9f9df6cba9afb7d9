"""One client, two servo backends: mujoco_sim and moteus_servos speak the same interface.

The same client code runs against the simulator (pick_lift) and the hardware node on the
transport double (the real moteus library underneath): joint states by name, a position
command that moves a joint, full commands, and the same refusals counted the same way.
The targets hold on both: the lift is a slide (m) carrying 0.7 kg under gravity in
pick_lift, and a revolute servo (rad) without gravity on the double.
"""

import math

from common import wait_for
from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes.moteus_servos import MoteusServosNode
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
import moteus
import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

JOINTS = ['lift', 'finger_left', 'finger_right']
# pick_lift's carriage starts at 0.1 m and may sag to the table (about -0.01 m) before the
# first command; the double's servos start at 0 rad: both are far from the targets.
LIFT_TARGET = 0.2
FULL_TARGET = 0.15
# pick_lift's lift sags 3.4 mm under its weight at kp 2000 N/m; the double settles exactly.
TOLERANCE = 0.01
# Generous enough to hold the lift in pick_lift; the hardware node clamps it to its limit.
MAXIMUM_TORQUE = 50.0


def start_mujoco_sim(ros):
    return MujocoSimNode(context=ros.context, parameter_overrides=[
        Parameter('scenario', value='pick_lift'), Parameter('publish_rate', value=100.0),
        Parameter('command_timeout', value=0.0)])


def start_moteus_servos(ros):
    double = TransportDouble(DoubleConfig(ids=(1, 2, 3), firmware_timeout_s=0.0))
    return MoteusServosNode(transport=moteus.Transport(double), context=ros.context,
                            parameter_overrides=[
                                Parameter('joints', value=JOINTS),
                                Parameter('ids', value=[1, 2, 3]),
                                Parameter('command_timeout', value=0.0),
                                Parameter('reply_timeout', value=0.05)])


@pytest.fixture(params=[start_mujoco_sim, start_moteus_servos],
                ids=['mujoco_sim', 'moteus_servos'])
def servo_node(request, ros):
    """Start one backend's node in the harness."""
    return ros.add(request.param(ros))


def full_rows(lift_row):
    """Return servo_commands/full data: ``lift_row`` for the lift, the fingers left free."""
    free = [math.nan, 0.0, 0.0, 1.0, 1.0, MAXIMUM_TORQUE]
    return Float64MultiArray(data=list(lift_row) + free * 2)


def refusals(diagnostics):
    """Return the refusal counters of the latest status that has them, or None."""
    for array in reversed(diagnostics):
        for status in array.status:
            values = {kv.key: kv.value for kv in status.values}
            if 'refused_commands' in values:
                return {k: v for k, v in values.items() if k.startswith('refused')}
    return None


def test_one_client_drives_either_backend_and_is_refused_the_same_way(ros, servo_node):
    client = ros.client()
    states, diagnostics = [], []
    client.create_subscription(JointState, 'joint_states', states.append, 10)
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    commands = client.create_publisher(JointState, 'servo_commands', 10)
    full = client.create_publisher(Float64MultiArray, 'servo_commands/full', 10)

    def lift():
        return states[-1].position[0]

    assert wait_for(lambda: states and list(states[-1].name) == JOINTS), states[-1:]
    assert abs(lift() - LIFT_TARGET) > 5 * TOLERANCE, lift()

    # A position command for one joint moves that joint to its target.
    position = JointState(name=['lift'], position=[LIFT_TARGET])
    assert wait_for(lambda: (commands.publish(position),
                             abs(lift() - LIFT_TARGET) < TOLERANCE)[1], 20.0), lift()
    # A full command (every column of every joint) moves it on.
    good_full = full_rows([FULL_TARGET, 0.0, 0.0, 1.0, 1.0, MAXIMUM_TORQUE])
    assert wait_for(lambda: (full.publish(good_full),
                             abs(lift() - FULL_TARGET) < TOLERANCE)[1], 20.0), lift()
    assert wait_for(lambda: refusals(diagnostics)) == {'refused_commands': '0'}

    # Each kind of bad command; any of them, accepted, would send the lift to 0 (or, without
    # a position, let it go).
    for msg in (JointState(name=['elbow'], position=[0.0]),
                JointState(name=['lift', 'finger_left'], position=[0.0]),
                JointState(name=['lift'], position=[math.inf]),
                JointState(name=['lift'], velocity=[0.0])):
        commands.publish(msg)
    for msg in (full_rows([0.0, 0.0, 0.0, 2.0, 1.0, MAXIMUM_TORQUE]),
                full_rows([0.0, 0.0, 0.0, 1.0, 1.0, -1.0]),
                Float64MultiArray(data=[0.0] * 5)):
        full.publish(msg)
    expected = {'refused_commands': '7', 'refused.unknown_joint': '1',
                'refused.wrong_length': '2', 'refused.not_finite': '1',
                'refused.out_of_range': '2', 'refused.missing_position': '1'}
    assert wait_for(lambda: refusals(diagnostics) == expected, 30.0), refusals(diagnostics)

    # The node lives on, still publishing, and still holds the last good target.
    count = len(states)
    assert wait_for(lambda: len(states) > count + 20)
    assert abs(lift() - FULL_TARGET) < TOLERANCE, lift()
