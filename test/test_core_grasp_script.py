"""The scripted pick: its unchecked commands are valid ones, and the backend applies them."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.core.servo import COMMAND_FIELDS, ServoCommand
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.scenes import build_scene
import numpy as np
import pytest


def test_every_phase_gives_a_command_the_constructor_accepts_unchanged():
    script = PickLiftScript()
    for time_s in np.arange(0.0, 4.5, 0.01):
        command = script.command(float(time_s))
        checked = ServoCommand(*(getattr(command, name) for name in COMMAND_FIELDS))
        np.testing.assert_array_equal(checked.table, command.table)
        assert not command.table.flags.writeable
    # Lift target: down from the approach height, 0 while closing, then up to the lift height.
    assert script.command(0.5).position[0] == pytest.approx(0.05)
    assert script.command(1.5).position[0] == 0.0
    assert script.command(4.0).position[0] == pytest.approx(0.2)
    assert math.isnan(script.command(1.5).position[1])


def test_a_repeated_command_is_the_same_object():
    script = PickLiftScript()
    assert script.command(4.0) is script.command(4.1)
    assert script.command(1.6) is script.command(1.7)  # the close, its force risen
    assert script.command(3.0) is not script.command(3.01)


def test_the_grip_force_rises_over_the_close_ramp():
    script = PickLiftScript(grip_force_n=10.0, close_ramp_s=0.5)
    forces = [script.command(t).feedforward_torque[1:].tolist()
              for t in (0.9, 1.0, 1.25, 1.5, 1.9, 3.0)]
    assert forces == [[0.0, 0.0], [0.0, 0.0], [5.0, 5.0], [10.0, 10.0], [10.0, 10.0],
                      [10.0, 10.0]]
    assert PickLiftScript(close_ramp_s=0.0).command(1.0).feedforward_torque[1] == 10.0
    with pytest.raises(ConfigError,
                       match=r'close_ramp_s must be in \[0, close_duration_s=1.0\]'):
        PickLiftScript(close_ramp_s=1.5)


@pytest.mark.parametrize('name, value', [
    ('approach_height_m', math.nan), ('lift_height_m', math.inf),
    ('lift_feedforward_n', math.nan), ('lift_max_force_n', -1.0),
    ('finger_max_force_n', math.inf)])
def test_settings_that_would_make_invalid_commands_are_refused(name, value):
    with pytest.raises(ConfigError, match=name):
        PickLiftScript(**{name: value})


def test_backend_sets_the_same_actuators_as_for_a_fresh_validated_command():
    scene = build_scene('pick_lift')
    script = PickLiftScript()
    sim = Simulator(scene, command_timeout_s=0.0, drive=script.command)
    # Approach, close and lift: gains change twice, the lift target every tick.
    for time_s in np.arange(0.0, 3.0, 0.01):
        sim.data.time = time_s
        sim.apply_control()
        fresh = Simulator(scene, command_timeout_s=0.0)
        fresh.set_command(ServoCommand(*script.command(float(time_s)).table))
        fresh.apply_control()
        np.testing.assert_array_equal(sim.data.ctrl, fresh.data.ctrl)
        np.testing.assert_array_equal(sim.model.actuator_biasprm, fresh.model.actuator_biasprm)
        np.testing.assert_array_equal(sim.model.actuator_forcerange,
                                      fresh.model.actuator_forcerange)
