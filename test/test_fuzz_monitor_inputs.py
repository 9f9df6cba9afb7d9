"""Fuzzed ground truth, joint states and event records against the monitor and the metrics.

``ground_truth/object`` (nav_msgs/Odometry) reaches both nodes, ``joint_states`` the
monitor, ``grasp_monitor/events`` (DiagnosticStatus records) the metrics. Each message is
valid or carries one defect of a known kind; a valid marker closes each batch, and once
each node has read it the refusals it counted must be exactly the defects it was sent.
Valid readings with hostile stamps (0, far back, far ahead, a little out of order) are
slipped into a held trial's own streams: its events and criteria stay those of the
undisturbed trial, and every stray stamp is counted (``refused_stamps``).
"""

from collections import Counter
import math
import time

from common import (
    fuzz_settings, NAMESPACE, Observer, publish_until, ScriptedHand, start_monitor_and_metrics,
    status_values, wait_for)
from diagnostic_msgs.msg import DiagnosticStatus, KeyValue
from grasp_monitor.core.monitor import Command, EventRecord, RECORD_KINDS
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.grasp_metrics import GraspMetricsNode
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.qos import EVENTS_QOS
from hypothesis import example, given, strategies as st
from nav_msgs.msg import Odometry
import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

DEPTH = 1000
FUZZ = fuzz_settings(max_examples=30)
TRIALS = fuzz_settings(max_examples=5)  # a held trial each: a few seconds apiece
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


#: A hostile stamp: (kind, offset from the stream's time, s); 0 is stamped 0 itself.
hostile_stamps = st.one_of(
    st.tuples(st.just('zero'), st.just(0.0)),
    st.tuples(st.just('past'), st.floats(-100.0, -0.2)),
    st.tuples(st.just('far_future'), st.floats(1.0, 1e6)),
    # later than a sample, less than time_back_s: a late reading, placed by its stamp
    st.tuples(st.just('out_of_order'), st.floats(-0.04, -0.015)))


@st.composite
def hostile_readings(draw):
    """Return (topic, hostile stamp, values): a valid reading of the hand's streams.

    A stray stamp carries any values (were it taken, the trial would change); a reading
    only out of order carries the hand's own, being one it could have sent late.
    """
    topic = draw(st.sampled_from(['ground_truth/object', 'joint_states']))
    kind, offset_s = draw(hostile_stamps)
    values = draw(st.lists(finite, min_size=3, max_size=3))
    return topic, (kind, offset_s), [0.0] * 3 if kind == 'out_of_order' else values


def hostile_msg(topic, stamp_s, values):
    """Return a valid reading of ``topic`` stamped ``stamp_s`` carrying ``values``."""
    if topic == 'joint_states':
        msg = JointState(name=['finger_left', 'finger_right'], position=values[:2],
                         velocity=values[1:], effort=[0.0, 0.0])
    else:
        msg = Odometry(child_frame_id='object')
        msg.pose.pose.position.x, msg.pose.pose.position.y, msg.pose.pose.position.z = values
        msg.twist.twist.linear.x = values[0]
        msg.pose.pose.orientation.w = 1.0
    msg.header.stamp = conversions.time_to_msg(stamp_s)
    return msg


def test_valid_readings_with_hostile_stamps_change_no_event_and_no_criterion(ros, tmp_path):
    # a generous sample age (a loaded machine pauses the monitor) and no force test to end
    # the trial: it ends when stopped
    monitor = ros.add(GraspMonitorNode(context=ros.context, parameter_overrides=[
        Parameter(k, value=v) for k, v in {
            'simulator': '', 'event_log': str(tmp_path / 'events.jsonl'),
            'max_sample_age': 0.5, 'force_test_time': 60.0}.items()]))
    metrics = ros.add(GraspMetricsNode(context=ros.context))
    observer = Observer(ros)
    client = ros.client()
    hand = ScriptedHand(client)
    hand.pad_force_n.update(finger_left=1.0, finger_right=1.0)  # held: contact, then grasp
    events = []
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)
    start = client.create_client(Trigger, 'grasp_monitor/start')
    stop = client.create_client(Trigger, 'grasp_monitor/stop')
    publishers = {'ground_truth/object': hand.bodies['object'], 'joint_states': hand.joints}
    grids = {'grasp_monitor': monitor.inputs.grid, 'grasp_metrics': metrics.feed.grid}
    readers = {'ground_truth/object': ('grasp_monitor', 'grasp_metrics'),
               'joint_states': ('grasp_monitor',)}
    time.sleep(0.5)  # the hand's readings are in

    def trial(readings):
        """Run one held trial with ``readings`` slipped in after the grasp; return its record."""
        first = len(events)
        assert ros.call(start, Trigger.Request()).success
        assert wait_for(lambda: 'grasp' in [e.name for e in events[first:]], 10.0)
        for topic, (kind, offset_s), values in readings:
            now_s = client.get_clock().now().nanoseconds * 1e-9
            publishers[topic].publish(hostile_msg(
                topic, 0.0 if kind == 'zero' else now_s + offset_s, values))
            time.sleep(0.05)  # the hand's next readings go on from where it was
        time.sleep(0.3)
        assert ros.call(stop, Trigger.Request()).success
        assert wait_for(lambda: 'trial_end' in [e.name for e in events[first:]], 10.0)
        mine = [e for e in events[first:] if e.name not in ('sensor_stale', 'sensor_fresh')]
        trial_id = status_values(mine[0])['trial']
        status = observer.status(': criteria',
                                 lambda s: status_values(s).get('trial') == trial_id)
        assert status is not None, trial_id
        criteria = status_values(status)
        for key in ('trial', 'samples', 'first_sample_s', 'last_sample_s'):  # its own times
            del criteria[key]
        # the hand runs on the wall clock: the grasp comes a sample sooner or later
        criteria['total'] = float(criteria['total']) - float(criteria.pop('grasp_time'))
        criteria = {key: pytest.approx(float(value), rel=1e-9) if key not in (
            'basis', 'end_reason') else value for key, value in criteria.items()}
        return [(e.name, status_values(e).get('reason')) for e in mine], criteria

    undisturbed = trial([])
    assert [kind for kind, _ in undisturbed[0]] == ['trial_start', 'contact', 'grasp',
                                                    'trial_end'], undisturbed
    assert undisturbed[1]['end_reason'] == 'stop service'

    @TRIALS
    @example(readings=[('ground_truth/object', ('zero', 0.0), [0.5, 0.5, 0.5]),
                       ('ground_truth/object', ('past', -1.0), [0.5, 0.5, 0.5]),
                       ('joint_states', ('far_future', 1e6), [1.0, 1.0, 1.0]),
                       ('joint_states', ('out_of_order', -0.02), [0.0] * 3)])
    @given(readings=st.lists(hostile_readings(), min_size=1, max_size=6))
    def disturbed(readings):
        before = {name: (grid.stamps.refused, grid.ignored, grid.timelines)
                  for name, grid in grids.items()}
        assert trial(readings) == undisturbed
        strays = Counter(name for topic, (kind, _), _ in readings if kind != 'out_of_order'
                         for name in readers[topic])
        for name, grid in grids.items():
            refused, ignored, timelines = before[name]
            assert (grid.stamps.refused, grid.ignored, grid.timelines) == (
                refused + strays[name], ignored, timelines), (name, readings)

    disturbed()
    for name, suffix in (('grasp_monitor', ': monitor'), ('grasp_metrics', ': energy')):
        refused = str(grids[name].stamps.refused)
        assert int(refused) > 0
        assert observer.status(f'{NAMESPACE}/{name}{suffix}', lambda s: status_values(
            s).get('refused_stamps') == refused), (name, refused)
        assert observer.logged(name, 'off its stream')
