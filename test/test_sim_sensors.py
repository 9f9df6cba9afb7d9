"""Simulated sensors and motors as plugins: tactile pads of a simulator, joint states, servos."""

import math
import threading
import time

from grasp_monitor.cli import main
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.noise import NoiseConfig
from grasp_monitor.core.plugins import create_plugin
from grasp_monitor.core.servo import MotorNoise, ServoBank, ServoCommand
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import JointStateSensor, pad_specs, PadSpec, SimTactileArrays
import numpy as np
import pytest


@pytest.fixture
def sim():
    scene = build_scene('pick_lift')
    return Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))


def test_per_pad_arrays_of_one_value_apply_to_every_pad():
    left, right = pad_specs(['finger_left', 'finger_right'], [''], resolution=[0.004],
                            touch=['normal', 'force_vector'], noise_seed=[-1, 7])
    assert (left.name, left.body, right.body) == ('finger_left', 'finger_left', 'finger_right')
    assert left.settings == {'resolution': 0.004, 'layout': 'primitives', 'touch': 'normal',
                             'response': 'spread_linear', 'force_frame': 'pad',
                             'contact_point': 'midpoint', 'slip': False, 'noise_type': 'none',
                             'noise_range': 0.0, 'noise_seed': -1}
    assert (right.settings['touch'], right.settings['noise_seed']) == ('force_vector', 7)
    assert right.plugin_config()['type'] == 'tactile_array'


@pytest.mark.parametrize('call, message', [
    (lambda: pad_specs([]), 'pads must name one or more distinct pads, got []'),
    (lambda: pad_specs(['a', 'a']), "pads must name one or more distinct pads, got ['a', 'a']"),
    (lambda: pad_specs(['a', 'b'], ['x', 'y', 'z']),
     'bodies has 3 values for 2 pads (a, b); give one value for every pad or one per pad'),
    (lambda: pad_specs(['a'], resolutions=[0.1]),
     "unknown per-pad setting 'resolutions'; valid: resolution, layout, touch, response, "
     'force_frame, contact_point, slip, noise_type, noise_range, noise_seed'),
    (lambda: pad_specs(['a'], touch=['force_vector_global'], touch_functions=('normal',)),
     "tactile pad 'a': touch function 'force_vector_global' is not one of normal"),
    (lambda: pad_specs(['a'], noise_type=['pink']),
     "parameter 'noise_type' of tactile pad 'a' must be one of none, gaussian, uniform, "
     "got 'pink'"),
    (lambda: PadSpec('a/b'), "pad name must be non-empty, without '/', '~' or spaces, "
     "got 'a/b'"),
    (lambda: PadSpec('a', settings={'spacing': 1.0}),
     "tactile pad 'a': unknown setting 'spacing'; valid: resolution, layout, touch, "
     'response, force_frame, contact_point, slip, noise_type, noise_range, noise_seed'),
])
def test_bad_pad_settings_say_what_is_valid(call, message):
    with pytest.raises(ConfigError) as error:
        call()
    assert str(error.value) == message


def test_tactile_arrays_of_a_simulator_share_one_contact_extraction(sim):
    arrays = SimTactileArrays(sim, pad_specs(['finger_left', 'finger_right'],
                                             resolution=[0.003, 0.005]))
    # 30 x 10 x 30 mm boxes: 2 (10 x 10) + 4 (10 x 3) at 3 mm, 2 (6 x 6) + 4 (6 x 2) at 5 mm
    assert [len(pad.layout) for pad in arrays.pads] == [320, 120]
    runner = SimRunner(sim, RunConfig(1000.0, 0.0))
    runner.run(2.0)  # approach 1 s, then the fingers squeeze the object with 10 N each
    reading = arrays.compute()
    assert reading.time_s == sim.time_s
    assert len(reading.contacts) == len(sim.contacts())
    left, right = reading.total_force_in_pad
    np.testing.assert_allclose([left[1], right[1]], [10.0, -10.0], rtol=0.01)
    for values, total in zip(reading.values, reading.total_force_in_pad):
        np.testing.assert_allclose(values.sum(axis=0), total, atol=1e-9)
    position, quaternion = reading.T_world_pad[0]
    np.testing.assert_allclose(quaternion, [1.0, 0.0, 0.0, 0.0])
    assert position[1] > 0.025  # the left pad sits on the object's +y side


def test_tick_callbacks_run_in_order_inside_the_tick_and_can_leave(sim):
    runner = SimRunner(sim, RunConfig(100.0, 0.0), on_tick=lambda s: calls.append('on_tick'))
    calls = []

    def first(s):
        assert runner.lock._is_owned()  # the MuJoCo data cannot change under it
        calls.append(('first', s.time_s))

    runner.add_tick_callback(first)
    runner.add_tick_callback(lambda s: calls.append('second'))
    runner.tick()
    assert calls == ['on_tick', ('first', sim.time_s), 'second']
    runner.remove_tick_callback(first)
    runner.remove_tick_callback(first)  # twice: no error
    runner.tick()
    assert calls[3:] == ['on_tick', 'second']


def test_a_paced_runner_keeps_real_time_through_a_divergence_and_takes_commands(sim):
    SimRunner(sim, RunConfig(100.0, 0.0)).run(1.0)
    runner = SimRunner(sim, RunConfig(100.0, 1.0))
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    try:
        time.sleep(0.1)
        with runner.lock:
            sim.set_command(ServoCommand.from_rows([[math.nan, 0.0, 9e9, 1.0, 1.0, 9e9]] * 3, 3))
        assert wait_until(lambda: sim.diverged)
        diverged_wall_s = time.monotonic()
        with runner.lock:  # MuJoCo put the state back to its start
            assert sim.time_s < 0.5
            sim.set_command(ServoCommand.from_rows([[0.05, 0.0, 0.0, 1.0, 1.0, 50.0]] * 3, 3))
        time.sleep(0.3)
        with runner.lock:
            # paced from the reset on: no race to catch up with the second before it
            assert sim.time_s < time.monotonic() - diverged_wall_s + 0.1
            assert np.isfinite(sim.data.qpos).all()
            ticks = runner.ticks
        assert wait_until(lambda: runner.ticks > ticks + 5)  # and it steps on
    finally:
        runner.stop()
        thread.join(5.0)


def wait_until(predicate, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.005)
    return predicate()


def test_joint_state_plugin_adds_noise_and_clamps_to_the_joint_range(sim):
    sensor = create_plugin('sensor', {'type': 'joint_state', 'noise_type': 'uniform',
                                      'position_noise_range': 1.0,
                                      'velocity_noise_range': 0.5, 'noise_seed': 3}, sim=sim)
    assert isinstance(sensor, JointStateSensor)
    readings = [sensor.read() for _ in range(2000)]
    truth = sim.joint_states()
    position = np.array([r.position for r in readings])
    velocity = np.array([r.velocity for r in readings])
    # lift range [-0.05, 0.5] m, finger range [-0.01, 0.054] m: noise of +-1 m hits both ends
    np.testing.assert_array_equal(position.min(axis=0), [-0.05, -0.01, -0.01])
    np.testing.assert_array_equal(position.max(axis=0), [0.5, 0.054, 0.054])
    assert np.all(np.abs(velocity - truth.velocity) <= 0.5)
    assert np.all(np.abs(velocity - truth.velocity).max(axis=0) > 0.49)
    np.testing.assert_array_equal([r.effort for r in readings], np.tile(truth.effort, (2000, 1)))
    again = create_plugin('sensor', {'type': 'joint_state', 'noise_type': 'uniform',
                                     'position_noise_range': 1.0,
                                     'velocity_noise_range': 0.5, 'noise_seed': 3}, sim=sim)
    np.testing.assert_array_equal(again.read().position, readings[0].position)


def test_servo_plugin_is_the_moteus_law_with_a_watchdog():
    bank = create_plugin('motor', {'type': 'servo', 'kp': 50.0, 'kd': 2.0,
                                   'maximum_torque': 3.0, 'command_timeout': 0.1},
                         joints=('a', 'b'))
    assert isinstance(bank, ServoBank)
    bank.set_command(ServoCommand([0.1, math.nan], [0.0, 1.0], [0.5, 0.0], [1.0, 1.0],
                                  [1.0, 0.5], [3.0, 3.0]), time_s=0.0)
    # a: 0.5 + 50 (0.1 - 0) + 2 (0 - 0) = 5.5 -> clamped to 3; b: 2 * 0.5 * (1 - 0) = 1
    np.testing.assert_allclose(bank.compute_torque([0.0, 0.0], [0.0, 0.0], 0.05), [3.0, 1.0])
    np.testing.assert_allclose(bank.compute_torque([0.0, 0.0], [0.0, 0.0], 0.2), [0.0, 0.0])
    with pytest.raises(ConfigError, match=r"^parameter 'kp' of motor 'servo' must be in "):
        create_plugin('motor', {'type': 'servo', 'kp': -1.0}, joints=('a',))


def test_servo_plugin_takes_the_watchdog_action_and_the_motor_noise():
    bank = create_plugin('motor', {'type': 'servo', 'kd': 2.0, 'command_timeout': 0.1,
                                   'watchdog_action': 'neutral', 'motor_noise_type': 'gaussian',
                                   'motor_noise_range': 0.1, 'motor_noise_seed': 4},
                         joints=('a',))
    assert bank.config.watchdog_action == 'neutral'
    assert bank.config.motor_noise == NoiseConfig('gaussian', 0.1, 4)


def lift_after_the_watchdog(**servos):
    """Hold the lift at 0.1 m for 0.2 s, stop commanding for 0.4 s: its position, m."""
    sim = Simulator(build_scene('pick_lift'), command_timeout_s=0.05, **servos)
    command = ServoCommand.from_named(sim.servo_config, ['lift'],
                                      {'position': [0.1], 'feedforward_torque': [9.0]})
    for _ in range(100):
        sim.set_command(command)
        sim.step(2)
    assert abs(sim.joint_states().position[0] - 0.1) < 2e-3
    for _ in range(200):
        sim.step(2)
    assert sim.servos.watchdog_tripped
    return sim.joint_states().position[0]


def test_a_neutral_watchdog_holds_the_lift_where_zero_torque_drops_it():
    # zero torque: the lift falls to the floor; neutral: damped, it sinks at m g / kd
    assert lift_after_the_watchdog() < 0.0
    assert lift_after_the_watchdog(watchdog_action='neutral') > 0.08  # under 5 cm/s


def test_motor_noise_in_the_simulator_is_seeded_per_step_and_repeats_after_a_rollback():
    noise = NoiseConfig('gaussian', 0.5, seed=3)
    sims = [Simulator(build_scene('pick_lift'), command_timeout_s=0.0, motor_noise=config)
            for config in (noise, noise, NoiseConfig())]
    for sim in sims:
        sim.set_command(ServoCommand.from_named(sim.servo_config, ['lift'], {'position': [0.1]}))
        sim.step(5)
        sim.step(5)
    # the ctrl of the tick at step 5: the law's plus the noise drawn for step 5
    clean = sims[2].data.ctrl.copy()
    np.testing.assert_allclose(sims[0].data.ctrl - clean,
                               MotorNoise(noise, 3).sample(5), atol=1e-9)
    np.testing.assert_array_equal(sims[0].data.qpos, sims[1].data.qpos)
    assert not np.array_equal(sims[0].data.qpos, sims[2].data.qpos)
    checkpoint = sims[0].checkpoint()
    for _ in range(20):
        sims[0].step(2)
    after = sims[0].data.qpos.copy()
    sims[0].rollback(checkpoint)
    for _ in range(20):
        sims[0].step(2)
    np.testing.assert_array_equal(sims[0].data.qpos, after)


def test_plugins_command_lists_every_built_in_type(capsys):
    assert main(['plugins']) == 0
    text = capsys.readouterr().out
    heads = [line.split(':')[0] for line in text.splitlines() if not line.startswith(' ')]
    assert heads == ['motor servo', 'sensor joint_state', 'sensor tactile_array']
    assert "  noise_type: str = 'none', one of none, gaussian, uniform. Noise added to every " \
           'output value.' in text
    assert '  command_timeout: float = 0.25, in [0.0, 60.0]. Servo watchdog: no command for ' \
           'this long stops the servos, s; 0 disables it.' in text
