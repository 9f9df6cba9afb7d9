"""One name per setting: the servo and simulator core fields are their settings' names.

The rule (docs/architecture.md, "One declaration per setting"): a core field is its
setting's name, with the dots as underscores, or without the group when the config is the
group's own (``physics.`` for ``SimSettings``, ``force_test.`` for ``ExternalForceTest``),
and with the unit of its value appended (``rate`` fills ``MoteusConfig.rate_hz``).
Pure: no node is started.
"""

from dataclasses import fields
import inspect

from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.core.servo import ServoConfig
from grasp_monitor.core.servo.settings import SERVO_SETTINGS
from grasp_monitor.hardware.moteus import MoteusConfig
from grasp_monitor.nodes import (
    grasp_controller_parameters, moteus_servos_parameters, mujoco_sim_parameters)
from grasp_monitor.nodes.params import COMMON
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.live import LiveConfig
from grasp_monitor.sim.paced_loop import RunConfig
from grasp_monitor.sim.scene import SimSettings
import pytest

#: Unit suffixes a field appends to its setting's name ('' = no unit).
UNITS = ('', '_s', '_hz', '_m', '_n', '_nm', '_rad', '_rad_per_s', '_m_per_s')


def field_of(name, group, field_names):
    """Return the field the rule gives setting ``name`` among ``field_names`` (None: none)."""
    base = name.removeprefix(group).replace('.', '_')
    found = [base + unit for unit in UNITS if base + unit in field_names]
    return found[0] if len(found) == 1 else None


def names(table, *only):
    return [s.name for s in table if s not in COMMON and (not only or s.name in only
                                                          or s.name.startswith(only))]


SIM = mujoco_sim_parameters.PARAMETERS
CASES = {
    'MoteusConfig': (MoteusConfig, '', names(
        moteus_servos_parameters.PARAMETERS[len(COMMON):-2])),
    'PickLiftScript': (PickLiftScript, '', names(
        grasp_controller_parameters.PARAMETERS, 'grip_force', 'approach_height', 'lift_height',
        'approach_duration', 'close_duration', 'close_ramp', 'lift_duration', 'close_speed')),
    'ExternalForceTest': (ExternalForceTest, 'force_test.', names(
        SIM, 'force_test.profile', 'force_test.amplitude_per_kg', 'force_test.angular_frequency',
        'force_test.offset', 'force_test.redraw_steps', 'force_test.seed')),
    'SimSettings': (SimSettings, 'physics.', names(SIM, 'physics.')),
    'RunConfig': (RunConfig, '', ['publish_rate', 'real_time_factor', 'pause_at']),
    'LiveConfig': (LiveConfig, '', ['force_test.body', 'force_test.start_time', 'lockstep',
                                    'clock_rate', 'realism.seed']),
    'ServoConfig': (ServoConfig, '', ['kp', 'kd', 'maximum_torque', 'command_timeout',
                                      'watchdog_action']),
}


@pytest.mark.parametrize('case', CASES)
def test_each_setting_fills_the_field_the_rule_names(case):
    config, group, settings = CASES[case]
    field_names = {f.name for f in fields(config)}
    assert settings
    assert {name: field_of(name, group, field_names) for name in settings if
            field_of(name, group, field_names) is None} == {}


def test_the_tables_hold_the_settings_the_cases_name():
    declared = {s.name for s in SIM} | {s.name for s in SERVO_SETTINGS} | {
        s.name for s in moteus_servos_parameters.PARAMETERS} | {
        s.name for s in grasp_controller_parameters.PARAMETERS}
    assert {name for _, _, settings in CASES.values() for name in settings} <= declared


def test_the_simulators_servo_options_are_named_by_the_rule():
    options = inspect.signature(Simulator).parameters
    assert [field_of(name, '', options) for name in ('command_timeout', 'watchdog_action')] == \
        ['command_timeout_s', 'watchdog_action']


def test_the_rule_refuses_a_second_name():
    assert field_of('redraw_steps', '', {'redraw_every_steps'}) is None
    assert field_of('rate', '', {'rate_hz'}) == 'rate_hz'
    assert field_of('physics.timestep', 'physics.', {'timestep_s'}) == 'timestep_s'
