"""A gripper goal: checked against the stroke and effort, driven with a bounded lead, judged."""

import math

from grasp_monitor.core.errors import CommandError, ConfigError
from grasp_monitor.core.monitor.holding import Holding
from grasp_monitor.core.servo.gripper_goal import GripperLimits
import numpy as np
import pytest

LIMITS = GripperLimits(stroke_min_m=-0.01, stroke_max_m=0.054, max_effort_n=20.0,
                       default_effort_n=10.0, stiffness_n_per_m=300.0, speed_m_per_s=0.05,
                       tolerance_m=0.001, timeout_s=5.0)


@pytest.mark.parametrize('position, effort, text', [
    (math.nan, 10.0, 'position nan m is not finite: give one within the stroke '
                     '[-0.01, 0.054] m'),
    (0.06, 10.0, 'position 0.06 m is beyond the stroke [-0.01, 0.054] m'),
    (-0.02, 10.0, 'position -0.02 m is beyond the stroke [-0.01, 0.054] m'),
    (0.03, -1.0, 'max_effort -1 N is outside [0, 20] N (0: the default, 10 N)'),
    (0.03, 25.0, 'max_effort 25 N is outside [0, 20] N (0: the default, 10 N)'),
    (0.03, math.inf, 'max_effort inf N is not finite: give one in [0, 20] N '
                     '(0: the default, 10 N)'),
])
def test_a_bad_goal_is_refused_naming_what_was_given_and_what_is_valid(position, effort, text):
    with pytest.raises(CommandError) as refused:
        LIMITS.goal(position, effort, 0.0, [0.0, 0.0])
    assert str(refused.value) == text


def test_an_effort_of_zero_takes_the_default_as_moveit_sends_it():
    assert LIMITS.goal(0.03, 0.0, 0.0, [0.0, 0.0]).effort_n == 10.0
    assert LIMITS.goal(0.03, 4.0, 0.0, [0.0, 0.0]).effort_n == 4.0


@pytest.mark.parametrize('field, value', [('stroke_max_m', -0.02), ('timeout_s', 0.0),
                                          ('default_effort_n', 30.0), ('speed_m_per_s', -1.0)])
def test_limits_that_make_no_gripper_are_a_config_error(field, value):
    with pytest.raises(ConfigError, match=field):
        GripperLimits(**{field: value})


def test_the_target_moves_at_the_speed_and_stops_at_the_goal():
    goal = LIMITS.goal(0.04, 10.0, 1.0, [0.0, 0.0])
    assert goal.closing and not goal.opening
    # 0.05 m/s for 0.2 s: 0.01 m; both fingers with it, moving at the speed
    targets, velocities = goal.setpoint(1.2, [0.0095, 0.0095])
    assert targets == pytest.approx([0.01, 0.01])
    assert velocities.tolist() == [0.05, 0.05]
    targets, velocities = goal.setpoint(3.0, [0.0399, 0.0399])
    assert targets.tolist() == [0.04, 0.04] and velocities.tolist() == [0.0, 0.0]


def test_a_blocked_finger_is_led_by_effort_over_stiffness_and_no_more():
    goal = LIMITS.goal(0.054, 6.0, 0.0, [0.0, 0.0])
    # the object stops both fingers at 0.03 m: the target leads by 6 / 300 = 0.02 m
    targets, velocities = goal.setpoint(2.0, [0.03, 0.025])
    assert targets == pytest.approx([0.05, 0.045])
    assert 300.0 * (targets - np.array([0.03, 0.025])) == pytest.approx([6.0, 6.0])
    assert velocities.tolist() == [0.0, 0.0]


def test_opening_moves_the_target_back():
    goal = LIMITS.goal(0.0, 10.0, 0.0, [0.03, 0.03])
    assert goal.opening and not goal.closing
    targets, velocities = goal.setpoint(0.2, [0.021, 0.021])
    assert targets == pytest.approx([0.02, 0.02])
    assert velocities.tolist() == [-0.05, -0.05]


def test_the_outcome_is_the_monitors_grasp_the_target_reached_or_the_timeout():
    goal = LIMITS.goal(0.054, 10.0, 0.0, [0.0, 0.0])
    # blocked fingers, however they jitter, are no outcome without the monitor's grasp
    assert goal.outcome(1.0, [0.03, 0.0301], grasped=False) is None
    assert goal.outcome(1.0, [0.03, 0.0301], grasped=True) == 'stalled'
    assert goal.outcome(5.01, [0.03, 0.03], grasped=False) == 'timeout'
    # at the target, within the tolerance, once the target has arrived there
    assert goal.outcome(1.0, [0.0535, 0.0535], grasped=False) is None  # ramp at 0.05 m
    assert goal.outcome(1.2, [0.0535, 0.0545], grasped=False) == 'reached'


def test_an_opening_goal_is_never_stalled_by_a_grasp():
    goal = LIMITS.goal(0.0, 10.0, 0.0, [0.03, 0.03])
    assert goal.outcome(0.3, [0.02, 0.02], grasped=True) is None
    assert goal.outcome(0.7, [0.0, 0.0005], grasped=True) == 'reached'


def test_holding_turns_true_at_grasp_and_false_at_a_let_go():
    holding = Holding()
    assert [holding.update(kind) for kind in (
        'trial_start', 'contact', 'grasp', 'incipient_slip', 'slip_out', 'grasp', 'release',
        'grasp', 'trial_end', 'grasp', 'flying_apart')] == [
        None, None, True, None, False, True, False, True, False, True, False]
    assert holding.holding is False


def test_a_goal_may_ask_a_lower_speed_never_a_higher_one():
    assert LIMITS.goal(0.04, 10.0, 0.0, [0.0, 0.0], 0.01).ramp_m(1.0) == pytest.approx(0.01)
    assert LIMITS.goal(0.04, 10.0, 0.0, [0.0, 0.0], 1.0).ramp_m(0.2) == pytest.approx(0.01)
    with pytest.raises(CommandError, match=r'velocity -1 m/s is not a speed: give one in '
                                           r'\[0, 0.05\] m/s'):
        LIMITS.goal(0.04, 10.0, 0.0, [0.0, 0.0], -1.0)
