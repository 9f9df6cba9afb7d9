"""``grasp-monitor slip-eval`` as users run it: the quick family end to end, bad input refused."""

import json
import subprocess
import sys

from grasp_monitor.core.monitor.incipient_slip import CUES
import pytest


def slip_eval(*args):
    return subprocess.run([sys.executable, '-m', 'grasp_monitor.cli', 'slip-eval',
                           *map(str, args)], capture_output=True, text=True, timeout=300)


def test_quick_writes_the_table_and_the_pr_curve(tmp_path):
    done = slip_eval('--quick', '--output-dir', tmp_path)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / 'slip_eval.md').read_text()
    assert table in done.stdout
    figures, wrong, event, long = table.split('\n\n')
    header, _, forces, channel, assumed = figures.splitlines()
    assert 'tick F1' in header and 'lead median ms' in header
    assert forces.startswith('| forces | friction ') and channel.startswith('| slip channel |')
    assert assumed.startswith('| forces, friction taken as 0.85 |')
    assert wrong.splitlines()[0].startswith('| detector | fp hold | fp before slip |')
    assert event.startswith("The monitor's own incipient_slip event")
    assert long.startswith('Long holds: 1 of 5 s (0.1 min of grasp') and \
        'false alarms forces ' in long
    summary = json.loads((tmp_path / 'slip_eval.json').read_text())
    assert summary['long_holds'] == 1 and summary['long_hold_s'] == 5.0
    assert summary['long_holds_gross_slip'] == 0
    minutes = summary['detectors']['forces']['long_holds']['hold_minutes']
    assert minutes == pytest.approx(5.1 / 60, abs=0.002)  # the hold from the grasp on
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
    (('--long-holds', -1), '--long-holds -1: must be in [0, 10000]'),
])
def test_bad_values_exit_2_naming_them(args, message):
    done = slip_eval(*args)
    assert done.returncode == 2
    assert done.stderr == f'grasp-monitor: error: {message}\n'


def test_an_unknown_preset_exits_2_naming_the_presets():
    done = slip_eval('--quick', '--preset', 'noisy')
    assert done.returncode == 2
    assert "argument --preset: invalid choice: 'noisy' (choose from" in done.stderr
    assert 'ideal' in done.stderr and 'typical' in done.stderr and 'harsh' in done.stderr


def test_quick_and_trials_are_exclusive():
    done = slip_eval('--quick', '--trials', 10)
    assert done.returncode == 2 and 'not allowed with argument' in done.stderr


def slip_params(tmp_path, contacts):
    """pick_lift's parameter file with incipient_slip in the monitor's events."""
    from grasp_monitor.app.scenario_config import default_params_file
    text = default_params_file('pick_lift').read_text()
    text = text.replace(
        'events: [contact, contact_timeout, flying_apart, slip_out, grasp, stop_external_force]',
        'events: [contact, grasp, stop_external_force, incipient_slip]\n'
        '    contacts: "' + contacts + '"')
    if not contacts:
        text = text.replace('grasp_metrics:\n  ros__parameters:\n',
                            'grasp_metrics:\n  ros__parameters:\n    contacts: ""\n')
    params = tmp_path / 'slip.yaml'
    params.write_text(text)
    return params


def run(params, output, *args):
    return subprocess.run([sys.executable, '-m', 'grasp_monitor.cli', 'run', '--params-file',
                           params, '--output', output, *args],
                          capture_output=True, text=True, timeout=120)


def test_run_refuses_an_incipient_slip_on_contacts(tmp_path):
    done = run(slip_params(tmp_path, 'contacts'), tmp_path / 'run.json')
    assert done.returncode == 2
    assert ("incipient_slip reads the pads' tactile clouds: set contacts to \"\" (taxels), "
            "not 'contacts', or leave it out of events") in done.stderr


def test_run_fires_incipient_slip_from_the_taxels_before_a_heavy_object_drops(tmp_path):
    # 1.2 kg at friction 0.4 on pick_lift's 10 N grip: the lift loses it (its centre ends
    # on the table, 0.425 m); the event comes from the pads' clouds as the node reads them
    # on after the verdict (the force test's end), to where the object comes to rest
    done = run(slip_params(tmp_path, ''), tmp_path / 'run.json',
               '--param', 'object_mass_kg=1.2', '--set', 'friction=0.4',
               '--continue-after-end')
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / 'run.json').read_text())
    events = {e['type']: e for e in result['events']}
    slip = events['incipient_slip']
    assert float(events['grasp']['time_s']) < float(slip['time_s'])
    assert slip['pad'] in ('finger_left', 'finger_right') and slip['cue'] in CUES
    assert result['final_objects']['object']['position_m'][2] < 0.43
    # the default object stays held, and no warning comes
    done = run(slip_params(tmp_path, ''), tmp_path / 'held.json', '--continue-after-end')
    assert done.returncode == 0, done.stderr
    held = json.loads((tmp_path / 'held.json').read_text())
    assert 'incipient_slip' not in {e['type'] for e in held['events']}
    assert held['final_objects']['object']['position_m'][2] > 0.475
