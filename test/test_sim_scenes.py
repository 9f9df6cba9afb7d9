"""Scenario geometry read back from the compiled model; backend stepping and determinism."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import servo_torque, ServoCommand
from grasp_monitor.core.servo.backend import ServoBackend
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
import mujoco
import numpy as np
import pytest


def body(model, name):
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)


@pytest.mark.parametrize('n', [1, 3, 11])
def test_multi_block_geometry_matches_the_benchmark(n):
    scene = build_scene('multi_block', n_cubes=n)
    model = mujoco.MjModel.from_xml_string(scene.mjcf)
    assert scene.objects == tuple(f'cube_{i}' for i in range(n))
    assert model.opt.timestep == 0.001 and tuple(model.opt.gravity) == (0, 0, -9.8)
    for i in range(n):
        b = body(model, f'cube_{i}')
        geom = model.body_geomadr[b]
        assert model.body_mass[b] == pytest.approx(1.0)
        assert model.geom_size[geom].tolist() == pytest.approx([0.05] * 3)
        assert model.geom_friction[geom][0] == 100.0
        # a row along y at 0.1 m spacing, centred, at z = 0.5
        assert model.body_pos[b].tolist() == pytest.approx([0, -0.05 * n + 0.05 + 0.1 * i, 0.5])
    for side, sign in (('left', 1), ('right', -1)):
        b = body(model, f'gripper_{side}')
        assert model.body_mass[b] == pytest.approx(1.0)
        assert (2 * model.geom_size[model.body_geomadr[b]]).tolist() == pytest.approx(
            [0.2, 0.1, 0.2])
        assert model.body_pos[b][1] == pytest.approx(sign * (0.05 * n + 0.05))
        joint = model.body_jntadr[b]
        assert model.jnt_range[joint].tolist() == pytest.approx([-0.05 * n, 0.05 * n])
    assert scene.drive(0.0).feedforward_torque.tolist() == [100.0 * n] * 2
    no_ground = [model.geom_type[g] != mujoco.mjtGeom.mjGEOM_PLANE for g in range(model.ngeom)]
    assert all(no_ground)


@pytest.mark.parametrize('name, params, grasp_geoms', [
    ('multi_block', {'n_cubes': 2}, ('cube_0', 'cube_1', 'gripper_left', 'gripper_right')),
    ('pick_lift', {}, ('object', 'finger_left_pad', 'finger_right_pad', 'table')),
])
def test_contact_softness_reaches_the_grasp_geoms_and_defaults_to_mujocos(
        name, params, grasp_geoms):
    def geoms(settings):
        model = mujoco.MjModel.from_xml_string(build_scene(name, settings, **params).mjcf)
        ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, g) for g in grasp_geoms]
        return model.geom_solref[ids].tolist(), model.geom_solimp[ids].tolist()

    # the scene's own softness: MuJoCo's default
    assert geoms({}) == ([[0.02, 1.0]] * 4, [[0.9, 0.95, 0.001, 0.5, 2.0]] * 4)
    # MJCF's text or numbers; three solimp values take MuJoCo's midpoint and power
    assert geoms({'solref': '0.004 0.7', 'solimp': [0.99, 0.999, 0.002]}) == (
        [[0.004, 0.7]] * 4, [[0.99, 0.999, 0.002, 0.5, 2.0]] * 4)
    model = mujoco.MjModel.from_xml_string(build_scene(
        name, {'tolerance': 1e-6, 'noslip_tolerance': 1e-4}, **params).mjcf)
    assert (model.opt.tolerance, model.opt.noslip_tolerance) == (1e-6, 1e-4)


@pytest.mark.parametrize('settings, message', [
    ({'solref': (0.001, 1.0)},
     r'^solref time constant 0\.001 s is below 2 physics steps \(0\.002 s at timestep_s 0\.001\)'
     r', the stiffest MuJoCo resolves; use at least that$'),
    ({'solref': (0.02,)}, r'^solref must be \(time constant s > 0, damping ratio > 0\), or '
     r'\(-stiffness < 0, -damping <= 0\), got \[0\.02\]$'),
    ({'solref': (0.02, -1.0)}, r'^solref must be .*, got \[0\.02, -1\.0\]$'),
    ({'solref': 'stiff'},
     r'^solref must be numbers, as in MJCF \("0\.02 1" or \[0\.02, 1\]\), got str \'stiff\'$'),
    ({'solimp': (0.9, 1.0, 0.001)}, r'^solimp must be \(dmin, dmax, width m, midpoint, power\) '
     r'with dmin and dmax in \[0\.0001, 0\.9999\], width > 0, midpoint in \(0, 1\) and '
     r'power >= 1 \(or the first three\), got \[0\.9, 1\.0, 0\.001\]$'),
    ({'solimp': (0.9, 0.95, 0.001, 0.5)},
     r'^solimp must be .*, got \[0\.9, 0\.95, 0\.001, 0\.5\]$'),
    ({'tolerance': -1e-9}, r'^tolerance must be in \[0, 1\), got -1e-09$'),
])
def test_bad_contact_settings_say_what_is_valid(settings, message):
    with pytest.raises(ConfigError, match=message):
        build_scene('multi_block', settings)


def test_a_time_constant_of_two_steps_is_accepted_at_any_step():
    scene = build_scene('multi_block', {'timestep_s': 0.0005, 'solref': (0.001, 1.0)})
    assert 'solref="0.001 1.0"' in scene.mjcf


def test_pick_lift_names_and_start_state():
    scene = build_scene('pick_lift')
    sim = Simulator(scene)
    assert scene.joints == ('lift', 'finger_left', 'finger_right')
    assert scene.pads == ('finger_left', 'finger_right') and scene.objects == ('object',)
    states = sim.joint_states()
    assert states.position.tolist() == pytest.approx([0.1, 0.0, 0.0])
    assert sim.body_mass_kg('object') == pytest.approx(0.2)
    bodies = sim.body_arrays()
    assert bodies.names == ('object', 'finger_left', 'finger_right')
    assert bodies.position[0].tolist() == pytest.approx([0, 0, 0.425])


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ConfigError, match="unknown scenario 'juggle'; valid scenarios: "
                                          'pick_lift, multi_block, industrial_arm'):
        build_scene('juggle')
    with pytest.raises(ConfigError, match=r"unknown physics setting 'gravity'; valid settings: "):
        build_scene('pick_lift', {'gravity': 0})
    with pytest.raises(ConfigError, match=r"scenario pick_lift has no parameter 'n_cubes'; its "
                                          r'parameters: object_kind, object_size_m, '):
        build_scene('pick_lift', n_cubes=3)
    with pytest.raises(ConfigError, match=r"^parameter 'n_cubes' of scenario multi_block must "
                                          r'be in \[1, 11\], got 12$'):
        build_scene('multi_block', n_cubes=12)
    with pytest.raises(ConfigError, match="cone 'round' is not one of pyramidal, elliptic"):
        build_scene('pick_lift', {'cone': 'round'})
    sim = Simulator(build_scene('pick_lift'))
    with pytest.raises(ConfigError, match="unknown body 'table_leg'; valid: world, table, base"):
        sim.set_external_force('table_leg', np.zeros(3))


def test_actuators_apply_exactly_the_servo_law():
    sim = Simulator(build_scene('pick_lift'), command_timeout_s=0)
    cmd = ServoCommand([0.05, math.nan, 0.01], [0.1, 0.0, -0.2], [9.0, 2.0, 0.5],
                       [0.8, 0.0, 1.0], [1.0, 0.3, 0.5], [60.0, 20.0, 1.5])
    sim.set_command(cmd)
    efforts = []
    for _ in range(50):
        before = sim.joint_states()
        sim.step(1)
        expected = servo_torque(sim.servos.config.kp, sim.servos.config.kd, cmd,
                                before.position, before.velocity)
        np.testing.assert_allclose(sim.joint_states().effort, expected, rtol=1e-12, atol=1e-12)
        efforts.append(sim.joint_states().effort)
    # first step: 0.5 + 300 * 0.01 + 10 * 0.5 * -0.2 = 2.5, clamped to 1.5
    assert efforts[0][2] == 1.5


def test_same_settings_same_trajectory():
    def run():
        scene = build_scene('pick_lift')
        sim = Simulator(scene, command_timeout_s=0, drive=default_drive(scene))
        for _ in range(500):
            sim.step(4)
        return sim.data.qpos.copy()

    assert np.array_equal(run(), run())


def test_reset_returns_to_the_start_and_stops_the_servos():
    sim = Simulator(build_scene('pick_lift'), command_timeout_s=0)
    start = sim.data.qpos.copy()
    sim.set_command(ServoCommand.from_named(sim.servos.config, ['lift'], {'position': [0.0]}))
    sim.step(200)
    assert not np.array_equal(sim.data.qpos, start)
    sim.reset()
    assert sim.time_s == 0.0 and np.array_equal(sim.data.qpos, start)
    assert sim.servos.received is None


def test_the_simulator_offers_the_servo_backend_interface():
    sim = Simulator(build_scene('pick_lift'), command_timeout_s=0)
    assert isinstance(sim, ServoBackend) and sim.joints == sim.scene.joints
    assert sim.servo_config is sim.servos.config and sim.command is None
    command = ServoCommand.from_named(sim.servo_config, ['lift'], {'position': [0.0]})
    assert sim.set_command(command) is None and sim.command is command
    assert sim.joint_states().names == sim.scene.joints
    assert sim.servo_observation().position.tolist() == sim.joint_states().position.tolist()
    sim.close()


def test_divergence_is_detected_and_reported():
    sim = Simulator(build_scene('pick_lift'), command_timeout_s=0)
    sim.data.qvel[:] = np.nan
    assert sim.step(1) is False
    assert sim.diverged
    with pytest.raises(Exception, match='scenario pick_lift diverged'):
        sim.check()
