"""One declaration per setting: the Setting type, and every reader of a table agreeing with it."""

import dataclasses
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor import MonitorConfig
from grasp_monitor.core.monitor.settings import INPUT_SETTINGS, MONITOR_SETTINGS, SETTINGS
from grasp_monitor.core.servo import ServoConfig
from grasp_monitor.core.servo.settings import COMMAND_TIMEOUT
from grasp_monitor.core.setting_values import field_name, setting_values, values_type
from grasp_monitor.core.settings import Setting
from grasp_monitor.core.tactile.settings import TACTILE_SETTINGS
import pytest


def test_a_setting_takes_its_type_from_its_default():
    assert Setting('rate', 100.0, 'Hz.', 1.0, 2000.0).type_name == 'double'
    assert Setting('pads', ['a', 'b']).type_name == 'string_array'
    assert Setting('seed', -1).value_type is int and Setting('on', True).type_name == 'bool'
    assert Setting('x', 0.0, '', 0.0, math.inf).value_range == (0.0, math.inf)


def test_check_converts_and_refuses_naming_what_is_valid():
    rate = Setting('rate', 100.0, 'Hz.', 1.0, 2000.0)
    assert rate.check(5) == 5.0 and type(rate.check(5)) is float
    with pytest.raises(ConfigError) as error:
        rate.check(True)
    assert str(error.value) == "parameter 'rate' must be a float, got bool True"
    with pytest.raises(ConfigError) as error:
        rate.check(0.5, "sensor 'probe'")
    assert str(error.value) == "parameter 'rate' of sensor 'probe' must be in [1.0, 2000.0], " \
        'got 0.5'
    layouts = Setting('layout', ['primitives'], choices=('primitives', 'mesh'))
    assert layouts.check(('mesh', 'primitives')) == ['mesh', 'primitives']
    with pytest.raises(ConfigError) as error:
        layouts.check(['grid'])
    assert str(error.value) == "parameter 'layout' must be one of primitives, mesh, got 'grid'"
    with pytest.raises(ConfigError, match=r"^choices of parameter 'n' must be strings of a str"):
        Setting('n', 1, choices=('a',))
    with pytest.raises(ConfigError, match=r"^range of parameter 'n' needs both low and high$"):
        Setting('n', 1, low=0)


def test_per_item_is_the_same_setting_as_an_array():
    resolution = TACTILE_SETTINGS[0].per_item('One value per pad.')
    assert (resolution.name, resolution.default, resolution.low, resolution.high) == \
        ('resolution', [0.003], 1e-4, 1.0)
    assert resolution.read_only and resolution.description.endswith('this. One value per pad.')


def test_the_monitor_config_defaults_are_the_table_defaults():
    config = MonitorConfig(sensor_period_s=0.01)
    for setting in SETTINGS:
        field = field_name(setting)  # the one rule: the setting's name, dots as _
        expected = setting.default
        if setting.name == 'grasp_dwell':
            expected = 10 * config.sensor_period_s  # 0: ten sample periods
        value = getattr(config, field)
        assert (list(value) if setting.is_array else value) == pytest.approx(expected), field
    assert len(MONITOR_SETTINGS) == len(SETTINGS) + len(INPUT_SETTINGS)


def test_the_inputs_config_defaults_are_the_table_defaults():
    from grasp_monitor.core.monitor import InputsConfig
    config = InputsConfig(('left',))
    for setting in INPUT_SETTINGS:
        assert getattr(config, field_name(setting)) == setting.default, setting.name


def test_every_servo_bank_has_the_one_watchdog_default():
    from grasp_monitor.hardware.moteus import MoteusConfig
    from grasp_monitor.sim.backend import Simulator
    import inspect
    assert ServoConfig(('a',), [1.0], [0.1]).command_timeout_s == COMMAND_TIMEOUT.default
    assert MoteusConfig.__dataclass_fields__['command_timeout_s'].default == \
        COMMAND_TIMEOUT.default
    assert inspect.signature(Simulator).parameters['command_timeout_s'].default == \
        COMMAND_TIMEOUT.default


def test_a_tables_values_are_one_frozen_object_named_by_one_rule():
    table = (Setting('rate', 100.0), Setting('energy.dt', 0.001), Setting('pads', ['a', 'b']),
             Setting('epsilon.variant', 'l1', choices=('l1', 'linf')))
    values = setting_values(table, {'energy.dt': 0.002, 'pads': ['c']})
    assert (values.rate, values.energy_dt, values.pads, values.epsilon_variant) == (
        100.0, 0.002, ('c',), 'l1')
    assert values.group('epsilon') == {'variant': 'l1'}
    assert values.by_name() == {'rate': 100.0, 'energy.dt': 0.002, 'pads': ('c',),
                                'epsilon.variant': 'l1'}
    assert type(setting_values(table, {})) is type(values)  # one class per table
    with pytest.raises(dataclasses.FrozenInstanceError):
        values.rate = 1.0


def test_settings_named_alike_once_dots_are_underscores_are_refused():
    with pytest.raises(ConfigError) as error:
        values_type((Setting('a.b', 1), Setting('a_b', 2)))
    assert str(error.value) == 'settings named alike once "." is "_": a_b'
