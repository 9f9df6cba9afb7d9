"""Fuzzed ground truth, joint states and event records against the monitor and the metrics.

``ground_truth/object`` (nav_msgs/Odometry) reaches both nodes, ``joint_states`` the
monitor, ``grasp_monitor/events`` (DiagnosticStatus records) the metrics. Each message is
valid or carries one defect of a known kind; a valid marker closes each batch, and once
each node has read it the refusals it counted must be exactly the defects it was sent.
"""

from collections import Counter
import math

from conftest import (
    fuzz_settings, NAMESPACE, Observer, publish_until, start_monitor_and_metrics, status_values,
    wait_for)
from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from grasp_monitor.core.monitor import Command, EventRecord, RECORD_KINDS
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.qos import EVENTS_QOS
from hypothesis import example, given, strategies as st
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState

DEPTH = 1000
FUZZ = fuzz_settings(max_examples=30)
finite = st.floats(-1e3, 1e3)
bad_value = st.sampled_from([math.nan, math.inf, -math.inf])
#: A valid reading stamped 2 ms: a marker stamped before it would only be a late reading.
EARLY = Odometry(child_frame_id='object')
EARLY.header.stamp = conversions.time_to_msg(0.002)
EARLY.pose.pose.orientation.w = 1.0


@st.composite
def odometry(draw):
    """Return (Odometry of the object, kind refused or None)."""
    msg = Odometry(child_frame_id='object')
    msg.header.stamp = conversions.time_to_msg(draw(st.floats(0.0, 1e4)))
    values = draw(st.lists(finite, min_size=6, max_size=6))
    pose, twist = msg.pose.pose, msg.twist.twist
    pose.position.x, pose.position.y, pose.position.z = values[:3]
    twist.angular.x, twist.angular.y, twist.angular.z = values[3:]
    twist.linear.x = draw(finite)
    axis = draw(st.sampled_from(['w', 'x', 'y', 'z']))
    pose.orientation.w = 0.0
    setattr(pose.orientation, axis, draw(st.sampled_from([1.0, -1.0])))
    defect = draw(st.sampled_from([None, None, 'not_finite', 'out_of_range']))
    if defect == 'not_finite':
        target = draw(st.sampled_from([pose.position, pose.orientation, twist.linear,
                                       twist.angular]))
        setattr(target, draw(st.sampled_from(['x', 'y', 'z'])), draw(bad_value))
    elif defect == 'out_of_range':
        setattr(pose.orientation, axis, draw(st.floats(0.0, 0.99) | st.floats(1.01, 1e6)))
    return msg, defect


@st.composite
def joint_states(draw):
    """Return (JointState of the fingers, kind refused or None)."""
    names = draw(st.lists(st.sampled_from(['finger_left', 'finger_right', 'lift']),
                          min_size=1, max_size=3, unique=True))
    velocity = draw(st.lists(finite, min_size=len(names), max_size=len(names)))
    defect = draw(st.sampled_from([None, None, 'wrong_length', 'not_finite']))
    if defect == 'wrong_length':
        velocity = draw(st.lists(finite, max_size=5).filter(lambda v: len(v) != len(names)))
    elif defect == 'not_finite':
        velocity[draw(st.integers(0, len(names) - 1))] = draw(bad_value)
    return JointState(name=names, velocity=velocity), defect


@st.composite
def event_records(draw):
    """Return (an event record of another trial, kind refused or None)."""
    record = EventRecord(draw(st.sampled_from([k for k in RECORD_KINDS if 'trial' not in k])),
                         draw(finite), 0.0, draw(st.integers(0, 100)), 10**6,
                         draw(st.sampled_from(list(Command))), {'body': 'finger_left'})
    values = record.as_strings()
    defect = draw(st.sampled_from([None, None, 'missing', 'garbled', 'kind']))
    key = draw(st.sampled_from(['type', 'time_s', 'trial_time_s', 'step', 'trial', 'command']))
    if defect == 'missing':
        del values[key]
    elif defect == 'garbled':
        values[key if key != 'type' else 'step'] = draw(st.sampled_from(['', 'x', '1.5e', '[]']))
    elif defect == 'kind':
        values['type'] = draw(st.text(max_size=10).filter(lambda k: k not in RECORD_KINDS))
    msg = DiagnosticStatus(name=values.get('type', ''),
                           values=[KeyValue(key=k, value=v) for k, v in values.items()])
    return msg, defect and 'invalid'


def test_fuzzed_inputs_are_refused_by_kind_by_the_monitor_and_the_metrics(ros, tmp_path):
    monitor, metrics = start_monitor_and_metrics(ros, tmp_path, DEPTH)
    observer = Observer(ros)
    client = ros.client()
    publishers = {'ground_truth/object': client.create_publisher(Odometry, 'ground_truth/object',
                                                                 DEPTH),
                  'joint_states': client.create_publisher(JointState, 'joint_states', DEPTH),
                  'grasp_monitor/events': client.create_publisher(
                      DiagnosticStatus, 'grasp_monitor/events', EVENTS_QOS)}
    expected = {'grasp_monitor': Counter(), 'grasp_metrics': Counter()}
    readers = {'ground_truth/object': ('grasp_monitor', 'grasp_metrics'),
               'joint_states': ('grasp_monitor',), 'grasp_monitor/events': ('grasp_metrics',)}
    nodes = {'grasp_monitor': monitor, 'grasp_metrics': metrics}
    markers = iter(range(1, 10**6))
    # A marker stamped before a reading sent, by less than the nodes' time_back_s, is a late
    # reading, never their latest: each takes the newest stamp sent so far.
    newest = Odometry().header

    def settle(topic):
        value = 0.001 * next(markers)
        if topic == 'ground_truth/object':
            marker = Odometry(child_frame_id='object')
            marker.header.stamp = newest.stamp
            marker.pose.pose.orientation.w = 1.0
            marker.twist.twist.linear.x = value

            def read():
                body = metrics.latest('object')
                return body is not None and math.isclose(
                    abs(body.linear_velocity_in_world).sum(), value) and math.isclose(
                    monitor.inputs.sample(0.0).object_speed_m_per_s, value)
        elif topic == 'joint_states':
            marker = JointState(name=['finger_left'], velocity=[value])

            def read():
                return math.isclose(monitor.inputs.sample(0.0).finger_speeds[0], value)
        else:
            trial = next(markers)
            marker = DiagnosticStatus(name='trial_start', values=[
                KeyValue(key=k, value=v) for k, v in EventRecord(
                    'trial_start', 0.0, 0.0, 0, trial).as_strings().items()])

            def read():
                return metrics.metrics.record is not None and \
                    metrics.metrics.record.trial_id == trial

        return publish_until(lambda: publishers[topic].publish(marker), read)

    for topic in publishers:
        assert settle(topic), topic

    @FUZZ
    @example(batch=('ground_truth/object', [(EARLY, None)]))
    @given(batch=st.one_of(
        st.tuples(st.just('ground_truth/object'), st.lists(odometry(), min_size=1,
                                                           max_size=20)),
        st.tuples(st.just('joint_states'), st.lists(joint_states(), min_size=1, max_size=20)),
        st.tuples(st.just('grasp_monitor/events'), st.lists(event_records(), min_size=1,
                                                            max_size=20))))
    def send(batch):
        topic, messages = batch
        for msg, defect in messages:
            publishers[topic].publish(msg)
            if topic == 'ground_truth/object':
                newest.stamp = max(newest.stamp, msg.header.stamp,
                                   key=lambda stamp: (stamp.sec, stamp.nanosec))
            for name in readers[topic]:
                if defect:
                    expected[name][defect] += 1
        assert settle(topic)
        for name, node in nodes.items():
            assert wait_for(lambda: node.refused == expected[name], 5.0), \
                (name, node.refused, expected[name])

    send()
    assert set(expected['grasp_monitor']) <= {'not_finite', 'out_of_range', 'wrong_length'}
    assert set(expected['grasp_metrics']) <= {'not_finite', 'out_of_range', 'invalid'}
    assert sum(expected['grasp_monitor'].values()) + sum(expected['grasp_metrics'].values()) > 20
    for name, suffix in (('grasp_monitor', ': monitor'), ('grasp_metrics', ': energy')):
        counts = expected[name]

        def counted(status):
            values = status_values(status)
            return values.get('refused_inputs') == str(sum(counts.values())) and all(
                values.get(f'refused.{kind}') == str(n) for kind, n in counts.items())

        assert observer.status(f'{NAMESPACE}/{name}{suffix}', counted), (name, counts)
        assert observer.logged(name, 'dropped ')
