"""Trial metrics from ground truth and tactile arrays: energy every sample, criteria at the end."""

from grasp_monitor.core.metrics import MetricsConfig, TrialMetrics
from grasp_monitor.core.monitor import Command, EventRecord
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
    # the object 1 mm low in the hand: 1/2 m (d/dt)^2 with dt the physics step (1 ms by
    # default), not the 10 ms between samples: 0.1 * 1^2 J
    pads = [still('left', [0, 0.03, 0.104], 0.04), still('right', [0, -0.03, 0.104], 0.04)]
    sample = metrics.update(0.04, still('object', [0, 0, 0.003], 0.04), pads, none, none)
    assert sample.energy_mean_j.tolist() == pytest.approx([0.5 * 0.2 * 1.0 ** 2])


def test_an_unknown_energy_reference_is_refused_with_the_choices():
    with pytest.raises(ValueError) as error:
        MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3, energy_from='contact')
    assert str(error.value) == "energy_from must be one of trial_start, grasp, got 'contact'"


def squeeze_args(time_s, object_y_m=0.0, timeline=0):
    """Return the arguments of add(): pads at y = +-0.03 m, the object at object_y_m."""
    pads = [still('left', [0, 0.03, 0], time_s), still('right', [0, -0.03, 0], time_s)]
    positions = [np.array([[0, -0.005, 0]]), np.array([[0, 0.005, 0]])]
    forces = [np.array([[0, 1.0, 0]]), np.array([[0, -1.0, 0]])]
    return time_s, still('object', [0, object_y_m, 0], time_s), pads, positions, forces, timeline


def metrics_of(**overrides):
    return TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3,
                                      **overrides))


def test_a_trial_holds_the_samples_stamped_within_it_whenever_its_bounds_arrive():
    metrics = metrics_of()
    # samples 0.00 .. 0.05 s arrive before the trial_start stamped 0.02 s
    for i in range(6):
        assert metrics.add(*squeeze_args(0.01 * i, 0.001 * i)) == ([], [])
    kept, ended = metrics.start(1, start_time_s=0.02)
    assert ended == []
    assert len(kept) == 4  # 0.02 .. 0.05 s; the first is the energy reference
    assert kept[0].energy_mean_j[0] == pytest.approx(0.0, abs=1e-20)
    assert kept[-1].energy_mean_j[0] > 1e-9
    assert metrics.record.time_s.tolist() == pytest.approx([0.02, 0.03, 0.04, 0.05])
    metrics.add_event(EventRecord('grasp', 0.03, 0.01, 1, 1, Command.ACTIVATE))
    record = metrics.record
    # the trial_end stamped 0.07 s comes before the samples of 0.06 and 0.07 s
    assert metrics.end(0.07) == ([], [])
    energies, reports = metrics.add(*squeeze_args(0.06, 0.006))
    assert len(energies) == 1 and reports == []
    energies, reports = metrics.add(*squeeze_args(0.07, 0.007))
    assert len(reports) == 1 and metrics.record is None
    assert record.time_s.tolist() == pytest.approx([0.02, 0.03, 0.04, 0.05, 0.06, 0.07])
    # final position: the object moved 0.004 m from the grasp at 0.03 s (reference 0.3 m)
    assert reports[0].partials['final_position'] == pytest.approx(1 - 0.004 / 0.3)
    assert metrics.add(*squeeze_args(0.08)) == ([], [])  # no trial open


def test_samples_taken_after_the_end_before_it_was_known_are_dropped():
    metrics = metrics_of()
    metrics.start(1, start_time_s=0.0)
    metrics.add_event(EventRecord('grasp', 0.01, 0.01, 1, 1, Command.ACTIVATE))
    for i in range(6):  # the metrics ran ahead of the monitor's trial_end at 0.03 s
        metrics.add(*squeeze_args(0.01 * i, 0.001 * i))
    _, reports = metrics.end(0.03)
    # the object moved 0.002 m from the grasp (0.01 s) to the end (0.03 s)
    assert reports[0].partials['final_position'] == pytest.approx(1 - 0.002 / 0.3)


def test_energy_from_the_grasp_takes_the_grasp_sample_whenever_the_record_comes():
    metrics = metrics_of(energy_from='grasp')
    metrics.start(1, start_time_s=0.0)
    energies = []
    for i in range(4):  # the object drops 1 mm per sample; the grasp at 0.01 s comes late
        energies += metrics.add(*squeeze_args(0.01 * i, -0.001 * i))[0]
    assert energies == []
    energies = metrics.add_event(EventRecord('grasp', 0.01, 0.01, 1, 1, Command.ACTIVATE))
    # 0.01 s is the reference; d m off it: 1/2 m (d / 1 ms)^2 = 0.1 * (1000 d)^2 J (dt is
    # the physics step, not the 10 ms between samples)
    assert [e.energy_mean_j[0] for e in energies] == pytest.approx([0.0, 0.1, 0.4])
    energies, _ = metrics.add(*squeeze_args(0.04, -0.004))
    assert energies[0].energy_mean_j[0] == pytest.approx(0.9)


#: A recorded trial: samples every 10 ms on timeline 0 up to 2.55 s, then a reset and
#: timeline 1 from 0.01 s; the monitor's records of a trial the reset ended, the next.
OLD = [round(2.0 + 0.01 * i, 2) for i in range(56)]
NEW = [round(0.01 * i, 2) for i in range(1, 41)]
RECORDS = [('start', 1, 2.23), ('end', 2.27, True), ('start', 2, 0.01),
           ('grasp', 2, 0.1), ('end', 0.3, False)]


def replay(order, old=OLD, seed_y=0.0, records=RECORDS):
    """Feed the samples and the records merged in ``order`` (True: next record)."""
    metrics = metrics_of()
    samples = [squeeze_args(t, seed_y + 0.001 * i, 0) for i, t in enumerate(old)] + \
        [squeeze_args(t, 0.0005 * i, 1) for i, t in enumerate(NEW)]
    samples, records, reports = iter(samples), iter(records), []
    for record_next in order:
        if not record_next:
            reports += metrics.add(*next(samples))[1]
            continue
        kind, *args = next(records)
        if kind == 'start':
            reports += metrics.start(*args)[1]
        elif kind == 'end':
            reports += metrics.end(*args)[1]
        else:
            metrics.add_event(EventRecord('grasp', args[1], args[1], 1, args[0],
                                          Command.ACTIVATE))
    return reports


#: As the monitor sends them: trial 2's start says where time went back from (its last
#: sample, 2.27 s; the metrics' grid may have taken samples up to 2.55 s).
RECORDS_SAYING_RESET = RECORDS[:2] + [('start', 2, 0.01, 2.27)] + RECORDS[3:]


@pytest.mark.parametrize('records', [RECORDS, RECORDS_SAYING_RESET],
                         ids=['stamps only', 'reset said'])
@pytest.mark.parametrize('seed', range(20))
def test_the_criteria_do_not_depend_on_when_the_records_arrive(seed, records):
    """Each record at any point of the sample stream: the same trials, the same criteria."""
    rng = np.random.default_rng(seed)
    old = OLD[:int(rng.integers(30, 57))]  # the grid may drop the last samples at a reset
    n = len(old) + len(NEW)
    # the metrics took a sample before the records came (else they are a late subscriber's)
    order = [False] * (n - 1) + [True] * len(records)
    rng.shuffle(order)
    order = [False] + order
    reports = replay(order, old, records=records)
    assert len(reports) == 2, (order, reports)
    reference = replay([False] + [True] * 3 + [False] * (n - 1) + [True] * 2, old,
                       records=records)[-1]
    assert reports[-1].partials == reference.partials, order
    assert reports[-1].total == reference.total


#: The demo's records: the simulator ran to 2.55 s, was reset with no trial open, and the
#: monitor's first sample after the reset opened trial 1 (saying where time went back from).
RECORDS_AFTER_RESET = [('start', 1, 0.01, 2.55), ('grasp', 1, 0.1), ('end', 0.3, False)]


def merged(samples, *before):
    """Return the order of ``replay`` with each record after ``before[i]`` samples."""
    order, taken = [], 0
    for count in before:
        order += [False] * (count - taken) + [True]
        taken = count
    return order + [False] * (samples - taken)


@pytest.mark.parametrize('seed', range(20))
def test_a_trial_after_a_reset_is_on_the_new_timeline_whenever_its_start_arrives(seed):
    """The start may come while the metrics still read the old timeline, which reaches it."""
    rng = np.random.default_rng(seed)
    n = len(OLD) + len(NEW)
    start = int(rng.integers(1, len(OLD)))  # among the old timeline's samples
    grasp = int(rng.integers(start, n + 1))
    reports = replay(merged(n, start, grasp, int(rng.integers(grasp, n + 1))),
                     records=RECORDS_AFTER_RESET)
    # the reference: the records come after the new timeline's first sample
    reference = replay(merged(n, len(OLD) + 1, len(OLD) + 10, n), records=RECORDS_AFTER_RESET)
    assert len(reports) == 1 and reports[0].partials == reference[0].partials, seed
    assert reports[0].total == reference[0].total


def test_a_start_that_comes_before_the_reset_waits_for_the_new_timeline():
    metrics = metrics_of()
    for t in OLD:
        metrics.add(*squeeze_args(t))
    # without where time went back from, 0.01 s would be placed on the old timeline
    assert metrics.start(1, start_time_s=0.01, reset_from_s=2.55) == ([], [])
    energies, _ = metrics.add(*squeeze_args(0.01, timeline=1))
    assert len(energies) == 1 and metrics.record.time_s.tolist() == [0.01]


def test_a_late_subscriber_places_a_trial_after_a_reset_once_its_timeline_passes_it():
    metrics = metrics_of()
    metrics.start(1, start_time_s=0.01, reset_from_s=2.55)
    for t in NEW:  # the first timeline this node has, up to 0.4 s: the old one, or the new?
        metrics.add(*squeeze_args(t))
    assert metrics.record.time_s.tolist() == []
    energies, _ = metrics.add(*squeeze_args(3.6))  # past the reset's 2.55 s: the new one
    assert len(energies) == len(NEW) + 1 and metrics.record.time_s[0] == 0.01


def test_a_late_subscriber_places_a_trial_after_a_reset_once_its_end_is_in():
    metrics = metrics_of()
    metrics.start(1, start_time_s=0.01, reset_from_s=2.55)
    for t in NEW:
        metrics.add(*squeeze_args(t))
    _, reports = metrics.end(0.3)  # the trial's samples are all in, and no reset came
    assert len(reports) == 1 and metrics.report_samples == (30, 0.01, 0.3)


def test_a_trial_on_an_old_timeline_is_found_though_the_metrics_passed_its_reset():
    metrics = metrics_of()
    for t in OLD:
        metrics.add(*squeeze_args(t))
    for t in NEW[:3]:  # the metrics are ahead of the monitor: past the reset
        metrics.add(*squeeze_args(t, timeline=1))
    metrics.start(1, start_time_s=2.23)
    _, reports = metrics.end(2.27, time_reset=True)
    assert metrics.report_samples == (5, 2.23, 2.27) and len(reports) == 1
    kept, _ = metrics.start(2, start_time_s=0.01)
    assert len(kept) == 3 and metrics.record.time_s.tolist() == [0.01, 0.02, 0.03]


def test_a_late_subscriber_places_the_open_trial_on_its_first_timeline():
    metrics = metrics_of()
    # the kept records of a trial a reset ended, then of the open one, before any sample
    metrics.start(1, start_time_s=1.0)
    metrics.end(1.05, time_reset=True)
    assert metrics.start(2, start_time_s=0.01) == ([], [])
    energies, reports = metrics.add(*squeeze_args(5.0, timeline=3))
    assert len(energies) == 1 and metrics.record.time_s.tolist() == [5.0]


def test_a_trial_a_reset_ended_before_the_first_sample_is_passed_over():
    metrics = metrics_of()
    # the metrics' inputs came first after the reset: no sample of trial 1's timeline
    for t in NEW[:5]:
        metrics.add(*squeeze_args(t))
    metrics.start(1, start_time_s=2.23)
    metrics.end(2.27, time_reset=True)
    metrics.start(2, start_time_s=0.01)
    assert metrics.record.time_s.tolist() == []  # trial 1's timeline may still end
    energies, _ = metrics.add(*squeeze_args(3.28))  # 1 s past trial 1's reset: not its
    assert metrics.record.time_s.tolist() == [0.01, 0.02, 0.03, 0.04, 0.05, 3.28]
    assert len(energies) == 6


def test_a_trial_after_a_reset_takes_the_new_timeline_though_its_first_sample_is_late():
    metrics = metrics_of()
    for t in OLD:
        metrics.add(*squeeze_args(t))
    metrics.start(1, start_time_s=2.23)
    metrics.end(2.55, time_reset=True)
    metrics.start(2, start_time_s=0.01)
    for t in NEW[9:12]:  # one of the metrics' inputs came late after the reset: from 0.1 s
        metrics.add(*squeeze_args(t, timeline=1))
    assert metrics.record.time_s.tolist() == [0.1, 0.11, 0.12]


def test_every_sample_gets_the_grasp_quality_of_its_contacts_or_its_taxels():
    from grasp_monitor.core.quality import EpsilonConfig, grasp_quality
    pads = ('finger_left', 'finger_right')
    metrics = TrialMetrics(MetricsConfig('object', pads, 0.2, (1e-4,) * 3))
    obj = still('object', [0.1, 0.2, 0.3], 0.0)
    bodies = [still(pads[0], [0.1, 0.23, 0.3], 0.0), still(pads[1], [0.1, 0.17, 0.3], 0.0)]
    # four contacts, two per pad 2 cm apart, pressing the object from both sides
    offsets = np.array([[0.0, y, z] for y in (0.025, -0.025) for z in (0.01, -0.01)])
    normals = np.array([[0.0, -1.0, 0.0]] * 2 + [[0.0, 1.0, 0.0]] * 2)
    metrics.add_contacts(0.0, obj, bodies, offsets + obj.position_in_world, 2.0 * normals,
                         np.array([0, 0, 1, 1]), normals_in_world=normals)
    expected = grasp_quality(offsets, normals, np.zeros(3), EpsilonConfig(), ('l1',))
    stamp, quality = metrics.last_quality
    assert stamp == 0.0 and quality.l1 == pytest.approx(expected.l1, rel=1e-9)
    assert np.isnan(quality.linf)  # only the configured variant, l1
    assert quality.l1 > 0 and quality.contacts == 4 and quality.reason == ''
    # the record of a trial keeps it per sample
    metrics.start(trial_id=1, start_time_s=0.005)
    metrics.add_contacts(0.01, obj, bodies, offsets + obj.position_in_world, 2.0 * normals,
                         np.array([0, 0, 1, 1]), normals_in_world=normals)
    assert metrics.record.epsilon.tolist() == [quality.l1]
    # from taxels (pad frame = world axes here; each pad's z axis is its normal): the
    # same four points, their forces on the pads along -/+ z
    taxels = TrialMetrics(MetricsConfig('object', pads, 0.2, (1e-4,) * 3))
    turn = [np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0]  # pad z along world -y / +y
    left = BodyState(pads[0], [0.1, 0.225, 0.3], turn, np.zeros(3), np.zeros(3), 0.0)
    right = BodyState(pads[1], [0.1, 0.175, 0.3], [np.sqrt(0.5), -np.sqrt(0.5), 0, 0],
                      np.zeros(3), np.zeros(3), 0.0)
    positions = [np.array([[0.0, 0.01, 0.0], [0.0, -0.01, 0.0]])] * 2
    pressed = [np.array([[0.0, 0.0, 1.0]] * 2)] * 2  # the object pushes each pad along +z
    taxels.add(0.0, obj, [left, right], positions, pressed)
    from_taxels = taxels.last_quality[1]
    assert from_taxels.contacts == 4
    assert from_taxels.l1 == pytest.approx(expected.l1, rel=1e-9)


def test_a_body_state_restamped_keeps_its_readings_and_leaves_the_original():
    state = BodyState('cube', [0.1, 0.2, 0.3], [1, 0, 0, 0], [0, 0, 1], [0, 0.5, 0], 0.25)
    assert state.at(0.25) is state
    later = state.at(0.5)
    assert later.time_s == 0.5 and state.time_s == 0.25
    assert later.name == 'cube'
    for field in ('position_in_world', 'quaternion_in_world', 'linear_velocity_in_world',
                  'angular_velocity_in_world'):
        np.testing.assert_array_equal(getattr(later, field), getattr(state, field))
    assert not later.position_in_world.flags.writeable
