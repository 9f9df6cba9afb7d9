"""The moteus servo law, command validation and the watchdog, against hand-computed values."""

import dataclasses
import math

from grasp_monitor.core.errors import CommandError, ConfigError
from grasp_monitor.core.noise import NoiseConfig
from grasp_monitor.core.servo import (
    MotorNoise, servo_torque, ServoBank, ServoCommand, ServoConfig)
import numpy as np
import pytest

KP, KD = np.array([10.0]), np.array([2.0])


def command(**fields):
    values = {'position': 1.0, 'velocity': 0.5, 'feedforward_torque': 0.3, 'kp_scale': 0.5,
              'kd_scale': 1.0, 'maximum_torque': 10.0} | fields
    return ServoCommand(**{k: [v] for k, v in values.items()})


def test_torque_is_the_moteus_law():
    # 0.3 + 10 * 0.5 * (1.0 - 0.2) + 2 * 1.0 * (0.5 - 0.1) = 5.1
    assert servo_torque(KP, KD, command(), np.array([0.2]), np.array([0.1]))[0] == \
        pytest.approx(5.1)


def test_nan_position_disables_the_position_term():
    # 0.3 + 2 * (0.5 - 0.1) = 1.1
    torque = servo_torque(KP, KD, command(position=math.nan), np.array([0.2]), np.array([0.1]))
    assert torque[0] == pytest.approx(1.1)


@pytest.mark.parametrize('limit, expected', [(3.0, 3.0), (0.0, 0.0)])
def test_torque_is_clamped_to_maximum_torque(limit, expected):
    torque = servo_torque(KP, KD, command(maximum_torque=limit), np.array([0.2]),
                          np.array([0.1]))
    assert torque[0] == expected
    negative = servo_torque(KP, KD, command(maximum_torque=limit, position=-5.0),
                            np.array([0.2]), np.array([0.1]))
    assert negative[0] == -expected


def test_law_is_vectorised_over_joints_with_per_servo_gains():
    cmd = ServoCommand([1.0, math.nan], [0, 0], [0, 1.0], [1, 1], [0, 0], [100, 100])
    torque = servo_torque(np.array([10.0, 20.0]), np.array([0.0, 0.0]), cmd,
                          np.array([0.5, 0.5]), np.zeros(2))
    assert torque.tolist() == [5.0, 1.0]


@pytest.mark.parametrize('fields, message', [
    ({'kp_scale': 1.5}, 'kp_scale must be in [0, 1], got [1.5]'),
    ({'kd_scale': -0.1}, 'kd_scale must be in [0, 1], got [-0.1]'),
    ({'maximum_torque': -1.0}, 'maximum_torque must be >= 0, got [-1.0]'),
    ({'position': math.inf}, 'position must be finite or NaN (NaN disables it)'),
    ({'velocity': math.nan}, 'velocity must be finite, got [nan]'),
    ({'feedforward_torque': -math.inf}, 'feedforward_torque must be finite, got [-inf]'),
    ({'position': -2e10}, 'position must be within ±1e+10, got [-20000000000.0]'),
    ({'maximum_torque': 1e300}, 'maximum_torque must be within ±1e+10, got [1e+300]'),
])
def test_invalid_commands_are_refused_with_the_reason(fields, message):
    with pytest.raises(CommandError) as error:
        command(**fields)
    assert str(error.value) == message


def test_full_rows_and_named_commands():
    config = ServoConfig(('a', 'b'), kp=[1.0, 2.0], kd=0.1, maximum_torque=[4.0, 5.0])
    with pytest.raises(CommandError, match=r'expected 2 rows of 6 values .* = 12 values, got 5'):
        ServoCommand.from_rows(np.zeros(5), 2)
    with pytest.raises(CommandError) as error:
        ServoCommand.from_named(config, ['c'], {'position': [1.0]})
    assert str(error.value) == "unknown joint 'c'; valid joints: a, b"
    assert error.value.kind == 'unknown_joint'
    with pytest.raises(CommandError, match='position has 2 values for 1 joint names'):
        ServoCommand.from_named(config, ['a'], {'position': [1.0, 2.0]})
    first = ServoCommand.from_named(config, ['b'], {'position': [0.5]})
    # Unnamed joints keep the defaults; the limit comes from the configuration.
    assert np.isnan(first.position[0]) and first.position[1] == 0.5
    assert first.maximum_torque.tolist() == [4.0, 5.0]
    second = ServoCommand.from_named(config, ['a'], {'velocity': [1.0]}, previous=first)
    assert second.position[1] == 0.5 and second.velocity.tolist() == [1.0, 0.0]


def test_watchdog_stops_torque_when_commands_stop_arriving():
    bank = ServoBank(ServoConfig(('a',), kp=10.0, kd=0.0, command_timeout_s=0.1))
    assert bank.compute_torque([0.0], [0.0], 0.0)[0] == 0.0  # nothing commanded yet
    bank.set_command(command(position=1.0, feedforward_torque=0.0, velocity=0.0,
                             kp_scale=1.0), time_s=1.0)
    assert bank.compute_torque([0.0], [0.0], 1.05)[0] == 10.0
    assert bank.compute_torque([0.0], [0.0], 1.2)[0] == 0.0
    assert bank.watchdog_tripped and bank.watchdog_trips == 1
    bank.compute_torque([0.0], [0.0], 1.3)
    assert bank.watchdog_trips == 1  # one trip per silence
    bank.set_command(bank.command, time_s=2.0)
    assert not bank.watchdog_tripped and bank.compute_torque([0.0], [0.0], 2.0)[0] == 10.0


def test_a_neutral_watchdog_damps_the_servos_still_where_zero_torque_lets_them_go():
    # upkie's neutral action: no position term, velocity 0, kp/kd scales 1, the default limit
    config = ServoConfig(('a',), kp=10.0, kd=2.0, maximum_torque=3.0, command_timeout_s=0.1)
    moving = command(position=1.0, feedforward_torque=0.0, velocity=0.0, kp_scale=1.0)
    torques = {}
    for action in ('zero_torque', 'neutral'):
        bank = ServoBank(dataclasses.replace(config, watchdog_action=action))
        bank.set_command(moving, time_s=0.0)
        # tripped, the servo at 0.5 rad turning at 0.4 rad/s, then at 4 rad/s
        torques[action] = [bank.compute_torque([0.5], [v], 0.2)[0] for v in (0.4, 4.0)]
        assert bank.watchdog_tripped
    assert torques == {'zero_torque': [0.0, 0.0], 'neutral': [-0.8, -3.0]}  # -kd v, limited
    neutral = ServoCommand.neutral([3.0, 1.0])
    assert np.isnan(neutral.position).all() and neutral.table[1:].tolist() == [
        [0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [3.0, 1.0]]
    with pytest.raises(ConfigError) as error:
        dataclasses.replace(config, watchdog_action='hold')
    assert str(error.value) == (
        "parameter 'watchdog_action' must be one of zero_torque, neutral, got 'hold'")


def test_motor_noise_is_added_to_the_feedforward_per_tick_seeded_and_limited():
    config = ServoConfig(('a', 'b'), kp=0.0, kd=0.0, maximum_torque=[10.0, 0.05],
                         motor_noise=NoiseConfig('uniform', 0.2, seed=7))
    bank = ServoBank(config)
    bank.set_command(ServoCommand.from_named(config, ['a', 'b'], {}), time_s=0.0)
    first = [bank.compute_torque([0.0, 0.0], [0.0, 0.0], 0.0).copy() for _ in range(3)]
    noise = [MotorNoise(config.motor_noise, 2).sample(tick) for tick in range(3)]
    assert [torque[0] for torque in first] == [n[0] for n in noise]  # the noise itself
    assert all(abs(torque[1]) <= 0.05 for torque in first)  # within maximum_torque
    assert all(abs(n[0]) <= 0.2 for n in noise) and len({n[0] for n in noise}) == 3
    bank.reset()  # the same ticks again: the same noise
    bank.set_command(ServoCommand.from_named(config, ['a', 'b'], {}), time_s=0.0)
    assert bank.compute_torque([0.0, 0.0], [0.0, 0.0], 0.0)[0] == first[0][0]
    # off by default: the law exactly
    assert ServoBank(ServoConfig(('a',), kp=0.0, kd=0.0)).motor_noise.is_identity


def test_time_gone_back_before_the_command_trips_the_watchdog():
    # a simulation that reset itself (time back to 0) does not keep a command of its old timeline
    bank = ServoBank(ServoConfig(('a',), kp=10.0, kd=0.0, command_timeout_s=0.1))
    bank.set_command(command(position=1.0, feedforward_torque=0.0, velocity=0.0,
                             kp_scale=1.0), time_s=5.0)
    assert bank.compute_torque([0.0], [0.0], 0.01)[0] == 0.0
    assert bank.watchdog_tripped and bank.watchdog_trips == 1


def test_telemetry_heats_with_torque_and_sags_the_bus():
    config = ServoConfig(('a',), kp=0.0, kd=0.0, copper_loss_w_per_nm2=4.0,
                         thermal_resistance_k_per_w=2.0, thermal_time_constant_s=10.0)
    bank = ServoBank(config)
    bank.set_torque([1.0])
    bank.update_telemetry([0.0], dt_s=10.0)
    # steady state 25 + 2 * 4 = 33 degC; after one time constant 1 - 1/e of the way
    assert bank.temperature_c[0] == pytest.approx(25 + 8 * (1 - math.exp(-1)))
    assert bank.voltage_v == pytest.approx(24.0 - 0.05 * 4.0 / 24.0)


def test_telemetry_read_between_updates_follows_every_update():
    bank = ServoBank(ServoConfig(('a',), kp=0.0, kd=0.0, thermal_time_constant_s=10.0))
    assert bank.voltage_v == 24.0 and bank.temperature_c.tolist() == [25.0]
    bank.set_torque([2.0])  # the bus sags at once: 4 W/(N·m)² · 4 = 16 W
    assert bank.voltage_v == pytest.approx(24.0 - 0.05 * 16.0 / 24.0)
    assert bank.temperature_c.tolist() == [25.0]  # heat takes time
    bank.update_telemetry([1.0], dt_s=10.0)  # and 2 W of mechanical power
    assert bank.temperature_c[0] == pytest.approx(25 + 2 * 16 * (1 - math.exp(-1)))
    assert bank.voltage_v == pytest.approx(24.0 - 0.05 * 18.0 / 24.0)
    observed = bank.observe([0.0], [1.0])
    observed.temperature_c[0] = 0.0  # an observation is a copy
    assert bank.temperature_c[0] > 25.0
    bank.reset()
    assert bank.voltage_v == 24.0 and bank.temperature_c.tolist() == [25.0]


def test_bad_configuration_is_refused():
    with pytest.raises(ConfigError, match=r"joints must be unique, got \['a', 'a'\]"):
        ServoConfig(('a', 'a'), kp=1.0, kd=1.0)
    with pytest.raises(ConfigError, match=r'kp must be finite and >= 0, got \[-1.0\]'):
        ServoConfig(('a',), kp=-1.0, kd=1.0)
