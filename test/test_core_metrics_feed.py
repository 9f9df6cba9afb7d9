"""core/metrics/feed.py: the metrics' inputs on the grid of stamps, records, status."""

from grasp_monitor.core.metrics import MetricsConfig, TrialMetrics
from grasp_monitor.core.metrics.feed import MetricsFeed
from grasp_monitor.core.monitor import Command, EventRecord
from grasp_monitor.core.values import BodyState
import numpy as np
import pytest


def still(name, y_m, time_s):
    return BodyState(name, [0, y_m, 0], [1.0, 0, 0, 0], np.zeros(3), np.zeros(3), time_s)


def feed_step(feed, time_s, object_y_m=0.0):
    """Feed the object at object_y_m, pads at y = +-0.03 m, one taxel each pressing 1 N."""
    feed.add_body('object', still('object', object_y_m, time_s))
    for pad, y_m, sign in (('left', 0.03, 1.0), ('right', -0.03, -1.0)):
        feed.add_body(pad, still(pad, y_m, time_s))
        feed.add_taxels(pad, np.array([[0, -0.005 * sign, 0]]), np.array([[0, sign, 0]]),
                        time_s)
    return [feed.take(point) for point in feed.due()]


def test_the_feed_samples_on_the_grid_routes_the_records_and_reports():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3, 0.01))
    feed = MetricsFeed(metrics, None, (1e-3, 1.0))
    assert feed.names == ('object', 'left', 'right', 'tactile/left', 'tactile/right')
    assert feed.energy_status() == ('OK', 'held', {
        'energy_j': '0', 'threshold_j': 1.0, 'samples': 0, 'dropped_samples': 0,
        'old_timeline_inputs': 0, 'refused_stamps': 0, 'timelines': 0,
        'source_restarts': 0, 'reset_dropped_readings': 0})
    assert feed.criteria_status() is None
    assert feed.add_record(EventRecord('trial_start', 0.0, 0.0, 0, 1, Command.CONTINUE)) \
        == ([], [])
    for i in range(4):
        feed_step(feed, 0.01 * i, 0.001 * i)
    assert feed.samples == 4 and feed.latest('tactile/left')[1].tolist() == [[0, 1.0, 0]]
    energies, _ = feed.add_record(EventRecord('grasp', 0.01, 0.01, 1, 1, Command.ACTIVATE))
    assert energies == []
    level, message, values = feed.energy_status()
    # 3 mm off the start in 0.03 s: 1/2 0.2 (0.003 / 1 ms physics step)^2 J
    assert (level, message, values['energy_j']) == ('WARN', 'object moving in the hand', '0.9')
    _, reports = feed.add_record(EventRecord('trial_end', 0.03, 0.03, 3, 1, Command.STOP))
    assert len(reports) == 1
    message, values = feed.criteria_status()
    assert message == f'reward {reports[0].total:.3f}'
    assert values['trial'] == '1' and values['basis'] == 'taxels (estimate)'
    assert float(values['total']) == pytest.approx(reports[0].total)
    assert (values['samples'], values['first_sample_s']) == ('4', '0.0')


def run_trial(hostile=None):
    """Run one trial of 60 samples (grasp at 0.1 s); ``hostile(feed, i)`` disturbs step i."""
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3, 0.01))
    feed = MetricsFeed(metrics, None, (1e-3, 1.0))
    feed.add_record(EventRecord('trial_start', 0.0, 0.0, 0, 1, Command.CONTINUE))
    energies = []
    for i in range(60):
        for energy, _ in feed_step(feed, 1.0 + 0.01 * i, 0.0005 * i):
            energies += energy
        if i == 10:
            feed.add_record(EventRecord('grasp', 1.1, 0.1, 10, 1, Command.ACTIVATE))
        if hostile is not None:
            hostile(feed, i)
    _, reports = feed.add_record(EventRecord('trial_end', 1.59, 0.59, 59, 1, Command.STOP))
    return reports, energies, feed


@pytest.mark.parametrize('stamp_s', [0.0, 0.3, 1e9, 1.25],
                         ids=['zero', 'past', 'far_future', 'out_of_order'])
def test_a_valid_reading_with_a_hostile_stamp_changes_no_criterion(stamp_s):
    """One ground truth stamped 0, 1 s back, far ahead or out of order, after the grasp."""
    (undisturbed,), energies, _ = run_trial()

    def hostile(feed, i):
        if i == 30:  # at 1.3 s
            feed.add_body('object', still('object', 0.5, stamp_s))

    (report,), disturbed_energies, feed = run_trial(hostile)
    assert report.partials == undisturbed.partials and report.total == undisturbed.total
    assert [e.max_energy_j for e in disturbed_energies] == [e.max_energy_j for e in energies]
    values = feed.energy_status()[2]
    # out of order by less than the grid's 50 ms is a late reading, placed by its stamp
    assert values['refused_stamps'] == (0 if stamp_s == 1.25 else 1)
    assert values['timelines'] == 0


def test_a_restart_going_on_from_its_jump_opens_a_timeline_and_counts_what_it_drops():
    metrics = TrialMetrics(MetricsConfig('object', ('left', 'right'), 0.2, (1e-4,) * 3, 0.01))
    feed = MetricsFeed(metrics, None, (1e-3, 1.0))
    for i in range(20):
        feed_step(feed, 1.0 + 0.01 * i)
    feed_step(feed, 0.0)  # every stream back at 0: a restarted simulator
    feed_step(feed, 0.01)
    values = feed.energy_status()[2]
    assert (values['timelines'], values['refused_stamps']) == (1, 0)
    assert values['reset_dropped_readings'] > 0 and feed.grid.stamps.jumps == 5
