"""The grasp_monitor node over real rclpy: scripted tactile and ground truth in, events out."""

import json
import time

from common import ScriptedHand, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.core.monitor import EventLog
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.qos import EVENTS_QOS
import pytest
from rclpy.parameter import Parameter
from std_srvs.srv import SetBool, Trigger


def start_monitor(ros, tmp_path, **overrides):
    # a generous sample age and force test: a loaded machine pauses the monitor (stale),
    # and the force test must not end the trial before the slip the test waits for; the
    # scripted hand's clouds are exact and may touch at the trial's start: no tare
    params = {'simulator': '', 'slip_out': 0.3, 'contact_timeout': 1.0, 'tare_time': 0.0,
              'max_sample_age': 0.5, 'force_test_time': 60.0,
              'event_log': str(tmp_path / 'events.jsonl')} | overrides
    return ros.add(GraspMonitorNode(
        context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()]))


def start_trial(ros):
    """Start a scripted hand and a trial; return the client, the hand and the events heard."""
    client = ros.client()
    hand = ScriptedHand(client)
    events = []
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)
    assert ros.call(client.create_client(Trigger, 'grasp_monitor/start'),
                    Trigger.Request()).success
    return client, hand, events


def kinds(events):
    return [e.name for e in events if e.name not in ('sensor_stale', 'sensor_fresh')]


def test_contact_grasp_then_slip_out_and_the_stop_summary(ros, tmp_path):
    start_monitor(ros, tmp_path)
    client = ros.client()
    hand = ScriptedHand(client)
    events = []
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)
    start = client.create_client(Trigger, 'grasp_monitor/start')
    stop = client.create_client(Trigger, 'grasp_monitor/stop')
    assert ros.call(start, Trigger.Request()).message == '1'
    hand.pad_force_n.update(finger_left=1.0, finger_right=1.0)
    assert wait_for(lambda: 'grasp' in kinds(events)), kinds(events)
    assert kinds(events)[:3] == ['trial_start', 'contact', 'grasp']
    grasp = next(e for e in events if e.name == 'grasp')
    assert grasp.message == 'ACTIVATE'
    hand.pad_force_n.update(finger_left=0.0, finger_right=0.0)  # the object is gone
    assert wait_for(lambda: 'slip_out' in kinds(events), timeout_s=10.0), kinds(events)
    values = {kv.key: kv.value for kv in events[-2].values + events[-1].values}
    assert values['trial'] == '1'
    summary = json.loads(ros.call(stop, Trigger.Request()).message)
    assert wait_for(lambda: len(events) == len(summary['events']))
    published = [{kv.key: kv.value for kv in e.values} for e in events]
    assert summary['events'] == published
    logged = [r.as_strings() for r in EventLog.read(tmp_path / 'events.jsonl')]
    assert logged == published


def test_silent_sensors_make_the_monitor_stale_never_a_slip(ros, tmp_path):
    start_monitor(ros, tmp_path)
    client = ros.client()
    hand = ScriptedHand(client)
    events, diagnostics = [], []
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    start = client.create_client(Trigger, 'grasp_monitor/start')
    hand.pad_force_n.update(finger_left=1.0, finger_right=1.0)
    ros.call(start, Trigger.Request())
    assert wait_for(lambda: 'grasp' in kinds(events))
    hand.silent = True
    assert wait_for(lambda: any(e.name == 'sensor_stale' for e in events))
    assert wait_for(lambda: [d for d in diagnostics
                             if d.status[0].level == DiagnosticStatus.STALE])
    time.sleep(1.0)  # longer than slip_out (0.3 s)
    assert 'slip_out' not in kinds(events)


def test_disabling_a_monitor_and_refusing_a_prerequisite(ros, tmp_path):
    start_monitor(ros, tmp_path)
    client = ros.client()
    stop_force = client.create_client(SetBool, 'grasp_monitor/stop_external_force/enable')
    grasp = client.create_client(SetBool, 'grasp_monitor/grasp/enable')
    contact = client.create_client(SetBool, 'grasp_monitor/contact/enable')
    refused = ros.call(grasp, SetBool.Request(data=False))
    assert not refused.success and 'stop_external_force' in refused.message
    assert ros.call(stop_force, SetBool.Request(data=False)).success
    assert ros.call(grasp, SetBool.Request(data=False)).success
    refused = ros.call(contact, SetBool.Request(data=False))
    assert not refused.success and 'contact_timeout' in refused.message


def monitor_status(diagnostics):
    for array in reversed(diagnostics):
        for status in array.status:
            if status.name.endswith('grasp_monitor: monitor'):
                return {kv.key: kv.value for kv in status.values}
    return None


@pytest.mark.parametrize('contacts', ['contacts', ''])
def test_pads_on_the_table_make_no_contact_unless_read_from_taxels(ros, tmp_path, contacts):
    start_monitor(ros, tmp_path, contacts=contacts)
    client = ros.client()
    hand = ScriptedHand(client)
    hand.touching.update(finger_left='table', finger_right='table')
    events, diagnostics = [], []
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    hand.pad_force_n.update(finger_left=1.0, finger_right=1.0)
    ros.call(client.create_client(Trigger, 'grasp_monitor/start'), Trigger.Request())
    if contacts:  # as rostok: the table is no object, and no contact comes in time
        assert wait_for(lambda: 'contact_timeout' in kinds(events), timeout_s=10.0), \
            kinds(events)
        assert 'contact' not in kinds(events)
        assert wait_for(lambda: (monitor_status(diagnostics) or {}).get('basis') == 'contacts')
    else:  # the taxels feel the table as they would the object: an estimate
        assert wait_for(lambda: 'contact' in kinds(events)), kinds(events)
        assert wait_for(lambda: (monitor_status(diagnostics) or {}).get('basis')
                        == 'taxels (estimate)')


def test_a_trial_started_before_any_input_opens_at_the_first_sample(ros, tmp_path):
    start_monitor(ros, tmp_path)
    client = ros.client()
    events, status = [], {}
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)

    def on_diagnostics(msg):
        for entry in msg.status:
            if entry.name.endswith(': monitor'):
                status.update((kv.key, kv.value) for kv in entry.values)

    client.create_subscription(DiagnosticArray, '/diagnostics', on_diagnostics, 10)
    assert ros.call(client.create_client(Trigger, 'grasp_monitor/start'),
                    Trigger.Request()).message == '1'
    assert wait_for(lambda: status.get('waiting_for') ==
                    'contacts, ground_truth/object, joint_states'), status
    assert kinds(events) == []
    ScriptedHand(client)  # the inputs start
    assert wait_for(lambda: 'trial_start' in kinds(events)), kinds(events)
    assert {kv.key: kv.value for kv in events[0].values}['trial'] == '1'
    assert wait_for(lambda: status.get('waiting_for') == ''), status


@pytest.mark.parametrize('object_name', ['object', ''])
def test_a_late_viewer_sees_the_trials_events_as_text_above_the_object(ros, tmp_path,
                                                                       object_name):
    from grasp_monitor.nodes.qos import LATCHED_QOS
    from visualization_msgs.msg import Marker, MarkerArray
    # without an object the contacts come from the taxels
    start_monitor(ros, tmp_path, object=object_name,
                  **({} if object_name else {'contacts': ''}))
    client, hand, events = start_trial(ros)
    hand.pad_force_n.update(finger_left=1.0, finger_right=1.0)
    assert wait_for(lambda: 'contact' in kinds(events)), kinds(events)
    published = list(events)
    viewer = ros.client('late_viewer')  # subscribes after the events, as rviz started late
    arrays = []
    viewer.create_subscription(MarkerArray, 'grasp_monitor/markers', arrays.append,
                               LATCHED_QOS)
    assert wait_for(lambda: arrays)
    clear, *texts = arrays[-1].markers
    assert clear.action == Marker.DELETEALL
    # the whole trial up to its latest event (later ones may have come since)
    assert len(texts) >= len(published)
    assert [m.text for m in texts] == [
        f'{e.name} {float({kv.key: kv.value for kv in e.values}["time_s"]):.3f} s'
        for e in events[:len(texts)]]
    assert {m.type for m in texts} == {Marker.TEXT_VIEW_FACING}
    assert len({m.id for m in texts}) == len(texts)
    # stacked above the anchor, the newest lowest: the object (world, at the origin)
    # or, without an object, the first pad's origin in its frame
    frame = 'world' if object_name else 'finger_left'
    assert {m.header.frame_id for m in texts} == {frame}
    heights = [m.pose.position.z for m in texts]
    assert heights == sorted(heights, reverse=True) and min(heights) > 0.0
    assert all(m.pose.position.x == 0.0 and m.pose.position.y == 0.0 for m in texts)


def test_trial_ids_go_on_from_the_event_log_after_a_restart(ros, tmp_path):
    client = ros.client()
    ScriptedHand(client)
    start = client.create_client(Trigger, 'grasp_monitor/start')
    stop = client.create_client(Trigger, 'grasp_monitor/stop')
    log_path = tmp_path / 'events.jsonl'
    for expected in ('1', '2'):
        monitor = start_monitor(ros, tmp_path)
        assert ros.call(start, Trigger.Request()).message == expected
        assert wait_for(lambda: any(r.kind == 'trial_start' and r.trial_id == int(expected)
                                    for r in EventLog.read(log_path)))
        ros.call(stop, Trigger.Request())
        # the node goes as a killed one does: its log is what the next one reads
        ros.executor.remove_node(monitor)
        ros.nodes.remove(monitor)
        monitor.destroy_node()
    records = EventLog.read(log_path)
    starts = [r.trial_id for r in records if r.kind == 'trial_start']
    ends = [r.trial_id for r in records if r.kind == 'trial_end']
    assert starts == [1, 2] and ends == [1, 2]


def test_incipient_slip_from_the_tactile_clouds_alone(ros, tmp_path):
    # as on hardware: no object ground truth, no contacts, taxel forces at their positions
    start_monitor(ros, tmp_path, object='', contacts='',
                  events=['contact', 'incipient_slip'])
    client, hand, events = start_trial(ros)
    hand.pad_force_n.update(finger_left=10.0, finger_right=10.0)
    hand.pad_shear_n['finger_right'] = 5.0  # half the friction cone (friction 1)
    assert wait_for(lambda: 'contact' in kinds(events)), kinds(events)
    time.sleep(0.2)
    assert 'incipient_slip' not in kinds(events)
    hand.pad_shear_n['finger_right'] = 9.97  # 0.997 of it: past the 0.995 that warns
    assert wait_for(lambda: 'incipient_slip' in kinds(events)), kinds(events)
    values = {kv.key: kv.value for kv in next(
        e for e in events if e.name == 'incipient_slip').values}
    assert values['cue'] == 'friction' and values['pad'] == 'finger_right'
    assert float(values['friction_share']) == pytest.approx(0.997, abs=1e-6)


def test_incipient_slip_reads_a_clouds_slip_channel(ros, tmp_path):
    # the slip cue alone (1 mm/s); the friction and centre-of-pressure cues off
    start_monitor(ros, tmp_path, object='', contacts='',
                  events=['contact', 'incipient_slip'], **{
                      'incipient_slip.ratio': 10.0, 'incipient_slip.cop_speed': 0.0,
                      'incipient_slip.slip_speed': 0.001})
    client, hand, events = start_trial(ros)
    hand.pad_force_n.update(finger_left=10.0, finger_right=10.0)
    hand.pad_slip_m_per_s.update(finger_left=0.0, finger_right=0.0005)
    assert wait_for(lambda: 'contact' in kinds(events)), kinds(events)
    time.sleep(0.2)
    assert 'incipient_slip' not in kinds(events)
    hand.pad_slip_m_per_s['finger_left'] = 0.002
    assert wait_for(lambda: 'incipient_slip' in kinds(events)), kinds(events)
    values = {kv.key: kv.value for kv in next(
        e for e in events if e.name == 'incipient_slip').values}
    assert values['cue'] == 'slip' and values['pad'] == 'finger_left'
    assert float(values['score']) == pytest.approx(2.0, abs=1e-5)
