"""Contact summaries and the trial record."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics.trial import (
    ContactSummary, summarize_contacts, summarize_object_contacts, TrialRecord)
from grasp_monitor.core.monitor import Command, EventRecord
from grasp_monitor.core.values import Contacts
import numpy as np
import pytest


def test_summary_of_contacts_by_hand():
    points = [[0.0, 0.0, 0.0], [0.2, 0.0, 0.0], [0.1, 0.3, 0.0], [9.0, 9.0, 9.0], [5.0, 5.0, 5.0]]
    forces = [[0.0, 0.0, 3.0], [0.0, 4.0, 0.0], [0.0, 0.0, 0.0005], [1.0, 0.0, 0.0],
              [0.0, 0.0, 1.0]]
    # Kept: contacts 0 (3 N, body 1), 1 (4 N, body 2) and 4 (1 N, body 1);
    # 2 is under 1e-3 N and 3 touches something that is not the robot.
    summary = summarize_contacts(points, forces, [1, 2, 0, -1, 1], n_bodies=3)
    assert summary.count == 3
    np.testing.assert_allclose(summary.net_force_on_object_in_world, [0.0, 4.0, 4.0])
    np.testing.assert_allclose(summary.mean_point_in_world, [5.2 / 3, 5.0 / 3, 5.0 / 3])
    # Magnitudes 3, 4, 1: mean 8/3, population variance (1/9 + 16/9 + 25/9) / 3 = 14/9.
    assert summary.force_magnitude_std_n == pytest.approx(math.sqrt(14.0) / 3.0)
    np.testing.assert_array_equal(summary.body_mask, [False, True, True])


def test_no_contact_summary_is_empty_with_nan_point_and_spread():
    summary = summarize_contacts(np.zeros((0, 3)), np.zeros((0, 3)), [], n_bodies=2)
    assert summary.count == 0
    np.testing.assert_array_equal(summary.net_force_on_object_in_world, np.zeros(3))
    assert np.isnan(summary.mean_point_in_world).all()
    assert math.isnan(summary.force_magnitude_std_n)
    np.testing.assert_array_equal(summary.body_mask, [False, False])
    assert summarize_contacts([[0, 0, 0]], [[0, 0, 1e-4]], [0], 2) is ContactSummary.none(2)


def test_summary_refuses_inconsistent_input():
    with pytest.raises(ConfigError) as error:
        summarize_contacts(np.zeros((2, 3)), np.zeros((1, 3)), [0, 1], 2)
    assert str(error.value) == (
        'points (2), forces (1) and body_index (2) must count the same contacts')
    with pytest.raises(ConfigError) as error:
        summarize_contacts(np.zeros((1, 3)), np.ones((1, 3)), [2], 2)
    assert str(error.value) == 'body_index must be in [-1, 1], got [2]'


def test_object_contacts_from_simulator_contacts_flip_the_force_when_the_object_is_geom1():
    identity = np.repeat(np.eye(3)[None], 3, axis=0)
    contacts = Contacts(
        position_in_world=[[0.0, 0.1, 0.0], [0.0, -0.1, 0.0], [0.0, 0.0, -0.05]],
        frame_in_world=identity,
        force_in_contact=[[2.0, 0.0, 0.0], [3.0, 0.0, 0.0], [9.8, 0.0, 0.0]],
        geom1=[10, 20, 20], geom2=[20, 11, 30],
        body1=[2, 5, 5], body2=[5, 3, 0])
    # Object = body 5, robot bodies (1, 2, 3); body 0 is the table.
    summary = summarize_object_contacts(contacts, 5, [1, 2, 3])
    assert summary.count == 2
    # On the object: +2 N from body 2 (object is geom2), -3 N from body 3 (object is geom1).
    np.testing.assert_allclose(summary.net_force_on_object_in_world, [-1.0, 0.0, 0.0])
    np.testing.assert_allclose(summary.mean_point_in_world, [0.0, 0.0, 0.0])
    assert summary.force_magnitude_std_n == pytest.approx(0.5)
    np.testing.assert_array_equal(summary.body_mask, [False, True, True])


def test_record_grows_geometrically_and_keeps_every_row():
    record = TrialRecord(n_bodies=2, trial_id=1, capacity=2)
    touching = ContactSummary(2, [0.0, 0.0, 5.0], [0.0, 0.0, 0.1], 0.5, [True, True])
    for row in range(5):
        contacts = touching if row % 2 else ContactSummary.none(2)
        record.append(0.5 + 0.1 * row, [row, 0.0, 0.0], [0.0, row, 0.0], contacts)
    assert (len(record), record.capacity) == (5, 8)
    np.testing.assert_allclose(record.time_s, [0.5, 0.6, 0.7, 0.8, 0.9])
    np.testing.assert_allclose(record.trial_time_s, [0.0, 0.1, 0.2, 0.3, 0.4])
    np.testing.assert_array_equal(record.object_position_in_world[:, 0], [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(record.object_velocity_in_world[:, 1], [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(record.contact_count, [0, 2, 0, 2, 0])
    np.testing.assert_array_equal(record.net_force_on_object_in_world[:, 2], [0, 5, 0, 5, 0])
    assert np.isnan(record.mean_contact_point_in_world[0]).all()
    assert record.mean_contact_point_in_world[1, 2] == 0.1
    np.testing.assert_array_equal(record.contact_force_std_n[[1, 3]], [0.5, 0.5])
    np.testing.assert_array_equal(record.body_mask.sum(axis=1), [0, 2, 0, 2, 0])
    assert record.start_time_s == 0.5
    with pytest.raises(ValueError):
        record.time_s[0] = 1.0


def test_record_finds_rows_by_time_and_events_by_kind():
    record = TrialRecord(n_bodies=1, trial_id=4)
    for row in range(4):
        record.append(row * 0.001, np.zeros(3), np.zeros(3), ContactSummary.none(1))
    assert record.index_at(0.002) == 2
    assert record.index_at(0.0015) == 2
    assert record.index_at(0.0) == 0
    assert record.index_at(0.01) is None
    grasp = EventRecord('grasp', 0.002, 0.002, 2, 4, Command.ACTIVATE)
    record.add_event(EventRecord('contact', 0.001, 0.001, 1, 4))
    record.add_event(grasp)
    assert record.first_event('grasp') == grasp
    assert record.first_event('slip_out') is None
    assert [r.kind for r in record.events] == ['contact', 'grasp']
    with pytest.raises(ConfigError) as error:
        record.add_event(EventRecord('grasp', 0.002, 0.002, 2, 5))
    assert str(error.value) == 'record of trial 5 does not belong to trial 4'


def test_record_refuses_time_going_back_and_wrong_masks():
    record = TrialRecord(n_bodies=3)
    record.append(1.0, np.zeros(3), np.zeros(3), ContactSummary.none(3))
    with pytest.raises(ConfigError) as error:
        record.append(0.5, np.zeros(3), np.zeros(3), ContactSummary.none(3))
    assert str(error.value) == (
        'time_s must not go back: 0.5 after 1.0; start a new record for a new trial')
    with pytest.raises(ConfigError) as error:
        record.append(2.0, np.zeros(3), np.zeros(3), ContactSummary.none(2))
    assert str(error.value) == 'contact mask has 2 bodies, the record 3'
    with pytest.raises(ConfigError) as error:
        TrialRecord(n_bodies=2, body_names=('palm',))
    assert str(error.value) == "body_names must name 2 bodies, got ['palm']"
    assert len(record) == 1
