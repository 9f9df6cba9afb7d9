"""``grasp-monitor batch``: sweep files checked at the edge, trials on three backends, resume."""

import json
import math

from grasp_monitor.app.batch import (
    read_table, run_batch, run_trial, Sweep, TIMING_COLUMNS, Trial)
from grasp_monitor.app.batch.trial_log import TrialLog
from grasp_monitor.cli import main
from grasp_monitor.core.errors import ConfigError
import pyarrow.csv
import pytest
import yaml

#: Long enough for contact (~1.1 s) and the grasp (~1.5 s) of config/pick_lift.yaml.
TINY = {'scenario': 'pick_lift', 'duration': 2.5, 'list': [
    {'object_mass_kg': 0.1, 'friction': 0.5},
    {'object_mass_kg': 0.3, 'grasp_controller.grip_force': 8},
    {'object_kind': 'sphere', 'seed': 3},
]}


def write(tmp_path, spec, name='sweep.yaml'):
    """Write a sweep file; return its path."""
    path = tmp_path / name
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def results(rows):
    """Return each row without its timing, as exact text (NaN equals NaN, every bit counts).

    A column another trial has and this one lacks is null in the table, absent in a row.
    """
    return [json.dumps({k: v for k, v in row.items() if k not in TIMING_COLUMNS
                        and v is not None},
                       sort_keys=True) for row in rows]


def test_a_grid_is_the_product_of_its_lists_with_the_fixed_values_in_every_trial(tmp_path):
    sweep = Sweep.from_file(write(tmp_path, {
        'scenario': 'pick_lift', 'duration': 1, 'fixed': {'iterations': 50},
        'grid': {'object_mass_kg': [0.1, 0.3], 'seed': [0, 1, 2]}}))
    assert sweep.names == ('object_mass_kg', 'seed')
    assert [dict(t.values) for t in sweep.trials][:4] == [
        {'iterations': 50, 'object_mass_kg': 0.1, 'seed': 0},
        {'iterations': 50, 'object_mass_kg': 0.1, 'seed': 1},
        {'iterations': 50, 'object_mass_kg': 0.1, 'seed': 2},
        {'iterations': 50, 'object_mass_kg': 0.3, 'seed': 0}]
    assert len(sweep.trials) == 6 and len({t.key for t in sweep.trials}) == 6


def test_random_draws_repeat_with_their_seed_and_stay_in_their_ranges(tmp_path):
    spec = {'scenario': 'pick_lift', 'duration': 1, 'random': {
        'n': 20, 'seed': 7, 'uniform': {'object_mass_kg': [0.05, 0.5], 'seed': [0, 9]},
        'choice': {'object_kind': ['box', 'sphere']}}}
    first, again = (Sweep.from_file(write(tmp_path, spec)) for _ in range(2))
    assert first.trials == again.trials
    values = [dict(t.values) for t in first.trials]
    assert all(0.05 <= v['object_mass_kg'] <= 0.5 for v in values)
    assert {type(v['seed']) for v in values} == {int}
    assert all(0 <= v['seed'] <= 9 for v in values)
    assert {v['object_kind'] for v in values} == {'box', 'sphere'}
    spec['random']['seed'] = 8
    assert Sweep.from_file(write(tmp_path, spec)).trials != first.trials


@pytest.mark.parametrize('change, message', [
    ({'grid': {'object_mas_kg': [0.1]}},
     "'object_mas_kg' is no parameter of scenario pick_lift (did you mean 'object_mass_kg'?)"),
    ({'grid': {'object_mass_kg': [0.1, -1]}},
     "grid.object_mass_kg: object_mass_kg=-1: parameter 'object_mass_kg' of scenario "
     'pick_lift must be in [0.001, 100.0], got -1.0'),
    ({'grid': {'friction': [1.0, 0]}}, 'grid.friction: friction=0: friction must be > 0'),
    ({'grid': {'cone': ['elliptic', 'round']}},
     "cone 'round' is not one of pyramidal, elliptic"),
    ({'grid': {'grasp_controller.grip_forse': [5.0]}},
     "grasp_controller has no parameter 'grip_forse' (did you mean 'grip_force'?)"),
    ({'grid': {'grasp_controller.grip_force': ['strong']}},
     "grasp_controller.grip_force: 'strong' is not a double"),
    ({'list': [{'timestep_s': 0.01, 'solref': [0.005, 1.0]}]}, 'list[0]: solref'),
    ({'random': {'n': 0, 'seed': 0, 'uniform': {'object_mass_kg': [0.1, 0.2]}}},
     'random.n must be an integer >= 1, got 0'),
    ({'random': {'n': 3, 'seed': 0, 'uniform': {'object_mass_kg': [0.2, 0.1]}}},
     'random.uniform.object_mass_kg must be [low, high] with low <= high'),
    ({'grid': {'seed': [0]}, 'list': [{}]}, 'give exactly one of grid, list, random; '
     'got grid, list'),
    ({'grid': {'seed': [0]}, 'duration': 0}, 'duration 0 must be a number of simulated'),
    ({'grid': {'seed': [0]}, 'duration': '3 s'}, 'duration 3 s must be a number of simulated'),
    ({'grid': {'seed': [0]}, 'continue_after_end': 'yes'},
     'continue_after_end yes must be true or false'),
    ({'grid': {'seed': [0]}, 'scenario': 'pick'}, "scenario 'pick' is not one of pick_lift"),
    ({'grid': {'seed': [0]}, 'repeat': 2}, "unknown key 'repeat'; valid: scenario"),
])
def test_a_bad_sweep_is_refused_naming_what_was_written_and_what_is_valid(
        tmp_path, capsys, change, message):
    spec = {'scenario': 'pick_lift', 'duration': 1.0} | change
    path = write(tmp_path, spec)
    with pytest.raises(ConfigError, match='^' + str(path)) as error:
        Sweep.from_file(path)
    assert message in str(error.value)
    assert main(['batch', str(path), '--output-dir', str(tmp_path / 'out')]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / 'out').exists()


def test_a_sweep_without_duration_takes_the_scenarios_and_one_without_scenario_says_so(
        tmp_path):
    sweep = Sweep.from_file(write(tmp_path, {'scenario': 'pick_lift', 'grid': {'seed': [0]}}))
    assert [trial.duration_s for trial in sweep.trials] == [None]
    path = write(tmp_path, {'grid': {'seed': [0]}})
    with pytest.raises(ConfigError, match='scenario is missing; valid: pick_lift'):
        Sweep.from_file(path)


def test_a_trial_is_what_grasp_monitor_run_computes(tmp_path):
    trial = Sweep.from_file(write(tmp_path, TINY)).trials[1]
    row = run_trial(trial)
    assert row['object_mass_kg'] == 0.3 and row['grasp_controller.grip_force'] == 8.0
    assert row['events'].split() == ['contact', 'grasp', 'trial_end']
    assert 1.0 < row['contact_time_s'] < row['grasp_time_s'] < 2.5
    assert math.isnan(row['slip_out_time_s'])
    assert row['reward'] > 4 and row['basis'] == 'contacts'
    assert {'criterion_force', 'criterion_epsilon', 'epsilon_at_grasp', 'peak_energy_j',
            'finger_left_peak_force_n', 'object_z_m'} <= set(row)


def test_a_sweep_takes_the_realism_settings_by_their_parameter_names(tmp_path):
    # the monitor reads the taxels (as on hardware); the sensors' presets are swept
    sweep = Sweep.from_file(write(tmp_path, {
        'scenario': 'pick_lift', 'duration': 1.5,
        'fixed': {'grasp_monitor.contacts': '', 'grasp_metrics.contacts': '',
                  'tactile_sensor.realism.seed': 4},
        'list': [{}, {'tactile_sensor.realism.preset': 'ideal',
                      'mujoco_sim.realism.preset': 'ideal'},
                 {'tactile_sensor.realism.preset': 'typical',
                  'mujoco_sim.realism.preset': 'typical',
                  'tactile_sensor.realism.tactile.latency_s': 0.01}]}))
    plain, ideal, typical = (run_trial(trial) for trial in sweep.trials)
    assert typical['tactile_sensor.realism.preset'] == 'typical'
    # ideal is off: the very trial without the settings
    drop = ('tactile_sensor.realism.preset', 'mujoco_sim.realism.preset', 'key')
    assert results([{k: v for k, v in ideal.items() if k not in drop}]) == results(
        [{k: v for k, v in plain.items() if k != 'key'}])
    assert 1.0 < plain['contact_time_s'] < 1.5
    # what the monitor read changed: its contact comes from noisy, offset, late clouds
    assert typical['contact_time_s'] != plain['contact_time_s']


@pytest.fixture(scope='module')
def serial(tmp_path_factory):
    """Run the tiny sweep here, one trial after the other."""
    path = write(tmp_path_factory.mktemp('sweep'), TINY)
    output = path.parent / 'serial'
    return path, output, run_batch(Sweep.from_file(path), output, 'serial', progress=None)


def test_serial_processes_and_ray_give_the_same_rows_to_the_bit(serial, tmp_path):
    path, _, first = serial
    sweep = Sweep.from_file(path)
    in_processes = run_batch(sweep, tmp_path / 'process', 'process', jobs=2, progress=None)
    on_ray = run_batch(sweep, tmp_path / 'ray', 'ray', jobs=2, progress=None)
    assert len(first.rows) == 3 and first.ran == 3
    assert results(in_processes.rows) == results(first.rows)
    assert results(on_ray.rows) == results(first.rows)


def test_the_table_holds_every_value_and_result_in_parquet_and_csv(serial):
    _, output, batch = serial
    rows = read_table(output / 'results.parquet')
    assert results(rows) == results(batch.rows)
    assert [row['trial'] for row in rows] == [0, 1, 2]
    assert [row['object_kind'] for row in rows] == [None, None, 'sphere']
    csv = pyarrow.csv.read_csv(output / 'results.csv').to_pylist()
    assert [row['reward'] for row in csv] == [row['reward'] for row in rows]
    assert (output / 'summary.png').read_bytes()[:4] == b'\x89PNG'
    assert (output / 'sweep.yaml').is_file()


def test_a_resumed_sweep_runs_only_the_missing_trials_and_writes_the_same_table(
        serial, tmp_path):
    path, output, first = serial
    log = (output / 'trials.jsonl').read_text().splitlines()
    resumed = tmp_path / 'resumed'
    resumed.mkdir()
    # two trials finished, the third cut short by a kill mid-line
    (resumed / 'trials.jsonl').write_text('\n'.join(log[:2]) + '\n' + log[2][:40])
    again = run_batch(Sweep.from_file(path), resumed, 'serial', progress=None)
    assert again.ran == 1
    assert results(again.rows) == results(first.rows)
    assert len(TrialLog(resumed / 'trials.jsonl').rows()) == 3
    assert run_batch(Sweep.from_file(path), resumed, 'serial', progress=None).ran == 0


def test_the_command_prints_progress_and_what_it_wrote(serial, tmp_path, capsys):
    path, _, _ = serial
    spec = dict(TINY, list=TINY['list'][:1])
    assert main(['batch', str(write(tmp_path, spec)), '--output-dir', str(tmp_path / 'out'),
                 '--backend', 'serial']) == 0
    captured = capsys.readouterr()
    assert '[1/1] object_mass_kg=0.1 friction=0.5: contact grasp trial_end, reward' in \
        captured.err and '; eta ' in captured.err
    assert captured.out.startswith('1 trials (1 run now,')
    assert 'results.parquet' in captured.out


def test_an_address_without_ray_is_refused(tmp_path, capsys):
    path = write(tmp_path, TINY)
    assert main(['batch', str(path), '--output-dir', str(tmp_path / 'o'), '--address',
                 'auto']) == 2
    assert '--address auto joins a Ray cluster: use it with --backend ray' in \
        capsys.readouterr().err


def test_a_trial_key_is_every_value_that_sets_it():
    one = Trial('pick_lift', '', 2.0, (('seed', 1), ('friction', 0.5)))
    assert one.key == Trial('pick_lift', '', 2.0, (('friction', 0.5), ('seed', 1))).key
    assert one.key != Trial('pick_lift', '', 2.5, one.values).key
