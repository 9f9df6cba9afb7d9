"""``grasp-monitor demo --headless`` end to end: the whole graph as processes, as users run it."""

import json
import os
from pathlib import Path
import re
import subprocess
import sys

import common  # noqa: F401  (its own ROS_DOMAIN_ID and localhost discovery, inherited)
from grasp_monitor.app.scenario_config import default_params_file
import pytest
import yaml

pytestmark = pytest.mark.graph

#: Seven criteria of weight 1. Without a grasp, object COG, grasp time and final position
#: are 0 (REFERENCE.md section 2), so the total cannot exceed 4: above 4 means a grasp.
#: The held pick measures 4.9-5.0 (time 1, contacting links 1, object COG 0.99, instant
#: force 0.8, grasp time 0.74-0.80, final position 0.31-0.4: the lift moves the object
#: after the grasp, which fires while it still rests on the table; force 0.07).
REWARD_FLOOR = 4.0


def run_demo(output, *args, timeout_s=115, trial_timeout_s=70):
    """Run ``grasp-monitor demo --headless`` into ``output``; return the process and summary.

    The run writes into a folder of its own, ``output/latest`` after it. The trial may take
    ``trial_timeout_s`` of wall time (the demo's ``--timeout``).

    Past ``timeout_s`` the demo gets SIGTERM, which stops its nodes, and the test fails.
    """
    process = subprocess.Popen(
        [sys.executable, '-m', 'grasp_monitor.cli', 'demo', '--headless', '--timeout',
         str(trial_timeout_s),
         '--output-dir', str(output), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.terminate()
        stdout, stderr = process.communicate(timeout=30)
        pytest.fail(f'the demo took more than {timeout_s} s:\n{stdout[-3000:]}{stderr[-3000:]}')
    finished = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    return finished, json.loads((output / 'latest' / 'summary.json').read_text())


@pytest.fixture(scope='module')
def demo(tmp_path_factory):
    """Run the demo once on the default scenario; yield its exit, summary and run folder."""
    output = tmp_path_factory.mktemp('demo')
    process, summary = run_demo(output)  # the whole demo, start to PNG, within 115 s
    return process, summary, output / os.readlink(output / 'latest')


def test_the_demo_exits_cleanly_and_prints_the_results_table(demo):
    process, summary, output = demo
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
    assert summary['failures'] == []
    for line in ('events', 'criteria', 'total reward', 'energy peak', str(output)):
        assert line in process.stdout
    # headless: plain lines, never the terminal's cursor codes
    assert '\x1b[' not in process.stdout


def test_the_pick_fires_contact_then_grasp_and_holds(demo):
    _, summary, _ = demo
    fired = summary['fired']
    assert fired.index('contact') < fired.index('grasp') < fired.index('stop_external_force')
    assert 'slip_out' not in fired and 'contact_timeout' not in fired
    assert summary['reward'] > REWARD_FLOOR, summary['criteria']
    assert summary['energy_peak_j'] > 0.0
    assert set(summary['criteria']) == {
        'time', 'force', 'object_cog', 'instant_force', 'instant_contacting_link',
        'grasp_time', 'final_position', 'epsilon'}


def test_the_grasp_quality_is_recorded_and_rises_at_the_grasp(demo):
    from geometry_msgs.msg import Vector3Stamped
    from grasp_monitor.nodes.conversions import time_from_msg
    from grasp_monitor.recording import read_messages
    from rclpy.serialization import deserialize_message
    _, summary, output = demo
    rows = sorted((time_from_msg(msg.header.stamp), msg.vector.x, msg.vector.z)
                  for msg in (deserialize_message(m.data, Vector3Stamped) for m in read_messages(
                      output / 'demo.mcap', ['/grasp_metrics/epsilon'])))
    times = {e['type']: float(e['time_s']) for e in summary['events']}
    before = [x for t, x, _ in rows if t < times['contact'] - 0.05]
    held = [(x, z) for t, x, z in rows if times['grasp'] <= t <= times['trial_end']]
    assert before and all(x == 0.0 for x in before)  # no contact, no quality
    assert held and all(x > 0.1 and z >= 3 for x, z in held)


def test_the_summary_figure_is_a_png(demo):
    _, summary, output = demo
    assert summary['png_path'] == str(output / 'summary.png')
    data = (output / 'summary.png').read_bytes()
    assert data[:8] == b'\x89PNG\r\n\x1a\n' and len(data) > 20_000


def test_the_mcap_reads_back_with_every_published_message(demo):
    from diagnostic_msgs.msg import DiagnosticStatus
    from grasp_monitor.recording import message_counts, read_messages, read_topics
    from rclpy.serialization import deserialize_message
    _, summary, output = demo
    mcap = output / 'demo.mcap'
    assert summary['mcap_path'] == str(mcap)
    counts = message_counts(mcap)
    checked = [c for c in summary['counts'] if c['published'] is not None]
    # the simulator's streams, the monitor's events, the metrics' energy and reward
    assert {'/clock', '/joint_states', '/tactile/finger_left', '/ground_truth/object',
            '/grasp_monitor/events', '/grasp_metrics/energy'} <= {c['topic'] for c in checked}
    for count in checked:
        assert counts.get(count['topic'], 0) == count['published'] > 0, count
    # the file decodes: the recorded events are the trial's, in order
    assert read_topics(mcap)['/joint_states'].type_name == 'sensor_msgs/msg/JointState'
    recorded = [deserialize_message(m.data, DiagnosticStatus).name
                for m in read_messages(mcap, ['/grasp_monitor/events'])]
    assert recorded == [e['type'] for e in summary['events']]


def test_every_record_of_the_mcap_is_on_simulated_time(demo):
    from geometry_msgs.msg import Vector3Stamped
    from grasp_monitor.recording import cdr_stamp_ns, read_messages
    from rclpy.serialization import deserialize_message
    _, summary, output = demo
    records = list(read_messages(output / 'demo.mcap', log_time_order=False))
    clocks = [cdr_stamp_ns(m.data) for m in records if m.topic == '/clock']
    first_ns, last_ns = min(clocks), max(clocks)
    # one timeline from the reset: within the clocks published, not on the wall clock
    outside = [(m.topic, m.log_time_ns, m.publish_time_ns) for m in records
               if not (first_ns <= m.log_time_ns <= last_ns and
                       first_ns <= m.publish_time_ns <= last_ns)]
    assert not outside, outside[:10]
    energy = [m for m in records if m.topic == '/grasp_metrics/energy']
    # the energy carries its sample's stamp, within the trial
    start_ns = int(summary['trial_start_s'] * 1e9)
    stamps = [deserialize_message(m.data, Vector3Stamped).header.stamp for m in energy]
    assert all(start_ns - 10**7 <= s.sec * 10**9 + s.nanosec <= last_ns for s in stamps)
    assert [m.publish_time_ns for m in energy] == [s.sec * 10**9 + s.nanosec for s in stamps]


def test_the_live_view_shows_nothing_from_before_the_reset(demo):
    process, _, _ = demo
    lines = process.stdout.splitlines()
    running = next(i for i, line in enumerate(lines) if 'running' in line)
    first = next(line for line in lines[running:] if 'sim time' in line)
    # the simulator ran for seconds before the demo paused and reset it
    assert float(re.search(r'sim time\s+([-\d.]+) s', first).group(1)) < 1.0, first


def test_a_node_that_fails_fails_the_demo_saying_which_and_keeps_the_run_before(demo, tmp_path):
    _, good, good_run = demo
    params = yaml.safe_load(default_params_file('pick_lift').read_text())
    # each value is valid, the monitor refuses the set: grasp needs contact
    params['grasp_monitor']['ros__parameters']['events'] = ['grasp']
    params_file = tmp_path / 'bad.yaml'
    params_file.write_text(yaml.safe_dump(params))
    output = good_run.parent
    process, summary = run_demo(output, '--params-file', str(params_file))
    assert process.returncode == 1
    assert 'grasp_monitor exited with status' in process.stderr
    assert "needs 'contact'" in process.stderr  # the end of its log says why
    assert summary['events'] == [] and summary['failures']
    # the failed run has a folder of its own, now the latest; the good one is untouched
    latest = output / os.readlink(output / 'latest')
    assert latest != good_run and latest.parent == output
    assert json.loads((good_run / 'summary.json').read_text()) == good


def test_a_parameter_the_node_would_refuse_stops_the_demo_before_any_node_starts(tmp_path):
    params = yaml.safe_load(default_params_file('pick_lift').read_text())
    params['grasp_monitor']['ros__parameters']['contact_force'] = -1.0  # out of its range
    params_file = tmp_path / 'bad.yaml'
    params_file.write_text(yaml.safe_dump(params))
    process = subprocess.run(
        [sys.executable, '-m', 'grasp_monitor.cli', 'demo', '--headless', '--params-file',
         str(params_file), '--output-dir', str(tmp_path / 'out')],
        capture_output=True, text=True, timeout=60)
    assert process.returncode == 2
    assert 'grasp_monitor.contact_force: -1.0 is outside [1e-06, 1000.0]' in process.stderr
    assert not (tmp_path / 'out').exists()


def layout_topics():
    """Return the topics the Foxglove and PlotJuggler layouts read, by layout."""
    import xml.etree.ElementTree as ElementTree
    root = Path(__file__).resolve().parents[1] / 'config'
    foxglove = json.loads((root / 'foxglove' / 'grasp_monitor.json').read_text())
    panels = foxglove['configById']
    topics = set(panels['3D!grasp']['topics'])
    topics |= {layer['topic'] for layer in panels['3D!grasp']['layers'].values()
               if 'topic' in layer}
    topics |= {path['value'].split('.')[0] for panel in panels.values()
               for path in panel.get('paths', [])}
    topics |= {panel['topicPath'] for panel in panels.values() if 'topicPath' in panel}
    curves = {curve.get('name') for curve in ElementTree.parse(
        root / 'plotjuggler' / 'grasp_monitor.xml').iter('curve')}
    return {'foxglove': topics, 'plotjuggler': curves}


def test_the_foxglove_and_plotjuggler_layouts_read_what_the_recording_holds(demo):
    from grasp_monitor.recording import read_messages, read_topics
    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import JointState
    _, _, output = demo
    mcap = output / 'demo.mcap'
    recorded = {('/' + t).replace('//', '/') for t in read_topics(mcap)}
    wanted = layout_topics()
    # another scenario's pads are in the 3D panel too: this recording is pick_lift's
    others = {'/tactile/gripper_left', '/tactile/gripper_right'}
    assert sorted(wanted['foxglove'] - others - recorded) == []
    joints = deserialize_message(next(read_messages(mcap, ['/joint_states'])).data,
                                 JointState).name
    for curve in wanted['plotjuggler']:
        # PlotJuggler names a JointState's curves /<topic>/<joint>/<field>, others by path
        topic = next((t for t in recorded if curve.startswith(t + '/')), None)
        assert topic is not None, curve
        if topic == '/joint_states':
            assert curve.split('/')[2] in joints, curve
