"""Grasp criteria and the weighted total, against hand-computed values."""

import dataclasses
import math

from grasp_monitor import testing as script
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics.criteria import (
    CRITERIA, CriteriaConfig, CriteriaReport, CriteriaWeights, epsilon_criterion,
    evaluate_criteria, final_position_criterion, force_criterion, grasp_index,
    grasp_time_criterion, instant_contacting_link_criterion, instant_force_criterion,
    object_cog_criterion, time_criterion)
from grasp_monitor.core.metrics.trial import ContactSummary, TrialRecord
from grasp_monitor.core.monitor import Command, EventRecord, GraspMonitor, MonitorConfig
import numpy as np
import pytest

CONFIG = CriteriaConfig(trial_duration=10.0, grasp_limit=5.0)
NO_CONTACT = ContactSummary.none(3)
#: One sample per second, t = 0..4: (object COG, contacts).
ROWS = [
    ((0.0, 0.0, 0.0), NO_CONTACT),
    # F = 3 N.
    ((0.0, 0.0, 0.0), ContactSummary(2, [0, 0, 3], [0, 0, 0.1], 0.5, [False, True, True])),
    # The grasp sample: F = 4 N, 0.3 m from the COG, magnitude std 1 N, every body touching.
    ((0.0, 0.0, 0.0), ContactSummary(3, [0, 4, 0], [0.3, 0, 0], 1.0, [True, True, True])),
    # F = 150 N: dropped by the 100 N cutoff.
    ((0.0, 0.05, 0.0), ContactSummary(1, [0, 0, 150], [0, 0, 0], 0.0, [False, True, False])),
    # F = 5 N; the object ends 0.1 m from where it was grasped.
    ((0.0, 0.1, 0.0), ContactSummary(2, [0, 0, 5], [0, 0.1, 0], 0.2, [False, True, True])),
]


def record_with(*events):
    record = TrialRecord(n_bodies=3, trial_id=1)
    for second, (position, contacts) in enumerate(ROWS):
        record.append(float(second), position, np.zeros(3), contacts)
    for kind, time_s in events:
        command = Command.ACTIVATE if kind == 'grasp' else Command.STOP
        record.add_event(EventRecord(kind, time_s, time_s, int(time_s), 1, command))
    return record


def test_each_criterion_of_a_grasp_by_hand():
    record = record_with(('contact', 1.0), ('grasp', 2.0))
    assert grasp_index(record) == 2
    assert time_criterion(record, CONFIG) == 1.0
    # Mean of 3, 4 and 5 N (150 N dropped): 1 / (1 + 4).
    assert force_criterion(record, CONFIG) == pytest.approx(0.2)
    assert object_cog_criterion(record) == pytest.approx(1.0 / 1.3)
    assert instant_force_criterion(record) == pytest.approx(0.5)
    assert instant_contacting_link_criterion(record) == 1.0
    # Grasp at 2 s of a 5 s limit.
    assert grasp_time_criterion(record, CONFIG) == pytest.approx(0.6)
    # Moved 0.1 m of the 0.3 m reference.
    assert final_position_criterion(record, CONFIG) == pytest.approx(2.0 / 3.0)


def test_grasp_time_against_the_trial_duration_as_rostok_examples_set_it():
    # rostok's (N - grasp_step) / N with N = T / dt: the grasp at 2 s of T = 10 s.
    record = record_with(('contact', 1.0), ('grasp', 2.0))
    trial = dataclasses.replace(CONFIG, grasp_time_span='trial_duration')
    assert grasp_time_criterion(record, trial) == pytest.approx(0.8)
    assert grasp_time_criterion(record, CONFIG) == pytest.approx(0.6)  # of the 5 s limit
    with pytest.raises(ConfigError) as error:
        CriteriaConfig(grasp_time_span='steps')
    assert str(error.value) == (
        "grasp_time_span must be one of grasp_limit, trial_duration, got 'steps'")


def test_weighted_total_and_rounded_report():
    report = evaluate_criteria(record_with(('contact', 1.0), ('grasp', 2.0)), CONFIG)
    expected = 1.0 + 0.2 + 1.0 / 1.3 + 0.5 + 1.0 + 0.6 + 2.0 / 3.0
    assert report.total == pytest.approx(expected)
    assert report.rounded() == {
        'time': 1.0, 'force': 0.2, 'object_cog': 0.769, 'instant_force': 0.5,
        'instant_contacting_link': 1.0, 'grasp_time': 0.6, 'final_position': 0.667,
        'epsilon': 0.0, 'total': 4.736}
    assert report.as_strings()['object_cog'] == '0.769'
    weights = CriteriaWeights(time=2.0, force=0.0, object_cog=0.0, instant_force=1.0,
                              instant_contacting_link=0.5, grasp_time=0.0, final_position=3.0)
    weighted = evaluate_criteria(record_with(('contact', 1.0), ('grasp', 2.0)), CONFIG, weights)
    assert weighted.total == pytest.approx(2.0 * 1.0 + 0.5 + 0.5 * 1.0 + 3.0 * 2.0 / 3.0)
    assert list(weighted.partials) == [
        'time', 'force', 'object_cog', 'instant_force', 'instant_contacting_link',
        'grasp_time', 'final_position', 'epsilon']


def test_the_epsilon_criterion_is_the_mean_quality_from_the_grasp_and_weighs_0_by_default():
    record = TrialRecord(n_bodies=3, trial_id=1)
    # epsilon 0.9 before the grasp (left out), then 0.2, NaN (not computed), 0.4
    for second, epsilon in enumerate((0.9, 0.2, math.nan, 0.4)):
        record.append(float(second), np.zeros(3), np.zeros(3), NO_CONTACT, epsilon)
    assert epsilon_criterion(record) == 0.0  # no grasp yet
    record.add_event(EventRecord('grasp', 1.0, 1.0, 1, 1, Command.ACTIVATE))
    assert epsilon_criterion(record) == pytest.approx(0.3)
    report = evaluate_criteria(record, CONFIG)
    assert report.partials['epsilon'] == pytest.approx(0.3)
    assert report.total == pytest.approx(sum(
        value for name, value in report.partials.items() if name != 'epsilon'))
    weighted = evaluate_criteria(record, CONFIG, CriteriaWeights(epsilon=2.0))
    assert weighted.total == pytest.approx(report.total + 0.6)


def test_a_contact_timeout_scores_zero_everywhere():
    report = evaluate_criteria(record_with(('contact_timeout', 2.0)), CONFIG)
    assert dict(report.partials) == dict.fromkeys(CRITERIA, 0.0)
    assert report.total == 0.0


def test_without_a_grasp_only_time_and_force_score():
    record = record_with(('contact', 1.0))
    report = evaluate_criteria(record, CONFIG)
    # (t_end / T)^2 = (4 / 10)^2.
    assert report.partials['time'] == pytest.approx(0.16)
    assert report.partials['force'] == pytest.approx(0.2)
    assert report.total == pytest.approx(0.36)
    # rostok leaves (t_end / T)^2 unclipped: 4 s of a 2 s trial would score 4.
    assert time_criterion(record, CriteriaConfig(trial_duration=2.0)) == 1.0


def test_the_time_criterion_takes_the_grasp_limit_as_rostoks_pipeline_does():
    # contact, no grasp, the trial stopped at its grasp limit (4 s here): rostok's pipeline
    # passes the grasp limit as T (TimeCriterion(event_grasp_time_param, ...)): (4 / 4)^2 = 1;
    # the trial duration (10 s) as its examples: (4 / 10)^2 = 0.16
    record = record_with(('contact', 1.0))
    at_limit = CriteriaConfig(trial_duration=10.0, grasp_limit=4.0)
    assert time_criterion(record, at_limit) == pytest.approx(0.16)
    pipeline = dataclasses.replace(at_limit, time_span='grasp_limit')
    assert time_criterion(record, pipeline) == pytest.approx(1.0)
    with pytest.raises(ValueError, match='time_span must be one of grasp_limit, '
                       "trial_duration, got 'steps'"):
        CriteriaConfig(time_span='steps')


def test_slip_out_zeroes_the_final_position_only():
    record = record_with(('contact', 1.0), ('grasp', 2.0), ('slip_out', 4.0))
    assert final_position_criterion(record, CONFIG) == 0.0
    assert object_cog_criterion(record) == pytest.approx(1.0 / 1.3)
    # Moving farther than the reference scores 0 too.
    assert final_position_criterion(
        record_with(('grasp', 2.0)), CriteriaConfig(final_position_ref=0.05)) == 0.0


def test_force_criterion_is_zero_when_every_sample_is_over_the_cutoff():
    assert force_criterion(record_with(), CriteriaConfig(force_cutoff=2.0)) == 0.0
    # Only the 3 N sample is under 3.5 N.
    assert force_criterion(record_with(), CriteriaConfig(force_cutoff=3.5)) == 0.25


def test_instant_criteria_need_the_grasp_sample_in_the_record():
    # A grasp at 0.5 s lands on the next row (1 s); one after the last row finds none.
    record = record_with(('grasp', 0.5))
    assert grasp_index(record) == 1
    assert instant_force_criterion(record) == pytest.approx(1.0 / 1.5)
    assert instant_contacting_link_criterion(record) == pytest.approx(2.0 / 3.0)
    late = record_with(('grasp', 7.0))
    assert grasp_index(late) is None
    assert (object_cog_criterion(late), instant_force_criterion(late),
            instant_contacting_link_criterion(late)) == (0.0, 0.0, 0.0)
    # A grasp time past the limit (stale input paused the limit) is clipped to 0.
    assert grasp_time_criterion(late, CONFIG) == 0.0
    # A grasp on a sample without contact scores 0 for the COG and the force spread.
    assert (object_cog_criterion(record_with(('grasp', 0.0))),
            instant_force_criterion(record_with(('grasp', 0.0)))) == (0.0, 0.0)


def test_configs_and_weights_are_validated():
    with pytest.raises(ConfigError) as error:
        CriteriaConfig(trial_duration=0.0)
    assert str(error.value) == 'trial_duration must be finite and > 0, got 0.0'
    with pytest.raises(ConfigError) as error:
        CriteriaWeights(force=-1.0)
    assert str(error.value) == 'weight force must be finite and >= 0, got -1.0'
    with pytest.raises(ConfigError) as error:
        CriteriaWeights(time=math.nan)
    assert str(error.value) == 'weight time must be finite and >= 0, got nan'
    with pytest.raises(ConfigError) as error:
        CriteriaReport({'speed': 1.0}, CriteriaWeights(), 1.0)
    assert str(error.value).startswith('unknown criteria speed; valid: time, force,')


def test_monitor_events_feed_the_record_of_a_scripted_grasp():
    # 1200 samples; the object rises 1 mm per sample from sample 1050: 0.149 m by the last.
    monitor = GraspMonitor(MonitorConfig(robot_bodies=script.BODIES))
    record = TrialRecord(n_bodies=3, trial_id=1, body_names=script.BODIES)
    contacts = ContactSummary(2, [0, 0, 2.0], [0, 0, 0], 0.0, script.TWO_FINGERS)
    for step, sample in enumerate(script.approach_then_grasp(hold_s=0.65)):
        height_m = max(0, step - 1050) * 0.001
        summary = contacts if sample.in_contact.any() else NO_CONTACT
        record.append(sample.time_s, [0, 0, height_m], np.zeros(3), summary)
        for event in monitor.update(sample).records:
            record.add_event(event)
    assert grasp_index(record) == 559
    report = evaluate_criteria(record, CONFIG)
    # Force 2 N on every contact sample; contact points at the COG with no spread;
    # 2 of 3 bodies; grasp at 0.559 s of 5 s.
    expected = {
        'time': 1.0, 'force': 1.0 / 3.0, 'object_cog': 1.0, 'instant_force': 1.0,
        'instant_contacting_link': 2.0 / 3.0, 'grasp_time': 1.0 - 0.559 / 5.0,
        'final_position': 1.0 - 0.149 / 0.3, 'epsilon': 0.0}  # no epsilon recorded
    assert dict(report.partials) == pytest.approx(expected)
    assert report.total == pytest.approx(sum(expected.values()))
    assert report.rounded()['total'] == 5.392
