"""The grasp benchmark: sensor plumbing, per-step energies, failure, and the command's files."""

import csv
import dataclasses
import math
import multiprocessing
import os
import struct

from grasp_monitor.cli import main
from grasp_monitor.core.energy import EnergyTracker, EnergyTrackerConfig
from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.threads import single_threaded_children
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.grasp_benchmark import (
    BenchmarkCase, CSV_COLUMNS, FrameHistory, MUJOCO_DEFAULTS, PRESETS, run_benchmark, run_case,
    split_frame_sensors, steps_per_call)
import grasp_monitor.sim.grasp_benchmark.run as benchmark_run
import mujoco
import numpy as np
import pytest

G = 9.8
THRESHOLD_J = 1e7
# MuJoCo's defaults but the cone: the elliptic cone holds a few cubes at μ = 100.
ELLIPTIC = dataclasses.replace(MUJOCO_DEFAULTS, friction=100.0, cone='elliptic')
# A 1 kg cube falling from rest away from still grippers reaches 1e7 J when its drop plus
# one step of its speed is dt·sqrt(2E/m) = 4.472 m: ½ g t² + g t dt = 4.472 m at t = 0.954 s.
FREE_FALL_FAILURE_S = (-1e-3 + math.sqrt(1e-6 + 2 * 1e-3 * math.sqrt(2 * THRESHOLD_J) / G))


def body_ids(model, names):
    return [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name) for name in names]


@pytest.mark.parametrize('case', [BenchmarkCase('multi_block', ELLIPTIC, n_cubes=3),
                                  BenchmarkCase('industrial_arm', ELLIPTIC)],
                         ids=['multi_block', 'industrial_arm'])
def test_frame_sensors_hold_the_state_each_step_started_from(case):
    sim = Simulator(case.build_scene(), command_timeout_s=0.0)
    model, data = sim.model, sim.data
    bodies = sim.scene.objects + sim.scene.pads
    ids = body_ids(model, bodies)
    # The objects' and pads' inertial frames are their body frames, so the metric's
    # centre-of-mass state is the body state, and body_inertia is the inertia in body axes.
    assert np.all(model.body_ipos[ids] == 0.0)
    assert np.all(model.body_iquat[ids] == [1.0, 0.0, 0.0, 0.0])
    cube = sim.scene.objects[0]
    edge_m = 0.1 if case.scenario == 'multi_block' else 0.05
    mass_kg = model.body_mass[ids[0]]
    np.testing.assert_allclose(model.body_inertia[ids[0]], [mass_kg * edge_m ** 2 / 6] * 3,
                               rtol=1e-12, err_msg=cube)
    sim.step(50)
    # The state before the next step, as mj_objectVelocity reports it ([angular, linear]).
    mujoco.mj_forward(model, data)
    expected = []
    twist = np.zeros(6)
    for body in ids:
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, body, twist, 0)
        expected.append((data.xipos[body].copy(), data.xquat[body].copy(), twist[3:].copy(),
                         twist[:3].copy()))
    sim.step(1)
    fields = split_frame_sensors(data.sensordata[None], len(sim.scene.objects))
    k = len(sim.scene.objects)
    for row, (position, quaternion, linear, angular) in enumerate(expected):
        part = 0 if row < k else 4
        index = row if row < k else row - k
        np.testing.assert_allclose(fields[part][0, index], position, atol=1e-12)
        assert abs(fields[part + 1][0, index] @ quaternion) == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(fields[part + 2][0, index], linear, atol=1e-9)
        np.testing.assert_allclose(fields[part + 3][0, index], angular, atol=1e-9)
    # Not the state the step ended in (free joint qpos): the cubes have moved since.
    after = [data.qpos[model.jnt_qposadr[model.body_jntadr[body]]:][:3] for body in ids[:k]]
    assert np.abs(fields[0][0] - after).max() > 1e-9


def test_every_step_is_scored_as_a_per_step_tracker_fed_with_body_states_would_score_it():
    case = BenchmarkCase('multi_block', ELLIPTIC, n_cubes=3, duration_s=0.3, block_s=0.1)
    run = run_case(case)
    # The same trial, stepped again without sensors; body origins are the centres of mass.
    sim = Simulator(case.build_scene(sensors=False), command_timeout_s=0.0)
    objects = body_ids(sim.model, sim.scene.objects)
    tracker = EnergyTracker(EnergyTrackerConfig(
        sim.scene.objects, sim.model.body_mass[objects], sim.model.body_inertia[objects],
        gripper_names=sim.scene.pads, dt_s=sim.timestep_s))
    worst = []
    for step in range(300):
        # After mj_step, MuJoCo's poses and velocities are those the step started from.
        sim.step(1)
        bodies = sim.body_arrays()
        rows = [bodies.names.index(name) for name in sim.scene.objects + sim.scene.pads]
        arrays = [getattr(bodies, field)[rows] for field in (
            'position', 'quaternion', 'linear_velocity', 'angular_velocity')]
        sample = tracker.update_arrays(step * sim.timestep_s, *(a[:3] for a in arrays),
                                       *(a[3:] for a in arrays))
        worst.append(sample.max_energy_j)
    windows = np.array(worst).reshape(30, 10).max(axis=1)
    assert run.result == 'held' and run.steps == 300
    np.testing.assert_allclose(run.series_time_s, 0.01 * np.arange(30), atol=1e-12)
    np.testing.assert_allclose(run.series_energy_j, windows, rtol=1e-9)
    assert run.peak_energy_j == pytest.approx(max(worst), rel=1e-9)
    assert run.final_energy_j == pytest.approx(worst[-1], rel=1e-9)
    # The cubes sag into the soft contacts: real energy, far below the threshold.
    assert 10.0 < run.peak_energy_j < 1e3


def test_a_failed_run_stops_at_the_failing_step_and_reports_it():
    pyramidal = dataclasses.replace(MUJOCO_DEFAULTS, friction=100.0)
    case = BenchmarkCase('multi_block', pyramidal, n_cubes=1, duration_s=3.0)
    run = run_case(case)
    assert run.failed and not run.diverged and run.result == 'failed'
    # The pyramidal cone lets the grippers through: the cube falls as if never held.
    assert run.termination_time_s == pytest.approx(FREE_FALL_FAILURE_S, abs=0.01)
    # Stepping ends with the block (2 s) in which it failed; results end at the failure.
    assert run.steps == case.block_steps == 2000
    assert run.final_energy_j > THRESHOLD_J and run.peak_energy_j == run.final_energy_j
    assert run.peak_time_s == run.termination_time_s
    assert run.series_time_s[-1] <= run.termination_time_s < run.series_time_s[-1] + 0.01
    assert run.series_energy_j[-1] == run.final_energy_j
    # The energy of a falling cube only grows once it has left the grippers.
    late = run.series_energy_j[run.series_time_s > 0.3]
    assert np.all(np.diff(late) > 0)


def test_the_sensors_history_holds_what_a_copy_of_sensordata_per_step_would():
    case = BenchmarkCase('multi_block', ELLIPTIC, n_cubes=2, block_s=0.05)
    sim = Simulator(case.build_scene(), command_timeout_s=0.0)
    frames = FrameHistory(sim.model, sim.data.history, 2)
    assert frames.nsample == 50
    copies = []
    for _ in range(120):  # more than the buffer keeps: it wraps around
        sim.step(1)
        copies.append(sim.data.sensordata[-13 * 4:].copy())
    times = np.arange(120) * sim.timestep_s
    # The whole ring (across its end), the newest few, and older ones before the newest.
    for kept in (slice(-50, None), slice(-7, None), slice(-1, None), slice(-30, -20),
                 slice(-50, -45)):
        expected = split_frame_sensors(np.array(copies[kept]), 2)
        for got, want in zip(frames.read(times[kept]), expected, strict=True):
            np.testing.assert_array_equal(got, want)
    # Samples no longer kept, or never taken, are refused, not invented.
    for missing in (times[-51:], times[:3], times[-3:] + 1.0, times[:0]):
        with pytest.raises(SimulationError, match='hold no samples of t = '):
            frames.read(missing)
    plain = Simulator(BenchmarkCase('multi_block', ELLIPTIC).build_scene(sensors=False))
    with pytest.raises(ConfigError, match='nsample > 0'):
        FrameHistory(plain.model, plain.data.history, 1)


@pytest.mark.parametrize('per_call', [500, 100, 1])
def test_a_diverged_run_fails_at_the_step_and_keeps_the_samples_before_it(
        monkeypatch, per_call):
    case = BenchmarkCase('multi_block', ELLIPTIC, n_cubes=1, duration_s=1.0, block_s=0.5)
    kick_s = 0.721

    class Kicked(Simulator):
        """The real simulator, with a force no solver survives from ``kick_s`` on."""

        def step(self, nstep=1):
            before = round((kick_s - self.time_s) / self.timestep_s)
            if 0 < before < nstep:  # a call of many steps: the force comes in its middle
                return super().step(before) and self.step(nstep - before)
            if self.time_s >= kick_s - 1e-9:
                self.set_external_force(self.scene.objects[0], np.array([0.0, 0.0, 1e15]))
            return super().step(nstep)

    calm = run_case(case)
    # The constant squeeze is stepped a block (500 steps) per call: the divergence is found
    # in the call from 0.5 s, then dated by taking those steps one at a time. With 100 per
    # call, the steps from 0.5 to 0.7 s come from the history and the rest are taken again.
    assert steps_per_call(case.build_scene(), 1e-3, 500) == 500
    monkeypatch.setattr(benchmark_run, 'steps_per_call', lambda scene, dt, limit: per_call)
    monkeypatch.setattr(benchmark_run, 'Simulator', Kicked)
    run = run_case(case)
    assert run.diverged and run.failed and run.result == 'diverged'
    # The step from 0.721 s diverged: the run ends there, every earlier step scored.
    assert run.termination_time_s == pytest.approx(0.721, abs=1e-9)
    assert run.steps == 722
    scored = calm.series_time_s < 0.72
    np.testing.assert_array_equal(run.series_time_s, calm.series_time_s[:run.series_time_s.size])
    np.testing.assert_array_equal(run.series_energy_j[scored[:run.series_energy_j.size]],
                                  calm.series_energy_j[scored])
    assert run.final_energy_j < THRESHOLD_J


def read_csv(path):
    with path.open() as stream:
        return list(csv.DictReader(stream))


def table_rows(path):
    return [[cell.strip() for cell in line.strip().strip('|').split('|')]
            for line in path.read_text().splitlines()
            if line.startswith('| multi_block') or line.startswith('| industrial_arm')]


def png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b'\x89PNG\r\n\x1a\n' and header[12:16] == b'IHDR'
    return struct.unpack('>II', header[16:24])


def test_the_command_writes_a_csv_a_table_and_a_plot_that_read_back(tmp_path, capsys):
    failing = tmp_path / 'pyramidal'
    holding = tmp_path / 'elliptic'
    common = ['--cubes', '1', '3', '--duration', '2', '--jobs', '2', '--quiet']
    assert main(['benchmark', 'multi-block', *common, '--output-dir', str(failing)]) == 0
    assert main(['benchmark', 'multi-block', *common, '--friction', '100', '--cone', 'elliptic',
                 '--output-dir', str(holding)]) == 0
    assert 'multi_block | 3 | 100 | held' in capsys.readouterr().out
    rows = read_csv(failing / 'multi_block.csv')
    assert [(r['n_cubes'], float(r['friction'])) for r in rows] == [
        ('1', 100.0), ('3', 100.0), ('1', 1e8), ('3', 1e8)]
    assert list(rows[0]) == list(CSV_COLUMNS)
    for row in rows:
        # MuJoCo's defaults: pyramidal cone, Newton, 100 iterations, Euler, 1 ms.
        assert (row['cone'], row['solver'], row['iterations'], row['integrator'],
                row['timestep_s'], row['noslip_iterations'], row['impratio']) == (
            'pyramidal', 'Newton', '100', 'Euler', '0.001', '0', '1.0')
        assert row['result'] == 'failed'
        failure_s = float(row['time_to_termination_s'])
        assert failure_s == pytest.approx(FREE_FALL_FAILURE_S, abs=0.01)
        for column in ('peak_energy_j', 'final_energy_j', 'wall_time_s', 'real_time_factor'):
            assert math.isfinite(float(row[column])) and float(row[column]) >= 0.0
        assert float(row['peak_energy_j']) > THRESHOLD_J
    held = read_csv(holding / 'multi_block.csv')
    assert [(r['n_cubes'], r['cone'], r['result']) for r in held] == [
        ('1', 'elliptic', 'held'), ('3', 'elliptic', 'held')]
    for row in held:
        assert float(row['time_to_termination_s']) == 2.0 and int(row['steps']) == 2000
        assert 0.0 <= float(row['final_energy_j']) <= float(row['peak_energy_j']) < 1e3
    # The Markdown table says the same, row for row.
    table = table_rows(failing / 'multi_block.md')
    assert [(r[1], r[2], r[3]) for r in table] == [
        ('1', '100', 'failed'), ('3', '100', 'failed'), ('1', '1e+08', 'failed'),
        ('3', '1e+08', 'failed')]
    for cells, row in zip(table, rows):
        assert float(cells[4]) == pytest.approx(float(row['time_to_termination_s']), abs=1e-3)
        assert float(cells[5]) == pytest.approx(float(row['peak_energy_j']), rel=1e-2)
    report = (holding / 'multi_block.md').read_text()
    assert 'cone elliptic, solver Newton, iterations 100' in report
    assert ('grasp-monitor benchmark multi-block --cubes 1 3 --duration 2 --jobs 2 --quiet '
            '--friction 100 --cone elliptic') in report
    # A plot per command: two friction panels, or one.
    wide, tall = png_size(failing / 'multi_block.png')
    assert wide > 1.8 * tall and tall > 300
    narrow, _ = png_size(holding / 'multi_block.png')
    assert narrow < wide


def test_the_arm_holds_its_cube_for_a_second(tmp_path):
    assert main(['benchmark', 'industrial-arm', '--duration', '1', '--jobs', '1', '--quiet',
                 '--output-dir', str(tmp_path)]) == 0
    [row] = read_csv(tmp_path / 'industrial_arm.csv')
    assert (row['scenario'], row['n_cubes'], float(row['friction']), row['result']) == (
        'industrial_arm', '1', 1.0, 'held')
    assert 0.0 < float(row['peak_energy_j']) < 1e3 and int(row['steps']) == 1000
    assert png_size(tmp_path / 'industrial_arm.png')[0] > 0


@pytest.mark.parametrize('argv, message', [
    (['--cubes', '12'], 'n_cubes must be in 1..11, got 12'),
    (['--duration', '0'], 'duration_s must be finite and > 0, got 0.0'),
    (['--impratio', '0.5'], '--impratio 0.5: impratio must be >= 1, got 0.5'),
    (['--solref', '0.001', '1'], '--solref 0.001 1: solref time constant 0.001 s is below 2 '
     'physics steps (0.002 s at timestep_s 0.001), the stiffest MuJoCo resolves; use at least '
     'that'),
    (['--preset', 'stable', '--solimp', '0.9', '0.95'], '--solimp 0.9 0.95: solimp must be '
     '(dmin, dmax, width m, midpoint, power) with dmin and dmax in [0.0001, 0.9999], width > '
     '0, midpoint in (0, 1) and power >= 1 (or the first three), got [0.9, 0.95]'),
    (['--tolerance', '-1'], '--tolerance -1: tolerance must be in [0, 1), got -1.0'),
])
def test_invalid_options_exit_2_with_the_reason(argv, message, tmp_path, capsys):
    assert main(['benchmark', 'multi-block', *argv, '--output-dir', str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().endswith(message)
    assert not list(tmp_path.iterdir())


def test_an_unknown_preset_is_refused_with_the_valid_ones(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(['benchmark', 'multi-block', '--preset', 'fast'])
    assert exit_info.value.code == 2
    assert "argument --preset: invalid choice: 'fast' (choose from 'benchmark', 'mujoco', " \
        "'stable')" in capsys.readouterr().err


def model_of(case):
    return mujoco.MjModel.from_xml_string(case.build_scene(sensors=False).mjcf)


def grasp_geom_settings(model, names):
    ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name) for name in names]
    return model.geom_solref[ids].tolist(), model.geom_solimp[ids].tolist()


def test_each_preset_sets_what_it_says_in_the_compiled_scenes():
    arm_geoms, block_geoms = ('finger_left', 'cube'), ('gripper_left', 'cube_0')
    mujoco_imp = [0.9, 0.95, 0.001, 0.5, 2.0]
    expected = {  # preset: cone, impratio, arm's cube joint, arm solref, blocks' solref
        'benchmark': ('pyramidal', 1.0, mujoco.mjtJoint.mjJNT_FREE, [0.002, 1.0], [0.02, 1.0],
                      mujoco_imp),
        'mujoco': ('pyramidal', 1.0, mujoco.mjtJoint.mjJNT_FREE, [0.02, 1.0], [0.02, 1.0],
                   mujoco_imp),
        'stable': ('elliptic', 10.0, mujoco.mjtJoint.mjJNT_SLIDE, [0.002, 1.0], [0.002, 1.0],
                   [0.9999, 0.9999, 0.001, 0.5, 2.0]),
    }
    for name, (cone, impratio, joint, arm_solref, block_solref, solimp) in expected.items():
        preset = PRESETS[name]
        arm = model_of(BenchmarkCase('industrial_arm', preset.settings,
                                     params=preset.scene_params('industrial_arm')))
        blocks = model_of(BenchmarkCase('multi_block', dataclasses.replace(
            preset.settings, friction=100.0), params=preset.scene_params('multi_block')))
        for model in (arm, blocks):
            assert model.opt.timestep == 0.001, name
            assert model.opt.cone == getattr(mujoco.mjtCone, f'mjCONE_{cone.upper()}'), name
            assert model.opt.impratio == impratio and model.opt.noslip_iterations == 0, name
            assert model.opt.integrator == mujoco.mjtIntegrator.mjINT_EULER, name
            assert (model.opt.tolerance, model.opt.noslip_tolerance) == (1e-8, 1e-6), name
        cube = mujoco.mj_name2id(arm, mujoco.mjtObj.mjOBJ_BODY, 'cube')
        assert arm.jnt_type[arm.body_jntadr[cube]] == joint, name
        assert grasp_geom_settings(arm, arm_geoms) == ([arm_solref] * 2, [solimp] * 2), name
        assert grasp_geom_settings(blocks, block_geoms) == ([block_solref] * 2,
                                                            [solimp] * 2), name


def test_the_command_takes_the_presets_settings_and_an_option_over_them(tmp_path):
    def row(*argv):
        output = tmp_path / '_'.join(argv)
        assert main(['benchmark', 'industrial-arm', *argv, '--duration', '0.05', '--jobs', '1',
                     '--quiet', '--output-dir', str(output)]) == 0
        [row] = read_csv(output / 'industrial_arm.csv')
        return {key: row[key] for key in ('cone', 'impratio', 'integrator', 'noslip_iterations',
                                          'solref', 'solimp', 'params')}

    assert row() == row('--preset', 'benchmark') == {
        'cone': 'pyramidal', 'impratio': '1.0', 'integrator': 'Euler', 'noslip_iterations': '0',
        'solref': '', 'solimp': '', 'params': ''}
    assert row('--preset', 'mujoco') == {
        'cone': 'pyramidal', 'impratio': '1.0', 'integrator': 'Euler', 'noslip_iterations': '0',
        'solref': '0.02 1', 'solimp': '0.9 0.95 0.001 0.5 2', 'params': ''}
    assert row('--preset', 'stable') == {
        'cone': 'elliptic', 'impratio': '10.0', 'integrator': 'Euler', 'noslip_iterations': '0',
        'solref': '0.002 1', 'solimp': '0.9999 0.9999 0.001 0.5 2', 'params': 'cube_joint=hand'}
    assert row('--preset', 'stable', '--impratio', '1', '--solref', '0.004', '1',
               '--cube-joint', 'free') == {
        'cone': 'elliptic', 'impratio': '1.0', 'integrator': 'Euler', 'noslip_iterations': '0',
        'solref': '0.004 1', 'solimp': '0.9999 0.9999 0.001 0.5 2', 'params': 'cube_joint=free'}


def test_the_stable_preset_holds_eleven_cubes_where_the_default_drops_them():
    default, stable = (
        run_case(BenchmarkCase('multi_block', dataclasses.replace(PRESETS[name].settings,
                                                                  friction=100.0),
                               n_cubes=11, duration_s=2.0))
        for name in ('benchmark', 'stable'))
    assert default.failed and default.termination_time_s < 1.0
    assert stable.result == 'held' and stable.termination_time_s == 2.0
    assert stable.peak_energy_j < 100.0 and stable.final_energy_j < 1.0


def test_a_rerun_gives_identical_energies_in_this_process_and_in_workers():
    # Every step its own series interval: the series holds every step's energy.
    cases = [BenchmarkCase(scenario, dataclasses.replace(PRESETS['stable'].settings,
                                                         friction=friction),
                           n_cubes=n, duration_s=0.3, series_interval_s=0.001,
                           params=PRESETS['stable'].scene_params(scenario))
             for scenario, friction, n in (('multi_block', 100.0, 11),
                                           ('industrial_arm', 1.0, 1))]
    first = [run_case(case) for case in cases]
    again = [run_case(case) for case in cases]
    in_workers = run_benchmark(cases, jobs=2, progress=False)
    for runs in (again, in_workers):
        for run, reference in zip(runs, first, strict=True):
            assert run.steps == reference.steps == 300
            assert run.series_energy_j.size == 300 and run.series_energy_j.max() > 0.0
            np.testing.assert_array_equal(run.series_energy_j, reference.series_energy_j)
            assert (run.peak_energy_j, run.final_energy_j) == (
                reference.peak_energy_j, reference.final_energy_j)


def test_cube_ranges_and_lists_parse():
    from grasp_monitor.cli import build_parser
    args = build_parser().parse_args(['benchmark', 'multi-block', '--cubes', '1-3,5', '9'])
    assert args.cubes == [[1, 2, 3, 5], [9]]
    with pytest.raises(SystemExit):
        build_parser().parse_args(['benchmark', 'multi-block', '--cubes', 'x'])


def _blas_threads_setting():
    return os.environ.get('OPENBLAS_NUM_THREADS')


def test_benchmark_workers_start_with_one_blas_thread_unless_the_user_says(monkeypatch):
    monkeypatch.delenv('OPENBLAS_NUM_THREADS', raising=False)
    monkeypatch.setenv('MKL_NUM_THREADS', '4')
    context = multiprocessing.get_context('spawn')
    with single_threaded_children():
        with context.Pool(1) as pool:
            assert pool.apply(_blas_threads_setting) == '1'
        assert os.environ['MKL_NUM_THREADS'] == '4'  # the user's own setting stays
    assert 'OPENBLAS_NUM_THREADS' not in os.environ and os.environ['MKL_NUM_THREADS'] == '4'
