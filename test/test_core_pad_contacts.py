"""The pads' contacts: those with the object, their strongest force per pad, the criteria."""

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics import MetricsConfig, TrialMetrics
from grasp_monitor.core.monitor import Command, EventRecord
from grasp_monitor.core.pad_contacts import (
    basis_name, body_ids, ObjectContacts, PadContacts, strongest_per_pad)
from grasp_monitor.core.values import BodyState, Contacts
import numpy as np
import pytest

NAMES = ('world', 'table', 'object', 'left', 'right')  # body names by id
IDENTITY = [1.0, 0, 0, 0]


def contacts(rows, time_s=0.0):
    """Contacts from rows (point, force the pad exerts, pad id, other body id)."""
    points, forces, pads, others = zip(*rows)
    normals = [np.asarray(f) / np.linalg.norm(f) for f in forces]
    return PadContacts(points, normals, forces, pads, others, time_s)


#: left presses the object with 2 N and 1 N and the table with 5 N; right the object with 3 N
SQUEEZE = contacts([
    ([0, 0.025, 0.01], [0, -2.0, 0], 3, 2), ([0, 0.025, -0.01], [0, -1.0, 0], 3, 2),
    ([0, 0.03, -0.03], [0, 0, -5.0], 3, 1), ([0, -0.025, 0.0], [0, 3.0, 0], 4, 2)])


def test_only_the_contacts_with_the_object_are_kept_with_their_pad():
    points, forces, pad = SQUEEZE.with_object([3, 4], 2)
    assert pad.tolist() == [0, 0, 1]
    assert forces.tolist() == [[0, -2.0, 0], [0, -1.0, 0], [0, 3.0, 0]]
    assert points[2].tolist() == [0, -0.025, 0.0]
    # the table alone is no contact
    table_only = contacts([([0, 0.03, -0.03], [0, 0, -5.0], 3, 1)])
    assert len(table_only.with_object([3, 4], 2)[0]) == 0


def test_strongest_contact_per_pad():
    _, forces, pad = SQUEEZE.with_object([3, 4], 2)
    assert strongest_per_pad(forces, pad, 2).tolist() == [2.0, 3.0]
    assert strongest_per_pad(np.zeros((0, 3)), [], 2).tolist() == [0.0, 0.0]


def test_contacts_wait_for_the_body_names_and_unknown_names_are_refused():
    picker = ObjectContacts('object', ('left', 'right'))
    assert not picker.ready and picker.take(SQUEEZE) == []
    with pytest.raises(ConfigError, match='not known yet'):
        picker.select(SQUEEZE)
    assert picker.bodies(NAMES) == [SQUEEZE]  # the held contacts come out
    assert picker.take(SQUEEZE) == [SQUEEZE]
    assert picker.select(SQUEEZE)[2].tolist() == [0, 0, 1]
    with pytest.raises(ConfigError, match="pad 'palm' is no body of the simulator; valid: "
                       'world, table, object, left, right'):
        body_ids(NAMES, ('left', 'palm'), 'pad')
    with pytest.raises(ConfigError, match='name the object'):
        ObjectContacts('', ('left', 'right'))


def test_contacts_with_a_wrong_shape_are_refused():
    with pytest.raises(ConfigError, match=r'body2 must have shape \(1,\)'):
        PadContacts([[0, 0, 0]], [[0, 0, 1]], [[0, 0, 1]], [3], [1, 2])
    with pytest.raises(ConfigError, match=r'normal_in_world must have shape \(1, 3\), got'):
        PadContacts([[0, 0, 0]], [[0, 1]], [[0, 0, 1]], [3], [1])
    # the simulator's contacts are checked by the same rule, with their own arrays
    one = ([[0, 0, 0]], [np.eye(3)], [[1.0, 0, 0]], [0], [1], [3], [2])
    assert Contacts(*one).distance_m.tolist() == [0.0]
    with pytest.raises(ConfigError, match=r'geom2 must have shape \(1,\), got \(2,\)'):
        Contacts(*one[:4], [1, 2], *one[5:])
    with pytest.raises(ConfigError, match=r'frame_in_world must have shape \(1, 3, 3\)'):
        Contacts(one[0], [np.eye(2)], *one[2:])
    with pytest.raises(ConfigError, match=r'distance_m must have shape \(1,\), got \(2,\)'):
        Contacts(*one, distance_m=[0.0, 0.0])


def test_criteria_from_contacts_ignore_the_table_and_name_their_basis():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    metrics.start(trial_id=1)
    obj = BodyState('object', [0, 0, 0], IDENTITY, np.zeros(3), np.zeros(3), 0.0)
    pads = [BodyState(name, [0, y, 0], IDENTITY, np.zeros(3), np.zeros(3), 0.0)
            for name, y in (('left', 0.03), ('right', -0.03))]
    picker = ObjectContacts('object', ('left', 'right'))
    picker.bodies(NAMES)
    for i in range(20):
        metrics.add_contacts(0.01 * i, obj, pads, *picker.select(SQUEEZE))
        if i == 5:
            metrics.add_event(EventRecord('grasp', 0.05, 0.05, 5, 1, Command.ACTIVATE))
    report = metrics.finish()
    # forces on the object 2, 1 and 3 N: net 0 (the table's 5 N left out), reward 1
    assert report.partials['force'] == 1.0
    # population std of 2, 1, 3 N: sqrt(2/3)
    assert report.partials['instant_force'] == pytest.approx(1 / (1 + np.sqrt(2 / 3)))
    # mean of the three points: (0, 0.025 / 3, 0), from the COG at the origin
    assert report.partials['object_cog'] == pytest.approx(1 / (1 + 0.025 / 3))
    assert report.partials['instant_contacting_link'] == 1.0
    assert basis_name(True) == 'contacts' and basis_name(False) == 'taxels (estimate)'
