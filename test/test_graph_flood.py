"""A flood of malformed input during a trial changes nothing: the graph gives the offline trial.

The demo's graph (processes over DDS, the simulator in lockstep) runs pick_lift while
``flood.py`` publishes malformed servo commands at 1 kHz and malformed monitor inputs at
100 Hz a topic, on the same ROS domain (at 200 Hz a topic the monitor, now checking every
reading's stamp and source, left its stop service unanswered for 10 s on a busy 2-core
run). Every flooded message is refused (counted in the nodes' diagnostics, which the demo
records); the trial's events fall on the offline run's samples and its criteria and reward
agree. A heavier flood only slows
the lockstep graph down on two cores (the refusals cost CPU), it does not change the trial.
"""

import json
from pathlib import Path
import subprocess
import sys

import common  # noqa: F401  (its own ROS_DOMAIN_ID and localhost discovery, inherited)
from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.recording import read_messages
import pytest
from rclpy.serialization import deserialize_message
from test_cli_run import run_cli
from test_graph_agreement import RTOL, trial
from test_graph_demo import run_demo

pytestmark = pytest.mark.graph

FLOOD = Path(__file__).with_name('flood.py')


def refusals(mcap: Path) -> dict[str, int]:
    """Return the largest refusal total each node reported in the recorded /diagnostics."""
    found: dict[str, int] = {}
    for message in read_messages(mcap, ['/diagnostics']):
        for status in deserialize_message(message.data, DiagnosticArray).status:
            values = {kv.key: kv.value for kv in status.values}
            for key in ('refused_commands', 'refused_inputs'):
                if key in values:
                    node = status.name.split(':')[0]
                    found[node] = max(found.get(node, 0), int(values[key]))
    return found


@pytest.fixture
def flood():
    """Flood the graph's topics with malformed messages for as long as the test runs."""
    process = subprocess.Popen(
        [sys.executable, str(FLOOD), '--command-rate', '1000', '--input-rate', '100'],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    yield process
    process.terminate()
    process.communicate(timeout=30)


def test_a_flood_of_malformed_input_leaves_the_trial_as_offline(tmp_path, flood):
    offline = run_cli('pick_lift', '--output-dir', tmp_path / 'run')
    assert offline.returncode == 0, offline.stdout + offline.stderr
    expected = json.loads((tmp_path / 'run' / 'latest' / 'run.json').read_text())
    # the flood slows the lockstep graph on two cores: more wall time for the same trial
    process, summary = run_demo(tmp_path / 'demo', timeout_s=230, trial_timeout_s=180)
    assert flood.poll() is None, flood.stderr.read()  # it flooded the whole trial
    assert summary['failures'] == [], process.stdout[-3000:] + process.stderr[-3000:]
    # the recording holds the flood too: only flooded topics hold more than the graph published
    flooded = {'/joint_states', '/ground_truth/object', '/tactile/finger_left',
               '/tactile/finger_right', '/contacts', '/servo_commands', '/servo_commands/full'}
    differing = [row for row in summary['counts'] if row['matches'] is False]
    assert all(row['topic'] in flooded and row['recorded'] > row['published']
               for row in differing), differing

    assert trial(summary['events']) == trial(expected['events'])
    for name, value in expected['criteria'].items():
        assert summary['criteria'][name] == pytest.approx(value, rel=RTOL, abs=1e-12), name
    assert summary['reward'] == pytest.approx(expected['reward'], rel=RTOL)
    refused = refusals(Path(summary['mcap_path']))
    # the simulator refused commands and the monitor and metrics refused inputs, all trial
    assert refused.get('/mujoco_sim', 0) > 1000, refused
    assert refused.get('/grasp_monitor', 0) > 1000, refused
    assert refused.get('/grasp_metrics', 0) > 100, refused
