"""Fuzzed servo commands against both servo nodes over real DDS.

Hypothesis draws batches of commands, each either valid or carrying exactly one defect of
a known kind (unknown joint, wrong length, a non-finite value, a scale or torque out of
range, a JointState without positions), interleaved on one topic and closed by a valid
marker command. Once the marker is in force, every earlier command of the batch has been
handled: the refusals counted must
be exactly the defects sent, and the valid ones must have passed. At the end the counts
are in ``/diagnostics`` by kind, a refusal is on ``/rosout`` with its reason, joint states
kept coming, and a valid command still moves the lift.

Valid commands with hostile stamps (0, the simulator's time, far back, far ahead) are
drawn too: the simulator refuses one stamped before the last it applied (``old_stamp``),
and such a refused one leaves the command in force; the rest apply as any other.
"""

from collections import Counter
import math

from common import fuzz_settings, NAMESPACE, Observer, publish_until, status_values, wait_for
from grasp_monitor.core.servo import COMMAND_LIMIT
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.moteus_servos import MoteusServosNode
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from grasp_monitor.nodes.tactile_sensor import TactileSensorNode
from hypothesis import example, given, strategies as st
import moteus
import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

JOINTS = ['lift', 'finger_left', 'finger_right']
DEPTH = 1000  # reliable, deep enough for a whole batch: nothing is dropped on the way
FUZZ = fuzz_settings(max_examples=25)
STAMPS = fuzz_settings(max_examples=10)

finite = st.floats(-1e6, 1e6, allow_nan=False)
huge = st.sampled_from([1e300, -1e300, 1.7e308])
not_finite = st.sampled_from([math.inf, -math.inf, math.nan])
unit = st.floats(0.0, 1.0)


@st.composite
def joint_states(draw):
    """Return (JointState, kind refused or None)."""
    names = draw(st.lists(st.sampled_from(JOINTS), min_size=1, max_size=3, unique=True))
    n = len(names)
    position = draw(st.lists(finite | huge | st.just(math.nan), min_size=n, max_size=n))
    velocity = draw(st.lists(finite, min_size=n, max_size=n) | st.just([]))
    effort = draw(st.lists(finite, min_size=n, max_size=n) | st.just([]))
    defect = draw(st.sampled_from([None, None, 'unknown_joint', 'repeated', 'no_name',
                                   'wrong_length', 'inf_position', 'not_finite',
                                   'missing_position']))
    if defect == 'unknown_joint':
        names[draw(st.integers(0, n - 1))] = draw(st.text(max_size=12).filter(
            lambda name: name not in JOINTS))
    elif defect == 'repeated':
        names.append(names[0])
        position.append(0.0)
        velocity, effort = [], []
        defect = 'unknown_joint'
    elif defect == 'no_name':
        names, position, velocity, effort = [], [], [], []
        defect = 'wrong_length'
    elif defect == 'wrong_length':
        position = draw(st.lists(finite, min_size=1, max_size=6).filter(lambda v: len(v) != n))
    elif defect == 'inf_position':
        position[draw(st.integers(0, n - 1))] = draw(st.sampled_from([math.inf, -math.inf]))
        defect = 'not_finite'
    elif defect == 'missing_position':
        position = []
    elif defect == 'not_finite':
        velocity = draw(st.lists(finite, min_size=n, max_size=n))
        velocity[draw(st.integers(0, n - 1))] = draw(not_finite)
    msg = JointState(name=names, position=position, velocity=velocity, effort=effort)
    return msg, defect or huge_value(position)


@st.composite
def full_commands(draw):
    """Return (Float64MultiArray, kind refused or None): rows of the six command fields."""
    rows = [[draw(finite | huge | st.just(math.nan)), draw(finite), draw(finite), draw(unit),
             draw(unit), draw(st.floats(0.0, 1e6) | huge.map(abs))] for _ in JOINTS]
    defect = draw(st.sampled_from([None, None, 'wrong_length', 'out_of_range', 'not_finite']))
    row, column = draw(st.integers(0, 2)), draw(st.integers(0, 5))
    if defect == 'out_of_range':
        column = draw(st.sampled_from([3, 4, 5]))
        rows[row][column] = draw(st.floats(-1e9, -1e-9) if column == 5 else
                                 st.floats(-1e9, -1e-9) | st.floats(1.0 + 1e-9, 1e9))
    elif defect == 'not_finite':
        rows[row][column] = draw(not_finite if column else st.sampled_from([math.inf,
                                                                            -math.inf]))
    data = [value for values in rows for value in values]
    if defect == 'wrong_length':
        data = data[:draw(st.integers(0, 17))] if draw(st.booleans()) else \
            data + draw(st.lists(finite, min_size=1, max_size=7))
    return Float64MultiArray(data=data), defect or huge_value(data)


def huge_value(values):
    """Label a command without other defects whose finite values are beyond COMMAND_LIMIT."""
    return 'out_of_range' if any(abs(value) > COMMAND_LIMIT for value in values) else None


batches = st.one_of(
    st.tuples(st.just('servo_commands'), st.lists(joint_states(), min_size=1, max_size=20)),
    st.tuples(st.just('servo_commands/full'), st.lists(full_commands(), min_size=1,
                                                       max_size=20)))


# One of each defect per topic, sent first: every kind is covered whatever Hypothesis draws.
EVERY_JOINT_STATE_DEFECT = [
    (JointState(name=['elbow'], position=[0.1]), 'unknown_joint'),
    (JointState(name=['lift', 'finger_left'], position=[0.1]), 'wrong_length'),
    (JointState(name=['lift'], position=[0.1], velocity=[math.nan]), 'not_finite'),
    (JointState(name=['lift'], position=[1e300]), 'out_of_range'),
    (JointState(name=['lift'], velocity=[0.1]), 'missing_position'),
]
EVERY_FULL_COMMAND_DEFECT = [
    (Float64MultiArray(data=[0.0] * 17), 'wrong_length'),
    (Float64MultiArray(data=[0.0, 0.0, 0.0, 1.5, 1.0, 1.0] * 3), 'out_of_range'),
    (Float64MultiArray(data=[math.inf, 0.0, 0.0, 1.0, 1.0, 1.0] * 3), 'not_finite'),
    (Float64MultiArray(data=[0.0, 0.0, 0.0, 1.0, 1.0, 2e10] * 3), 'out_of_range'),
]


def start_mujoco_sim(ros):
    sim = ros.add(MujocoSimNode(context=ros.context, parameter_overrides=[
        Parameter('publish_rate', value=100.0), Parameter('command_timeout', value=0.0),
        Parameter('qos.depth', value=DEPTH)]))
    # the tactile sensor's host: its clouds must keep coming through the fuzz
    ros.add(TactileSensorNode(runner=sim.runner, context=ros.context, parameter_overrides=[
        Parameter('publish_rate', value=10.0)]))
    return sim, lambda: sim.sim.servos.received


def start_moteus_servos(ros):
    double = TransportDouble(DoubleConfig(ids=(1, 2, 3), firmware_timeout_s=0.0))
    node = ros.add(MoteusServosNode(
        transport=moteus.Transport(double), context=ros.context, parameter_overrides=[
            Parameter('joints', value=JOINTS), Parameter('ids', value=[1, 2, 3]),
            Parameter('command_timeout', value=0.0), Parameter('reply_timeout', value=0.05),
            Parameter('qos.depth', value=DEPTH)]))
    return node, lambda: node.servos.command


@pytest.mark.parametrize('start', [start_mujoco_sim, start_moteus_servos],
                         ids=['mujoco_sim', 'moteus_servos'])
def test_fuzzed_commands_are_refused_by_kind_and_valid_ones_pass(ros, start):
    node, in_force = start(ros)
    name = node.get_name()
    observer = Observer(ros)
    client = ros.client()
    states, clouds = [], []
    client.create_subscription(JointState, 'joint_states', states.append, 10)
    client.create_subscription(PointCloud2, 'tactile/finger_left', clouds.append, 10)
    publishers = {'servo_commands': client.create_publisher(JointState, 'servo_commands',
                                                            DEPTH),
                  'servo_commands/full': client.create_publisher(
                      Float64MultiArray, 'servo_commands/full', DEPTH)}
    expected = Counter()
    markers = iter(range(1, 10**6))

    def marker_command(topic):
        """Return a valid command that its lift position (or maximum torque) names."""
        value = 0.5 + 1e-6 * next(markers)
        if topic == 'servo_commands':
            return JointState(name=['lift'], position=[value]), \
                lambda command: command.position[0] == value
        return Float64MultiArray(data=[math.nan, 0.0, 0.0, 1.0, 1.0, value] * 3), \
            lambda command: command.maximum_torque[0] == value

    def settle(topic):
        marker, arrived = marker_command(topic)
        return publish_until(lambda: publishers[topic].publish(marker),
                             lambda: in_force() is not None and arrived(in_force()))

    for topic in publishers:  # both ends matched before the fuzz
        assert settle(topic), topic
    node.refused.clear()

    @FUZZ
    @given(batch=batches)
    @example(batch=('servo_commands', EVERY_JOINT_STATE_DEFECT))
    @example(batch=('servo_commands/full', EVERY_FULL_COMMAND_DEFECT))
    def send(batch):
        topic, messages = batch
        for msg, defect in messages:
            publishers[topic].publish(msg)
            if defect:
                expected[defect] += 1
        assert settle(topic)
        assert wait_for(lambda: node.refused == expected, 5.0), (node.refused, expected)

    count, clouds_before = len(states), len(clouds)
    send()
    assert sum(expected.values()) > 20 and set(expected) == {
        'unknown_joint', 'wrong_length', 'not_finite', 'out_of_range', 'missing_position'}
    assert wait_for(lambda: len(states) > count + 10)  # joint states kept coming
    if name == 'mujoco_sim':
        assert wait_for(lambda: len(clouds) > clouds_before + 5)  # so did tactile clouds

    def counted(status):
        values = status_values(status)
        return all(values.get(f'refused.{kind}') == str(n) for kind, n in expected.items())

    status = observer.status(f'{NAMESPACE}/{name}: simulation' if name == 'mujoco_sim'
                             else f'{name}: loop', counted)
    assert status is not None, expected
    assert status_values(status)['refused_commands'] == str(sum(expected.values()))
    assert observer.logged(name, 'refused servo command: ')
    if name == 'mujoco_sim':  # fuzzed forces may have thrown the carriage far away
        reset = client.create_client(Trigger, 'mujoco_sim/reset')
        assert ros.call(reset, Trigger.Request()).success
    # a valid command still moves the lift (m in the simulator, rad on the double)
    lift = JointState(name=['lift'], position=[0.2], velocity=[0.0], effort=[0.0])
    full = Float64MultiArray(data=[math.nan, 0.0, 0.0, 1.0, 1.0, 50.0] * 3)
    full.data[0] = 0.2
    publishers['servo_commands/full'].publish(full)
    assert publish_until(lambda: publishers['servo_commands'].publish(lift),
                         lambda: abs(states[-1].position[0] - 0.2) < 0.01, 30.0), \
        states[-1].position


#: A hostile stamp: (kind, offset from the node's time, s).
hostile_stamps = st.one_of(
    st.tuples(st.just('zero'), st.just(0.0)), st.tuples(st.just('now'), st.just(0.0)),
    st.tuples(st.just('past'), st.floats(-100.0, -0.01)),
    st.tuples(st.just('far_future'), st.floats(1.0, 1e6)))


@pytest.mark.parametrize('start', [start_mujoco_sim, start_moteus_servos],
                         ids=['mujoco_sim', 'moteus_servos'])
def test_valid_commands_with_hostile_stamps_are_refused_only_when_older(ros, start):
    node, in_force = start(ros)
    client = ros.client()
    publisher = client.create_publisher(JointState, 'servo_commands', DEPTH)
    markers = iter(range(1, 10**6))

    def settle():
        value = 0.1 + 1e-6 * next(markers)  # unstamped: never older than anything
        return publish_until(lambda: publisher.publish(JointState(name=['lift'],
                                                                  position=[value])),
                             lambda: in_force() is not None and in_force().position[0] == value)

    assert settle()
    node.refused.clear()
    simulated = node.get_name() == 'mujoco_sim'
    expected = Counter()

    @STAMPS
    @example(commands=[(('now', 0.0), 0.05), (('past', -1.0), 0.25), (('far_future', 1e6), 0.1),
                       (('past', -1.0), 0.15), (('zero', 0.0), 0.2)])
    @given(commands=st.lists(st.tuples(hostile_stamps, st.floats(0.0, 0.3)), min_size=1,
                             max_size=8))
    def send(commands):
        # the simulator's model: refused when stamped (> 0) before the last stamped one
        # applied on its time line; a stamp past its time leaves that line
        now_s = node.sim.time_s if simulated else \
            client.get_clock().now().nanoseconds * 1e-9
        last_s = node.lockstep.command_stamp_s if simulated else -math.inf
        applied = None
        for (kind, offset_s), position in commands:
            stamp_s = 0.0 if kind == 'zero' else max(now_s + offset_s, 1e-3)
            msg = JointState(name=['lift'], position=[position])
            msg.header.stamp = conversions.time_to_msg(stamp_s)
            publisher.publish(msg)
            on_timeline = last_s <= now_s + 1e-3
            if simulated and 0.0 < stamp_s < last_s - 1e-3 and on_timeline:
                expected['old_stamp'] += 1
                continue
            applied = position
            if stamp_s > 0.0:
                last_s = max(last_s, stamp_s) if on_timeline else stamp_s
        assert wait_for(lambda: node.refused == expected, 5.0), (node.refused, expected)
        if applied is not None:  # a refused command after it left it in force
            assert wait_for(lambda: in_force().position[0] == applied, 5.0), \
                (in_force().position[0], applied)
        assert settle()
        assert node.refused == expected

    send()
    assert expected['old_stamp'] > 0 if simulated else not expected
    if simulated:  # no stamp stopped its time
        time_s = node.sim.time_s
        assert wait_for(lambda: node.sim.time_s > time_s + 0.5, 20.0)
