"""Trial metrics from ground truth and tactile arrays: energy every sample, criteria at the end."""

from grasp_monitor.core.events import Command, EventRecord
from grasp_monitor.core.metrics import MetricsConfig, TrialMetrics
from grasp_monitor.core.values import BodyState
import numpy as np
import pytest

IDENTITY = [1.0, 0, 0, 0]


def still(name, position, time_s):
    return BodyState(name, position, IDENTITY, np.zeros(3), np.zeros(3), time_s)


def squeeze(metrics, time_s, force_n=1.0):
    """Object at the origin, pads at y = +-0.03 m, one taxel each pressing force_n on it."""
    pads = [still('left', [0, 0.03, 0], time_s), still('right', [0, -0.03, 0], time_s)]
    positions = [np.array([[0, -0.005, 0]]), np.array([[0, 0.005, 0]])]
    # force on each pad, pad frame: the object pushes the left pad to +y, the right to -y
    forces = [np.array([[0, force_n, 0]]), np.array([[0, -force_n, 0]])]
    return metrics.update(time_s, still('object', [0, 0, 0], time_s), pads, positions, forces)


def test_a_still_squeeze_has_zero_energy_and_hand_computed_criteria():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    assert squeeze(metrics, 0.0) is None  # no trial open
    metrics.start(trial_id=1)
    for i in range(20):
        sample = squeeze(metrics, 0.01 * i)
        assert sample.energy_mean_j.tolist() == [0.0]
        if i == 5:
            metrics.add_event(EventRecord('grasp', 0.05, 0.05, 5, 1, Command.ACTIVATE))
    report = metrics.finish()
    # both pads touch at the grasp sample: 2 of 2 bodies
    assert report.partials['instant_contacting_link'] == 1.0
    # equal and opposite forces: net force 0 on every sample, reward 1 / (1 + 0)
    assert report.partials['force'] == 1.0
    # contact centroid (0, 0, 0) is the COG: 1 / (1 + 0)
    assert report.partials['object_cog'] == 1.0
    # both taxels carry 1 N: std 0
    assert report.partials['instant_force'] == 1.0
    assert report.total == pytest.approx(sum(report.partials.values()))
    assert metrics.finish() is None  # closed


def test_the_contact_points_move_with_the_pads():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    metrics.start(1)
    squeeze(metrics, 0.0)
    record = metrics.record
    np.testing.assert_allclose(record.mean_contact_point_in_world[0], [0, 0, 0], atol=1e-12)
    assert record.contact_count[0] == 2


def test_energy_from_the_grasp_waits_for_it_then_takes_the_pose_in_the_hand():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3,
                                         energy_from='grasp'))
    metrics.start(trial_id=1)
    pads = [still('left', [0, 0.03, 0.1], 0.0), still('right', [0, -0.03, 0.1], 0.0)]
    none = [np.zeros((0, 3))] * 2
    # the hand 0.1 m above the object: from the trial start this would be energy
    assert metrics.update(0.0, still('object', [0, 0, 0], 0.0), pads, none, none) is None
    metrics.add_event(EventRecord('grasp', 0.01, 0.01, 1, 1, Command.ACTIVATE))
    for i in range(1, 4):
        # object and hand rise together by 1 mm per 10 ms sample: rigid, zero energy
        z = 0.001 * i
        pads = [still('left', [0, 0.03, 0.1 + z], 0.01 * i),
                still('right', [0, -0.03, 0.1 + z], 0.01 * i)]
        sample = metrics.update(0.01 * i, still('object', [0, 0, z], 0.01 * i), pads, none,
                                none)
        assert sample.energy_mean_j.tolist() == pytest.approx([0.0], abs=1e-12)
    # the object drops 1 mm in the hand in one sample: 1/2 m (d/dt)^2 = 0.1 * 0.1^2 J
    pads = [still('left', [0, 0.03, 0.104], 0.04), still('right', [0, -0.03, 0.104], 0.04)]
    sample = metrics.update(0.04, still('object', [0, 0, 0.003], 0.04), pads, none, none)
    assert sample.energy_mean_j.tolist() == pytest.approx([0.5 * 0.2 * 0.1 ** 2])


def test_an_unknown_energy_reference_is_refused_with_the_choices():
    with pytest.raises(ValueError) as error:
        MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3, energy_from='contact')
    assert str(error.value) == "energy_from must be one of trial_start, grasp, got 'contact'"
