"""``grasp-monitor slip-eval`` as users run it: the quick family end to end, bad input refused."""

import json
import subprocess
import sys

import pytest


def slip_eval(*args):
    return subprocess.run([sys.executable, '-m', 'grasp_monitor.cli', 'slip-eval',
                           *map(str, args)], capture_output=True, text=True, timeout=300)


def test_quick_writes_the_table_and_the_pr_curve(tmp_path):
    done = slip_eval('--quick', '--output-dir', tmp_path)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / 'slip_eval.md').read_text()
    assert table in done.stdout
    figures, wrong, event = table.split('\n\n')
    header, _, forces, channel, assumed = figures.splitlines()
    assert 'tick F1' in header and 'lead median ms' in header
    assert forces.startswith('| forces | friction ') and channel.startswith('| slip channel |')
    assert assumed.startswith('| forces, friction taken as 0.85 |')
    assert wrong.splitlines()[0].startswith('| detector | fp hold | fp before slip |')
    assert event.startswith("The monitor's own incipient_slip event")
    summary = json.loads((tmp_path / 'slip_eval.json').read_text())
    assert summary['trials'] == 8 and summary['diverged'] == 0
    assert summary['tuning_trials'] + summary['held_out_trials'] == 8
    held = summary['detectors']['forces']['held_out']
    assert held['slip_trials'] >= 1 and 0.0 <= held['tick_f1'] <= 1.0
    assert (tmp_path / 'pr_curve.png').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


@pytest.mark.parametrize('args, message', [
    (('--trials', 2), '--trials 2: must be in [4, 100000]'),
    (('--pull', 0.1), '--pull 0.1: must be in [0.5, 60] s'),
    (('--jobs', 0), '--jobs 0: must be >= 1'),
    (('--noslip-iterations', -1), '--noslip-iterations -1: must be in [0, 1000]'),
])
def test_bad_values_exit_2_naming_them(args, message):
    done = slip_eval(*args)
    assert done.returncode == 2
    assert done.stderr == f'grasp-monitor: error: {message}\n'


def test_quick_and_trials_are_exclusive():
    done = slip_eval('--quick', '--trials', 10)
    assert done.returncode == 2 and 'not allowed with argument' in done.stderr


@pytest.mark.parametrize('contacts, message', [
    ('contacts', "incipient_slip reads the pads' tactile clouds: set contacts to \"\" "
     "(taxels), not 'contacts', or leave it out of events"),
    ('', 'the offline run does not give incipient_slip its tactile signals'),
])
def test_run_refuses_an_incipient_slip_it_could_not_feed(tmp_path, contacts, message):
    from grasp_monitor.app.scenario_config import default_params_file
    text = default_params_file('pick_lift').read_text()
    text = text.replace(
        'events: [contact, contact_timeout, flying_apart, slip_out, grasp, stop_external_force]',
        'events: [contact, incipient_slip]\n    contacts: "' + contacts + '"')
    if not contacts:
        text = text.replace('grasp_metrics:\n  ros__parameters:\n',
                            'grasp_metrics:\n  ros__parameters:\n    contacts: ""\n')
    params = tmp_path / 'slip.yaml'
    params.write_text(text)
    done = subprocess.run([sys.executable, '-m', 'grasp_monitor.cli', 'run', '--params-file',
                           params, '--output', tmp_path / 'run.json'],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert message in done.stderr
