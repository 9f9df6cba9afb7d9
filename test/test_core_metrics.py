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


def squeeze_args(time_s, object_y_m=0.0):
    """Return the arguments of a sample: pads at y = +-0.03 m, the object at object_y_m."""
    pads = [still('left', [0, 0.03, 0], time_s), still('right', [0, -0.03, 0], time_s)]
    positions = [np.array([[0, -0.005, 0]]), np.array([[0, 0.005, 0]])]
    forces = [np.array([[0, 1.0, 0]]), np.array([[0, -1.0, 0]])]
    return time_s, still('object', [0, object_y_m, 0], time_s), pads, positions, forces


def test_a_trial_holds_the_samples_stamped_within_it_whenever_its_bounds_arrive():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    # samples 0.00 .. 0.05 s arrive before the trial_start stamped 0.02 s
    for i in range(6):
        assert metrics.add(*squeeze_args(0.01 * i, 0.001 * i)) == (None, None)
    kept, ended = metrics.start(1, start_time_s=0.02)
    assert ended is None
    assert len(kept) == 4  # 0.02 .. 0.05 s; the first is the energy reference
    assert kept[0].energy_mean_j[0] == pytest.approx(0.0, abs=1e-20)
    assert kept[-1].energy_mean_j[0] > 1e-9
    assert metrics.record.time_s.tolist() == pytest.approx([0.02, 0.03, 0.04, 0.05])
    metrics.add_event(EventRecord('grasp', 0.03, 0.01, 1, 1, Command.ACTIVATE))
    # the trial_end stamped 0.07 s comes before the samples of 0.06 and 0.07 s
    assert metrics.end(0.07) is None
    energy, report = metrics.add(*squeeze_args(0.06, 0.006))
    assert energy is not None and report is None
    record = metrics.record
    energy, report = metrics.add(*squeeze_args(0.07, 0.007))
    assert report is not None and metrics.record is None
    assert record.time_s.tolist() == pytest.approx([0.02, 0.03, 0.04, 0.05, 0.06, 0.07])
    # final position: the object moved 0.004 m from the grasp at 0.03 s (reference 0.3 m)
    assert report.partials['final_position'] == pytest.approx(1 - 0.004 / 0.3)
    assert metrics.add(*squeeze_args(0.08)) == (None, None)  # no trial open


def test_a_trial_ended_by_a_reset_closes_on_the_new_timeline():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    metrics.start(1, start_time_s=1.0)
    for i in range(3):
        metrics.add(*squeeze_args(1.0 + 0.01 * i))
    # the simulator was reset: its samples are on a new timeline
    assert metrics.add(*squeeze_args(0.01), timeline=1) == (None, None)
    report = metrics.end(1.05, time_reset=True)  # the monitor's end: no later samples
    assert report is not None and metrics.report_trial_id == 1
    kept, ended = metrics.start(2, start_time_s=0.01, timeline=1)
    assert len(kept) == 1 and ended is None and metrics.record.time_s.tolist() == [0.01]


def test_a_trial_opened_by_a_reset_waits_for_the_new_timeline():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    metrics.start(1, start_time_s=1.0)
    for i in range(3):
        metrics.add(*squeeze_args(1.0 + 0.01 * i, 0.01 * i))
    # the monitor's records come before the metrics' first sample of the new timeline
    assert metrics.end(1.05, time_reset=True) is None  # its samples could still come
    # the kept samples are the old timeline's: none for it; the trial ended gets its criteria
    kept, ended = metrics.start(2, start_time_s=0.01)
    assert kept == [] and ended is not None and metrics.report_trial_id == 1
    energy, report = metrics.add(*squeeze_args(1.03))  # the old timeline, still arriving
    assert energy is None and report is None
    energy, report = metrics.add(*squeeze_args(0.01), timeline=1)
    assert energy is not None and metrics.record.time_s.tolist() == [0.01]


def test_a_trial_before_any_input_takes_the_timeline_of_its_first_sample():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    # a late subscriber gets the kept records of a trial a reset ended, then the next
    metrics.start(1, start_time_s=1.0, timeline=None)
    assert metrics.end(1.05, time_reset=True) is None
    kept, ended = metrics.start(2, start_time_s=0.01, timeline=None)
    assert kept == [] and ended is None  # trial 1 had no sample: no criteria
    energy, report = metrics.add(*squeeze_args(0.01), timeline=3)
    assert energy is not None and metrics.record.time_s.tolist() == [0.01]


def test_samples_taken_after_the_end_before_it_was_known_are_dropped():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3))
    metrics.start(1, start_time_s=0.0)
    metrics.add_event(EventRecord('grasp', 0.01, 0.01, 1, 1, Command.ACTIVATE))
    for i in range(6):  # the metrics ran ahead of the monitor's trial_end at 0.03 s
        metrics.add(*squeeze_args(0.01 * i, 0.001 * i))
    report = metrics.end(0.03)
    # the object moved 0.002 m from the grasp (0.01 s) to the end (0.03 s)
    assert report.partials['final_position'] == pytest.approx(1 - 0.002 / 0.3)
