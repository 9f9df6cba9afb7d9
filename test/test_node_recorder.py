"""The recorder and replay nodes over real rclpy: raw CDR in, a standard ros2 MCAP out, back."""

import os
import signal
import subprocess
import sys
import time

from builtin_interfaces.msg import Time
from common import NAMESPACE, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.qos import EVENTS_QOS
from grasp_monitor.nodes.recorder import RecorderNode
from grasp_monitor.nodes.replay import ReplayNode
from grasp_monitor.recording import McapRecordingWriter, message_counts, read_topics, TopicQos
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import String
from std_srvs.srv import SetBool


def decoded(path):
    """Every message of ``path`` by topic, decoded by mcap_ros2 (not by our reader)."""
    by_topic = {}
    with open(path, 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, channel, message, ros_msg in reader.iter_decoded_messages():
            by_topic.setdefault(channel.topic, []).append((message, ros_msg))
    return by_topic


def test_records_reliable_best_effort_and_transient_local_topics_as_sent(ros, tmp_path):
    client = ros.client()
    # published before the recorder exists: only transient local brings it in
    events_pub = client.create_publisher(DiagnosticStatus, 'grasp_monitor/events', EVENTS_QOS)
    events_pub.publish(DiagnosticStatus(name='trial_start', values=[
        KeyValue(key='trial', value='1')]))
    joints_pub = client.create_publisher(JointState, 'joint_states', 10)
    cloud_pub = client.create_publisher(
        PointCloud2, 'tactile/left', QoSProfile(depth=10,
                                                reliability=ReliabilityPolicy.BEST_EFFORT))
    path = tmp_path / 'trial.mcap'
    recorder = ros.add(RecorderNode(context=ros.context, parameter_overrides=[
        Parameter('path', value=str(path)),
        Parameter('exclude', value=['/rosout', '/parameter_events'])]))
    assert wait_for(lambda: joints_pub.get_subscription_count() and
                    cloud_pub.get_subscription_count() and
                    recorder.writer.counts[f'{NAMESPACE}/grasp_monitor/events'] == 1)
    diagnostics = []
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    sent = []
    for i in range(50):
        msg = JointState(name=['lift'], position=[0.001 * i], velocity=[float(i)],
                         effort=[-1.0])
        msg.header.stamp = conversions.time_to_msg(10.0 + 0.002 * i)
        joints_pub.publish(msg)
        sent.append(msg)
    cloud = conversions.tactile_cloud_to_msg([[0.0, 0.0, 0.01]], [[0.0, 0.0, 2.5]], 'left',
                                             10.5)
    assert wait_for(lambda: cloud_pub.publish(cloud) or
                    recorder.writer.counts[f'{NAMESPACE}/tactile/left'] > 0)
    assert wait_for(lambda: recorder.writer.counts[f'{NAMESPACE}/joint_states'] == 50)

    def counted():
        for array in diagnostics:
            for status in array.status:
                values = {kv.key: kv.value for kv in status.values}
                if status.name.endswith('recorder: recording') and \
                        values.get(f'messages.{NAMESPACE}/joint_states') == '50':
                    return values
        return None

    assert wait_for(counted, timeout_s=5.0)
    recorder.close()

    counts = message_counts(path)
    assert counts[f'{NAMESPACE}/joint_states'] == 50
    assert counts[f'{NAMESPACE}/grasp_monitor/events'] == 1
    assert '/rosout' not in counts and '/parameter_events' not in counts
    topics = read_topics(path)
    assert topics[f'{NAMESPACE}/grasp_monitor/events'].qos == TopicQos(True, True, 1000)
    assert topics[f'{NAMESPACE}/tactile/left'].qos.reliable is False
    by_topic = decoded(path)
    joints = by_topic[f'{NAMESPACE}/joint_states']
    assert [list(m.position) for _, m in joints] == [list(s.position) for s in sent]
    assert [m.header.stamp.nanosec for _, m in joints] == [s.header.stamp.nanosec for s in sent]
    # publish time is the header stamp; log time the (later) receive time
    assert [r.publish_time for r, _ in joints] == \
        [10_000_000_000 + 2_000_000 * i for i in range(50)]
    assert all(r.log_time > 10**18 for r, _ in joints)
    (_, event), = by_topic[f'{NAMESPACE}/grasp_monitor/events']
    assert event.name == 'trial_start' and event.values[0].value == '1'
    _, first_cloud = by_topic[f'{NAMESPACE}/tactile/left'][0]
    assert [f.name for f in first_cloud.fields] == ['x', 'y', 'z', 'fx', 'fy', 'fz']
    assert bytes(first_cloud.data) == bytes(cloud.data)


def test_under_a_clock_every_record_is_on_simulated_time(ros, tmp_path):
    client = ros.client()
    # transient local, sent before any clock: held until the first one, then written at it
    events_pub = client.create_publisher(DiagnosticStatus, 'grasp_monitor/events', EVENTS_QOS)
    events_pub.publish(DiagnosticStatus(name='trial_start'))
    clock_pub = client.create_publisher(Clock, 'clock', 10)
    joints_pub = client.create_publisher(JointState, 'joint_states', 10)
    notes_pub = client.create_publisher(String, 'notes', 10)  # no stamp of its own
    wall_pub = client.create_publisher(JointState, 'wall_joints', 10)  # stamps on wall time
    path = tmp_path / 'sim.mcap'
    recorder = ros.add(RecorderNode(
        context=ros.context, cli_args=['--ros-args', '-r', f'/clock:={NAMESPACE}/clock'],
        parameter_overrides=[Parameter('path', value=str(path)),
                             Parameter('use_sim_time', value=True),
                             Parameter('exclude', value=['/rosout', '/parameter_events'])]))
    diagnostics = []
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)

    def recorder_status():
        for array in reversed(diagnostics):
            for status in array.status:
                if status.name.endswith('recorder: recording'):
                    return {kv.key: kv.value for kv in status.values}
        return None

    # no clock yet: the event is held, and the wall-time diagnostics say so
    # (discovery, the transient-local replay and a 1 Hz status: slow on a busy machine)
    assert wait_for(lambda: (recorder_status() or {}).get('held_before_clock') == '1',
                    timeout_s=30.0)
    assert recorder.writer.counts[f'{NAMESPACE}/grasp_monitor/events'] == 0
    assert wait_for(lambda: joints_pub.get_subscription_count() and
                    notes_pub.get_subscription_count() and
                    wall_pub.get_subscription_count() and
                    clock_pub.get_subscription_count() >= 2)  # the recorder and its clock
    first_ns, period_ns, ticks = 5_000_000_000, 2_000_000, 100
    # the clock's subscription is best effort: send the first tick until it is in
    assert wait_for(lambda: clock_pub.publish(Clock(clock=Time(sec=5)))
                    or not recorder.output.held)
    for k in range(ticks):
        stamp = Time(sec=5, nanosec=k * period_ns)
        clock_pub.publish(Clock(clock=stamp))
        joint = JointState(name=['lift'], position=[0.001 * k])
        joint.header.stamp = stamp
        joints_pub.publish(joint)
        if k % 10 == 0:
            notes_pub.publish(String(data=f'tick {k}'))
        if k == 50:
            wall = JointState()
            wall.header.stamp = client.get_clock().now().to_msg()
            wall_pub.publish(wall)
        time.sleep(0.002)
    last_ns = first_ns + (ticks - 1) * period_ns
    assert wait_for(lambda: recorder.writer.counts[f'{NAMESPACE}/joint_states'] == ticks and
                    recorder.writer.counts[f'{NAMESPACE}/notes'] == ticks // 10 and
                    recorder.writer.counts[f'{NAMESPACE}/wall_joints'] == 1)
    recorder.close()

    by_topic = decoded(path)
    assert set(by_topic) == {'/diagnostics'} | {f'{NAMESPACE}/{t}' for t in (
        'clock', 'joint_states', 'notes', 'wall_joints', 'grasp_monitor/events')}
    records = [record for messages in by_topic.values() for record, _ in messages]
    # one axis: every log and publish time within the clocks sent, none on the wall clock
    assert all(first_ns <= r.log_time <= last_ns for r in records)
    assert all(first_ns <= r.publish_time <= last_ns for r in records)
    joints = by_topic[f'{NAMESPACE}/joint_states']
    assert [r.publish_time for r, _ in joints] == \
        [first_ns + k * period_ns for k in range(ticks)]
    (event, _), = by_topic[f'{NAMESPACE}/grasp_monitor/events']
    assert event.log_time == event.publish_time  # held, then written at the first clock
    notes = by_topic[f'{NAMESPACE}/notes']
    assert [r.publish_time for r, _ in notes] == [r.log_time for r, _ in notes]
    assert [m.data for _, m in notes] == [f'tick {k}' for k in range(0, ticks, 10)]


def recorder_process(tmp_path, path, *params):
    args = [sys.executable, '-m', 'grasp_monitor.nodes.recorder', '--ros-args',
            '-r', f'__ns:={NAMESPACE}', '-p', f'path:={path}', *params]
    return subprocess.Popen(args, env=os.environ.copy(), stdout=subprocess.DEVNULL,
                            stderr=(tmp_path / 'recorder.log').open('w'))


def test_sigterm_finishes_the_file_and_exits_0(ros, tmp_path):
    path = tmp_path / 'signalled.mcap'
    process = recorder_process(tmp_path, path, '-p', 'topics:=[joint_states]')
    try:
        client = ros.client()
        joints_pub = client.create_publisher(JointState, 'joint_states', 10)
        assert wait_for(lambda: joints_pub.get_subscription_count() > 0, timeout_s=30.0)
        diagnostics = []
        client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
        for i in range(20):
            joints_pub.publish(JointState(name=['lift'], position=[float(i)]))

        def recorded():
            return any(kv.key == f'messages.{NAMESPACE}/joint_states' and kv.value == '20'
                       for array in diagnostics for status in array.status
                       for kv in status.values)

        assert wait_for(recorded, timeout_s=10.0)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert message_counts(path) == {f'{NAMESPACE}/joint_states': 20}
    assert list(read_topics(path)) == [f'{NAMESPACE}/joint_states']  # it has a summary


def test_an_unwritable_path_stops_the_recorder_with_status_2(tmp_path):
    process = recorder_process(tmp_path, tmp_path / 'missing' / 'x.mcap')
    assert process.wait(timeout=30) == 2
    assert 'cannot write the recording' in (tmp_path / 'recorder.log').read_text()


def test_replay_plays_a_recording_with_a_clock_made_from_its_log_times(ros, tmp_path):
    path = tmp_path / 'hardware.mcap'
    writer = McapRecordingWriter(path)
    writer.add_topic(f'{NAMESPACE}/joint_states', 'sensor_msgs/msg/JointState')
    writer.add_topic(f'{NAMESPACE}/grasp_monitor/events', 'diagnostic_msgs/msg/DiagnosticStatus',
                     TopicQos(reliable=True, transient_local=True, depth=100))
    sent = []
    for i in range(20):  # a robot's clock: no /clock recorded
        msg = JointState(name=['lift'], position=[0.01 * i])
        msg.header.stamp = conversions.time_to_msg(1.7e9 + 0.01 * i)
        writer.write(f'{NAMESPACE}/joint_states', serialize_message(msg),
                     1_700_000_000_000_000_000 + 10_000_000 * i)
        sent.append(msg)
    writer.write(f'{NAMESPACE}/grasp_monitor/events',
                 serialize_message(DiagnosticStatus(name='grasp')),
                 1_700_000_000_000_000_000)
    writer.close()
    replay = ros.add(ReplayNode(context=ros.context, parameter_overrides=[
        Parameter('path', value=str(path)), Parameter('start_paused', value=True),
        Parameter('clock_rate', value=50.0)]))
    client = ros.client()
    joints, clocks, diagnostics = [], [], []
    client.create_subscription(JointState, 'joint_states', joints.append, 100)
    client.create_subscription(Clock, '/clock', clocks.append, 100)
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    pause = client.create_client(SetBool, 'replay/pause')
    assert wait_for(lambda: replay.pubs[f'{NAMESPACE}/joint_states'].get_subscription_count())
    assert ros.call(pause, SetBool.Request(data=False)).message == 'playing'

    def done():
        return any(status.message == 'done' for array in diagnostics
                   for status in array.status if status.name.endswith('replay'))

    assert wait_for(done, timeout_s=20.0)
    assert wait_for(lambda: len(joints) == len(sent) and len(clocks) == 10)
    assert [m.position[0] for m in joints] == [m.position[0] for m in sent]
    assert [m.header.stamp for m in joints] == [m.header.stamp for m in sent]
    # the clock: every 20 ms of log time, from the first message on
    assert [c.clock.sec * 10**9 + c.clock.nanosec - 1_700_000_000 * 10**9 for c in clocks] == \
        [20_000_000 * i for i in range(10)]
    # published transient local: a subscriber that comes after still gets the event
    events = []
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)
    assert wait_for(lambda: [e.name for e in events] == ['grasp'])
