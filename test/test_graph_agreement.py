"""One trial, one truth: the demo's ROS graph and ``grasp-monitor run`` give the same trial.

The graph runs as users run it (``grasp-monitor demo``: processes over DDS, the simulator
in lockstep), here while two busy loops load both cores; the offline run is the same
scenario file without ROS. Events must fall on the same samples, criteria, reward, the
energy peak and its time, and the epsilon summary agree to 1e-6.
"""

import json
from pathlib import Path
import subprocess
import sys

import common  # noqa: F401  (its own ROS_DOMAIN_ID and localhost discovery, inherited)
import pytest
from test_cli_run import run_cli
from test_graph_demo import run_demo
import yaml

pytestmark = pytest.mark.graph

#: Relative agreement of the criteria and the reward.
RTOL = 1e-6


@pytest.fixture
def two_busy_loops():
    """Load both cores of the machine with a spinning process each."""
    loops = [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(2)]
    yield
    for loop in loops:
        loop.kill()
        loop.wait()


def trial(events):
    """Return each event as (type, time on the 1 ns grid)."""
    return [(e['type'], round(float(e['time_s']), 9)) for e in events]


def assert_same_energy_and_epsilon(summary, expected):
    """Check that the energy peak, its stamp and the epsilon summary agree to ``RTOL``."""
    assert summary['energy_peak_j'] == pytest.approx(expected['peak_energy_j'], rel=RTOL,
                                                     abs=1e-12)
    assert summary['energy_peak_time_s'] == pytest.approx(expected['peak_energy_time_s'],
                                                          abs=1e-9)
    assert summary['epsilon'].keys() == expected['epsilon'].keys()
    assert summary['epsilon']['variant'] == expected['epsilon']['variant']
    for name, value in expected['epsilon'].items():
        if name != 'variant':
            assert summary['epsilon'][name] == pytest.approx(value, rel=RTOL, abs=1e-12,
                                                             nan_ok=True), name


def test_pick_lift_in_the_loaded_graph_is_the_offline_trial(tmp_path, two_busy_loops):
    offline = run_cli('pick_lift', '--output-dir', tmp_path / 'run')
    assert offline.returncode == 0, offline.stdout + offline.stderr
    expected = json.loads((tmp_path / 'run' / 'latest' / 'run.json').read_text())
    process, summary = run_demo(tmp_path / 'demo')
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]

    assert trial(summary['events']) == trial(expected['events'])
    assert [kind for kind, _ in trial(summary['events'])] == [
        'trial_start', 'contact', 'grasp', 'stop_external_force', 'trial_end']
    assert summary['criteria'].keys() == expected['criteria'].keys()
    for name, value in expected['criteria'].items():
        assert summary['criteria'][name] == pytest.approx(value, rel=RTOL, abs=1e-12), name
    assert summary['reward'] == pytest.approx(expected['reward'], rel=RTOL)
    assert_same_energy_and_epsilon(summary, expected)
    # the energy is the object's in the hand from the grasp on, not 1092 J
    assert 0.0 < expected['peak_energy_j'] < 10.0
    # both from the pads' contacts with the object, as rostok defines the criteria
    assert summary['basis'] == expected['basis'] == 'contacts'
    # and the recording lost nothing the graph published, however busy the machine
    counted = [row for row in summary['counts'] if row['matches'] is not None]
    assert len(counted) >= 8 and all(row['matches'] for row in counted), counted


@pytest.mark.parametrize('scenario', ['multi_block', 'industrial_arm'])
def test_a_monitored_scene_of_set_length_is_the_offline_trial(tmp_path, scenario):
    # no controller: the trial lasts the set length, and the simulator pauses on its tick
    offline = run_cli(scenario, '--duration', 3, '--output-dir', tmp_path / 'run')
    assert offline.returncode == 0, offline.stdout + offline.stderr
    expected = json.loads((tmp_path / 'run' / 'latest' / 'run.json').read_text())
    process, summary = run_demo(tmp_path / 'demo', scenario, '--duration', '3')
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
    assert trial(summary['events']) == trial(expected['events'])
    assert trial(summary['events'])[-1] == ('trial_end', 3.0)
    for name, value in expected['criteria'].items():
        assert summary['criteria'][name] == pytest.approx(value, rel=RTOL, abs=1e-12), name
    assert summary['reward'] == pytest.approx(expected['reward'], rel=RTOL)
    assert_same_energy_and_epsilon(summary, expected)


def test_pick_lift_at_another_rate_is_the_offline_trial(tmp_path):
    # the scenario file runs at the servos' 1 kHz (above); lockstep holds at 200 Hz / 100 Hz
    config = yaml.safe_load((Path(__file__).resolve().parents[1] / 'config' /
                             'pick_lift.yaml').read_text())
    config['mujoco_sim']['ros__parameters']['publish_rate'] = 200.0
    config['tactile_sensor']['ros__parameters']['publish_rate'] = 100.0
    params = tmp_path / 'pick_lift_200hz.yaml'
    params.write_text(yaml.safe_dump(config))
    offline = run_cli('pick_lift', '--params-file', params, '--output-dir', tmp_path / 'run')
    assert offline.returncode == 0, offline.stdout + offline.stderr
    expected = json.loads((tmp_path / 'run' / 'latest' / 'run.json').read_text())
    process, summary = run_demo(tmp_path / 'demo', '--params-file', str(params))
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
    assert trial(summary['events']) == trial(expected['events'])
    assert [kind for kind, _ in trial(summary['events'])] == [
        'trial_start', 'contact', 'grasp', 'stop_external_force', 'trial_end']
    for name, value in expected['criteria'].items():
        assert summary['criteria'][name] == pytest.approx(value, rel=RTOL, abs=1e-12), name
    assert summary['reward'] == pytest.approx(expected['reward'], rel=RTOL)
    assert_same_energy_and_epsilon(summary, expected)
