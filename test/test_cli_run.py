"""``grasp-monitor run`` as users run it: the scenario's parameter file, criteria, own folders."""

from datetime import datetime, timezone
import json
import os
import subprocess
import sys

from grasp_monitor.app.results_dir import new_run_dir, point_latest
from grasp_monitor.app.scenario_config import default_params_file
import pytest
import yaml

#: Seven criteria of weight 1 and epsilon of weight 0; a held pick scores above 4 (see
#: test_graph_demo).
CRITERIA = {'time', 'force', 'object_cog', 'instant_force', 'instant_contacting_link',
            'grasp_time', 'final_position', 'epsilon'}
#: The monitor samples at 100 Hz (config/pick_lift.yaml).
TICK_S = 0.01


def run_cli(*args, cwd=None):
    """Run ``grasp-monitor run`` with ``args``; return the finished process."""
    return subprocess.run([sys.executable, '-m', 'grasp_monitor.cli', 'run', *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def first(events, kind):
    """Return the time of the first event of ``kind``, s."""
    return next(float(e['time_s']) for e in events if e['type'] == kind)


@pytest.fixture(scope='module')
def two_runs(tmp_path_factory):
    """Run pick_lift twice into one output folder; return the folder and both processes."""
    output = tmp_path_factory.mktemp('runs')
    # 5 s: the trial ends at grasp (~1.2 s) + the file's 3.2 s force test
    runs = [run_cli('pick_lift', '--duration', 5, '--output-dir', output) for _ in range(2)]
    return output, runs


def test_run_writes_events_criteria_and_reward_as_the_demo_summary_does(two_runs):
    output, runs = two_runs
    for process in runs:
        assert process.returncode == 0, process.stderr
    result = json.loads((output / 'latest' / 'run.json').read_text())
    kinds = [e['type'] for e in result['events']]
    assert kinds[:3] == ['trial_start', 'contact', 'grasp'] and kinds[-1] == 'trial_end'
    assert set(result['criteria']) == CRITERIA
    assert result['reward'] == pytest.approx(sum(
        value for name, value in result['criteria'].items() if name != 'epsilon'))
    assert result['reward'] > 4.0, result['criteria']  # a grasp, held
    # the grasp quality: the pads' contacts hold the object from the grasp on
    epsilon = result['epsilon']
    assert epsilon['variant'] == 'l1' and epsilon['samples'] > 100
    assert 0.1 < epsilon['at_grasp'] <= epsilon['peak'] <= 1.0
    assert result['criteria']['epsilon'] == pytest.approx(epsilon['mean_after_grasp'])
    # under load (the file's epsilon.under_load): the force test's pull lowers it
    # (0.63 at the grasp, 0.34 at the test's end; per unit grip it stays at 0.63)
    assert epsilon['min_after_grasp'] < 0.7 * epsilon['at_grasp']
    assert f'epsilon (l1)    at grasp {epsilon["at_grasp"]:.4g}' in runs[1].stdout
    assert result['params_file'] == str(default_params_file('pick_lift'))
    assert result['basis'] == 'contacts'  # the pads' contacts with the object
    # the print-out shows them too
    assert 'criteria        time 1.000' in runs[1].stdout
    assert f'total reward    {result["reward"]:.3f}' in runs[1].stdout


def test_two_runs_write_two_folders_and_latest_points_at_the_second(two_runs):
    output, runs = two_runs
    folders = sorted(p.name for p in output.iterdir() if p.name != 'latest')
    assert len(folders) == 2 and all((output / f / 'run.json').is_file() for f in folders)
    second = runs[1].stdout.split('result          ')[1].strip()
    assert os.readlink(output / 'latest') == os.path.basename(os.path.dirname(second))
    assert (output / 'latest').resolve() == (output / folders[-1]).resolve()
    datetime.strptime(folders[0][:20], '%Y-%m-%dT%H-%M-%SZ')  # named by UTC time


def test_the_force_test_lasts_as_long_as_the_parameter_file_says(two_runs, tmp_path):
    output, _ = two_runs
    events = json.loads((output / 'latest' / 'run.json').read_text())['events']
    params = yaml.safe_load(default_params_file('pick_lift').read_text())
    configured_s = params['grasp_monitor']['ros__parameters']['force_test_time']
    assert configured_s == 3.2
    length_s = first(events, 'stop_external_force') - first(events, 'grasp')
    assert length_s == pytest.approx(configured_s, abs=TICK_S + 1e-9)
    # another file, another length
    params['grasp_monitor']['ros__parameters']['force_test_time'] = 1.5
    params_file = tmp_path / 'short.yaml'
    params_file.write_text(yaml.safe_dump(params))
    process = run_cli('--params-file', params_file, '--duration', 4,
                      '--output', tmp_path / 'short.json')
    assert process.returncode == 0, process.stderr
    events = json.loads((tmp_path / 'short.json').read_text())['events']
    length_s = first(events, 'stop_external_force') - first(events, 'grasp')
    assert length_s == pytest.approx(1.5, abs=TICK_S + 1e-9)
    assert not (tmp_path / 'latest').exists()  # a file named by the user is just that file


def test_a_bad_parameter_file_is_refused_naming_the_value_and_what_is_valid(tmp_path):
    params = yaml.safe_load(default_params_file('pick_lift').read_text())
    params['grasp_monitor']['ros__parameters']['contact_force'] = -1.0
    bad = tmp_path / 'bad.yaml'
    bad.write_text(yaml.safe_dump(params))
    process = run_cli('--params-file', bad, '--output-dir', tmp_path / 'out')
    assert process.returncode == 2
    assert f'{bad}: grasp_monitor.contact_force: -1.0 is outside [1e-06, 1000.0]' \
        in process.stderr
    del params['grasp_monitor']['ros__parameters']['contact_force']
    params['grasp_monitor']['ros__parameters']['force_test_tme'] = 1.0
    bad.write_text(yaml.safe_dump(params))
    process = run_cli('--params-file', bad, '--output-dir', tmp_path / 'out')
    assert process.returncode == 2
    assert ("grasp_monitor has no parameter 'force_test_tme' (did you mean 'force_test_time'?); "
            'valid: ') in process.stderr
    process = run_cli('multi_block', '--params-file', default_params_file('pick_lift'))
    assert process.returncode == 2
    assert "simulates 'pick_lift', not 'multi_block'" in process.stderr
    assert not (tmp_path / 'out').exists()  # nothing ran, nothing written


def test_taxel_estimates_are_named_and_the_two_nodes_must_agree_on_the_basis(tmp_path):
    params = yaml.safe_load(default_params_file('pick_lift').read_text())
    for node in ('grasp_monitor', 'grasp_metrics'):
        params[node]['ros__parameters']['contacts'] = ''
    taxels = tmp_path / 'taxels.yaml'
    taxels.write_text(yaml.safe_dump(params))
    process = run_cli('--params-file', taxels, '--output', tmp_path / 'run.json')
    assert process.returncode == 0, process.stderr
    result = json.loads((tmp_path / 'run.json').read_text())
    assert result['basis'] == 'taxels (estimate)' and set(result['criteria']) == CRITERIA
    assert 'basis           taxels (estimate)' in process.stdout
    params['grasp_metrics']['ros__parameters']['contacts'] = 'contacts'
    taxels.write_text(yaml.safe_dump(params))
    process = run_cli('--params-file', taxels, '--output', tmp_path / 'mixed.json')
    assert process.returncode == 2
    assert "grasp_monitor.contacts '' and grasp_metrics.contacts 'contacts' must both" \
        in process.stderr


def test_runs_in_the_same_second_get_their_own_folders(tmp_path):
    started = datetime(2026, 11, 25, 14, 3, 12, tzinfo=timezone.utc)
    made = [new_run_dir(tmp_path / 'runs', started) for _ in range(3)]
    assert [p.name for p in made] == ['2026-11-25T14-03-12Z', '2026-11-25T14-03-12Z-2',
                                      '2026-11-25T14-03-12Z-3']
    (made[0] / 'summary.json').write_text('{}')
    for run_dir in made:
        link = point_latest(run_dir)
        assert os.readlink(link) == run_dir.name  # relative: the folder can move
    assert (made[0] / 'summary.json').read_text() == '{}'
    assert sorted(p.name for p in (tmp_path / 'runs').iterdir()) == \
        [p.name for p in made] + ['latest']  # no temporary link left behind


BAD_INPUTS = [
    (['--set', 'friction=abc'],
     "--set friction=abc: friction must be a number, got str 'abc'"),
    (['--set', 'frction=2'],
     "--set frction=2: unknown physics setting 'frction' (did you mean 'friction'?); valid "
     'settings: timestep_s, friction, cone, solver, iterations, noslip_iterations, impratio, '
     'integrator, seed, solref, solimp, tolerance, noslip_tolerance'),
    (['--set', 'solref=[0.001, 1]'],
     '--set solref=[0.001, 1]: solref time constant 0.001 s is below 2 physics steps (0.002 s '
     'at timestep_s 0.001), the stiffest MuJoCo resolves; use at least that'),
    (['--set', 'solimp=0.9 1.2 0.001'],
     '--set solimp=0.9 1.2 0.001: solimp must be (dmin, dmax, width m, midpoint, power) with '
     'dmin and dmax in [0.0001, 0.9999], width > 0, midpoint in (0, 1) and power >= 1 (or the '
     'first three), got [0.9, 1.2, 0.001]'),
    (['--set', 'iterations=2.5'],
     '--set iterations=2.5: iterations must be an int, got float 2.5'),
    (['--set', 'cone=round'], "--set cone=round: cone 'round' is not one of pyramidal, elliptic"),
    (['--param', 'nosuch=1'],
     "--param nosuch=1: scenario pick_lift has no parameter 'nosuch'; its parameters: "
     'object_kind, object_size_m, object_mass_kg, table_height_m, finger_gap_m, pad_size_m, '
     'approach_height_m, carriage_mass_kg, finger_mass_kg, duration_s'),
    (['--param', 'object_mass=1'],
     "--param object_mass=1: scenario pick_lift has no parameter 'object_mass' (did you mean "
     "'object_mass_kg'?)"),
    (['--param', 'object_mass_kg=abc'],
     "--param object_mass_kg=abc: parameter 'object_mass_kg' of scenario pick_lift must be a "
     "float, got str 'abc'"),
    (['--param', 'object_mass_kg=-1'],
     "--param object_mass_kg=-1: parameter 'object_mass_kg' of scenario pick_lift must be in "
     '[0.001, 100.0], got -1.0'),
    (['--param', 'object_kind=cone'],
     "--param object_kind=cone: parameter 'object_kind' of scenario pick_lift must be one of "
     "box, cylinder, sphere, got 'cone'"),
    (['multi_block', '--param', 'n_cubes=2.5'],
     "--param n_cubes=2.5: parameter 'n_cubes' of scenario multi_block must be an int, got "
     'float 2.5'),
]


@pytest.mark.parametrize('args, message', BAD_INPUTS, ids=[' '.join(a) for a, _ in BAD_INPUTS])
def test_a_bad_flag_is_refused_as_written_with_what_is_valid(args, message, tmp_path, capsys):
    from grasp_monitor.cli import main
    scenario = [] if args[0] == 'multi_block' else ['pick_lift']
    assert main(['run', *scenario, *args, '--output-dir', str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith('grasp-monitor: error: ' + message), error
    assert 'Traceback' not in error and not any(tmp_path.iterdir())


def test_a_time_constant_is_checked_against_the_step_set_with_it(tmp_path, capsys):
    from grasp_monitor.cli import main
    output = tmp_path / 'run.json'
    # Two steps of 0.5 ms, whichever --set comes first.
    assert main(['run', 'pick_lift', '--set', 'solref=[0.001, 1]', '--set', 'timestep_s=0.0005',
                 '--duration', '0.01', '--output', str(output)]) == 0
    assert 'simulated       0.010 s' in capsys.readouterr().out and output.is_file()


def test_a_misspelt_key_in_a_parameter_file_names_the_closest(tmp_path, capsys):
    from grasp_monitor.cli import main
    path = tmp_path / 'mine.yaml'
    path.write_text('mujoco_sim:\n  ros__parameters:\n    scenario: pick_lift\n'
                    '    publsh_rate: 300.0\n')
    assert main(['run', '--params-file', str(path), '--output-dir', str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(
        f"grasp-monitor: error: {path}: mujoco_sim has no parameter 'publsh_rate' (did you "
        "mean 'publish_rate'?); valid: ")
