"""Grasp events and the monitor: each event fires exactly when the rule says."""

import dataclasses
import math

from grasp_monitor import testing as script
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor import (
    Command, ContactEvent, EventRecord, EventSet, FlyingApartEvent, GraspEvent, GraspMonitor,
    GraspSample, MonitorConfig, MonitorStatus, StopExternalForceEvent)
import numpy as np
import pytest

PERIOD_S = 0.001
MOVING = {'in_contact': script.TWO_FINGERS, 'object_speed_m_per_s': script.MOVING_M_PER_S}
STILL = {'in_contact': script.TWO_FINGERS}


def monitor(**overrides):
    return GraspMonitor(MonitorConfig(robot_bodies=script.BODIES, **overrides))


def run(samples, mon=None):
    """Feed every sample; return the monitor, all records and the per-sample updates."""
    mon = mon if mon is not None else monitor()
    updates = [mon.update(sample) for sample in samples]
    return mon, [record for update in updates for record in update.records], updates


def kinds(records, trial=None):
    return [r.kind for r in records if trial is None or r.trial_id == trial]


def only(records, kind):
    found = [r for r in records if r.kind == kind]
    assert len(found) == 1, kinds(records)
    return found[0]


# -- grasp dwell -------------------------------------------------------------------------
def test_grasp_fires_on_the_tenth_still_sample_after_contact():
    mon, records, updates = run(script.approach_then_grasp())
    # Contact at sample 500 (0.5 s) while moving for 50 samples; still from 550 on.
    assert kinds(records) == ['trial_start', 'contact', 'grasp']
    assert only(records, 'contact').step == 500
    grasp = only(records, 'grasp')
    assert (grasp.step, grasp.command) == (559, Command.ACTIVATE)
    assert grasp.trial_time_s == pytest.approx(0.559)
    assert grasp.details['basis'] == 'object_speed'
    assert grasp.details['dwell_s'] == pytest.approx(10 * PERIOD_S)
    assert updates[559].command is Command.ACTIVATE
    assert updates[558].command is Command.CONTINUE
    assert mon.trial.fired == {'contact': pytest.approx(0.5), 'grasp': pytest.approx(0.559)}


def test_one_moving_sample_resets_the_dwell():
    samples = script.phases(PERIOD_S, [
        (0.1, {}), (0.009, STILL), (0.001, MOVING), (0.02, STILL)])
    _, records, _ = run(samples)
    # 9 still samples (100..108), one moving (109), then 10 more still: 110..119.
    assert only(records, 'grasp').step == 119


def test_one_finger_or_the_palm_is_not_a_grasp():
    palm_and_finger = (True, True, False)
    samples = script.phases(PERIOD_S, [
        (0.1, {'in_contact': palm_and_finger}), (0.1, {'in_contact': script.ONE_FINGER})])
    _, records, _ = run(samples)
    assert 'grasp' not in kinds(records)
    assert only(records, 'contact').step == 0


def test_dwell_is_a_duration_so_a_slower_sensor_needs_fewer_samples():
    samples = script.phases(0.004, [(0.2, {}), (0.1, STILL)])
    _, records, _ = run(samples, monitor(sensor_period_s=0.004, grasp_dwell=0.02))
    # Contact at sample 50; 0.02 s at 4 ms per sample is 5 samples: 50..54.
    assert only(records, 'grasp').step == 54


def test_hardware_grasp_uses_finger_speeds_when_the_object_speed_is_unknown():
    _, records, _ = run(script.hardware_grasp(), monitor(sensor_period_s=0.002))
    # 2 ms samples: contact at 100 while closing; fingers stop at 150; 10 periods later.
    assert only(records, 'contact').step == 100
    grasp = only(records, 'grasp')
    assert (grasp.step, grasp.details['basis']) == (159, 'finger_speed')
    assert math.isnan(grasp.details['object_speed_m_per_s'])


def test_without_object_or_finger_speeds_stillness_is_unknown_and_never_a_grasp():
    samples = script.phases(PERIOD_S, [(0.2, {**STILL, 'object_speed_m_per_s': math.nan})])
    _, records, _ = run(samples)
    assert kinds(records) == ['trial_start', 'contact']


def test_no_grasp_by_the_limit_stops_the_trial_without_firing():
    mon, records, updates = run(script.moving_object())
    timeout = only(records, 'grasp_timeout')
    assert (timeout.step, timeout.command) == (5001, Command.STOP)
    assert timeout.trial_time_s == pytest.approx(5.001)
    assert only(records, 'trial_end').details['reason'] == 'grasp_timeout'
    assert not mon.events['grasp'].fired and 'grasp' not in mon.trial.fired
    assert updates[5000].status is MonitorStatus.OK
    assert {u.status for u in updates[5002:]} == {MonitorStatus.ENDED}


# -- contact, timeout, slip-out, flying apart, force test --------------------------------
def test_slip_out_fires_after_exactly_ref_time_without_contact():
    _, records, updates = run(script.grasp_then_slip())
    # Last contact at sample 499 (0.499 s): 1.499 - 0.499 is not > 1 s, 1.500 - 0.499 is.
    slip = only(records, 'slip_out')
    assert (slip.step, slip.command) == (1500, Command.STOP)
    assert slip.details['last_contact_s'] == pytest.approx(0.499)
    assert slip.details['since_contact_s'] == pytest.approx(1.001)
    assert updates[1499].command is Command.CONTINUE
    assert kinds(records) == ['trial_start', 'contact', 'grasp', 'slip_out', 'trial_end']


def test_slip_out_needs_a_non_palm_contact_first():
    samples = script.phases(PERIOD_S, [(0.1, {'in_contact': script.PALM_ONLY}), (1.5, {})])
    _, records, _ = run(samples)
    assert kinds(records) == ['trial_start', 'contact']


def test_slip_out_counts_a_palm_contact_only_when_so_set():
    # Two fingers grasp; then only the palm touches for 1.5 s.
    samples = list(script.phases(PERIOD_S, [
        (0.1, STILL), (1.5, {'in_contact': script.PALM_ONLY})]))
    _, records, _ = run(samples)
    assert only(records, 'slip_out').step == 1100  # 1.100 - 0.099 > 1 s
    _, records, _ = run(samples, monitor(slip_out_count_palm=True))
    assert 'slip_out' not in kinds(records)


PALM_AND_ONE_FINGER = (True, True, False)


def test_a_palm_plus_one_finger_grasp_fires_only_when_the_palm_counts_and_one_body_does():
    samples = list(script.phases(PERIOD_S, [
        (0.1, {}), (0.1, {'in_contact': PALM_AND_ONE_FINGER})]))
    # defaults: two bodies other than the palm are needed
    _, records, _ = run(samples)
    assert 'grasp' not in kinds(records)
    # min_bodies 1 with the palm counted: any body touching the still object
    _, records, _ = run(samples, monitor(grasp_min_bodies=1, grasp_count_palm=True))
    grasp = only(records, 'grasp')
    assert grasp.step == 109 and grasp.details['bodies_in_contact'] == 2
    # with the palm counted, palm + finger are two bodies
    _, records, _ = run(samples, monitor(grasp_count_palm=True))
    assert only(records, 'grasp').step == 109
    # one finger without the palm: one body
    _, records, _ = run(samples, monitor(grasp_min_bodies=1))
    assert only(records, 'grasp').details['bodies_in_contact'] == 1


def test_the_palm_is_named_once_and_samples_must_agree():
    config = MonitorConfig(robot_bodies=script.BODIES, palm='palm')
    assert config.palm_index == 0
    assert run([script.make_sample(0.0, PALM_AND_ONE_FINGER)], GraspMonitor(config))[1]
    with pytest.raises(ConfigError) as error:
        MonitorConfig(robot_bodies=script.BODIES, palm='base')
    assert str(error.value) == (
        "palm 'base' is not one of the robot bodies: palm, finger_left, finger_right")
    with pytest.raises(ConfigError) as error:
        GraspMonitor(config).update(GraspSample(0.0, PALM_AND_ONE_FINGER))
    assert str(error.value) == "sample has its palm at index -1, the monitor's palm 'palm' is at 0"


def test_contact_timeout_fires_only_without_prior_contact():
    _, records, _ = run(script.never_contact())
    timeout = only(records, 'contact_timeout')
    assert (timeout.step, timeout.command) == (2001, Command.STOP)
    assert timeout.trial_time_s == pytest.approx(2.001)

    # Contact on the sample at exactly 2 s (not > 2 s): it fires first, no timeout ever.
    _, records, _ = run(script.phases(PERIOD_S, [(2.0, {}), (1.0, MOVING)]))
    assert kinds(records) == ['trial_start', 'contact']
    assert only(records, 'contact').step == 2000


def test_palm_contact_counts_unless_the_non_palm_variant_is_chosen():
    samples = list(script.phases(PERIOD_S, [(2.5, {'in_contact': script.PALM_ONLY})]))
    _, records, _ = run(samples)
    assert only(records, 'contact').step == 0
    assert 'contact_timeout' not in kinds(records)
    _, records, _ = run(samples, monitor(contact_count_palm=False))
    assert 'contact' not in kinds(records)
    assert only(records, 'contact_timeout').step == 2001


def test_flying_apart_stops_on_a_far_or_nan_body():
    _, records, _ = run(script.flying_apart())
    event = only(records, 'flying_apart')
    assert (event.step, event.command) == (300, Command.STOP)
    assert dict(event.details) == {
        'body': 'finger_right', 'distance_m': 2.5, 'max_distance_m': 2.0}
    _, records, _ = run(script.flying_apart(distance_m=math.nan))
    assert only(records, 'flying_apart').details['distance_m'] == math.inf
    # Exactly at the limit is not farther than it.
    _, records, _ = run(script.flying_apart(distance_m=2.0))
    assert 'flying_apart' not in kinds(records)


def test_stop_external_force_ends_the_test_force_test_s_after_the_grasp():
    _, records, _ = run(script.approach_then_grasp(hold_s=6.0))
    stop = only(records, 'stop_external_force')
    # Grasp at 0.559 s; first t > 5.559 s is 5.560 s.
    assert (stop.step, stop.command) == (5560, Command.STOP)
    assert stop.details['grasp_time_s'] == pytest.approx(0.559)


# -- order and configuration --------------------------------------------------------------
def test_a_stop_skips_the_later_events_of_the_same_sample():
    # The right finger flies off on the very sample slip-out would fire (1.5 s).
    def fly(sample):
        if sample.time_s < 1.5 - 1e-9:
            return sample
        return script.make_sample(sample.time_s, sample.in_contact,
                                  sample.object_speed_m_per_s, (0.0, 0.05, 3.0))

    mon, records, updates = run(fly(s) for s in script.grasp_then_slip())
    assert kinds(records)[-2:] == ['flying_apart', 'trial_end']
    assert only(records, 'flying_apart').step == 1500
    assert not mon.events['slip_out'].fired
    assert updates[1500].command is Command.STOP
    # Contact timeout comes before flying apart.
    samples = script.phases(PERIOD_S, [(2.001, {}), (0.1, {'distances_from_base_m': (0, 0, 9)})])
    mon, records, _ = run(samples)
    assert kinds(records) == ['trial_start', 'contact_timeout', 'trial_end']
    assert not mon.events['flying_apart'].fired


def test_after_a_stop_nothing_is_checked_until_a_new_trial():
    mon, records, updates = run(script.never_contact(duration_s=2.5))
    assert kinds(records) == ['trial_start', 'contact_timeout', 'trial_end']
    assert [u.status for u in updates[2002:]] == [MonitorStatus.ENDED] * 498
    assert mon.diagnostics()['status'] == 'ended'


def test_prerequisites_and_duplicates_are_refused():
    with pytest.raises(ConfigError) as error:
        EventSet([GraspEvent()])
    assert str(error.value) == "event 'grasp' needs 'contact' added before it; added so far: none"
    events = EventSet([ContactEvent()])
    with pytest.raises(ConfigError) as error:
        events.add(ContactEvent())
    assert str(error.value) == "event 'contact' is already added; each event runs once"
    with pytest.raises(ConfigError) as error:
        events.add(StopExternalForceEvent())
    assert str(error.value) == (
        "event 'stop_external_force' needs 'grasp' added before it; added so far: contact")
    with pytest.raises(ConfigError) as error:
        MonitorConfig(events=('contact_timeout', 'slip_out'))
    assert str(error.value) == (
        "event 'contact_timeout' needs 'contact' added before it; added so far: none")
    with pytest.raises(ConfigError) as error:
        MonitorConfig(events=('contact', 'slip_out', 'contact'))
    assert str(error.value) == "event 'contact' is already added; each event runs once"
    with pytest.raises(ConfigError) as error:
        MonitorConfig(events=('slip',))
    assert str(error.value) == (
        "unknown event 'slip'; valid events: contact, contact_timeout, flying_apart, "
        'slip_out, grasp, incipient_slip, stop_external_force')


def test_events_run_in_reference_order_whatever_the_order_added():
    events = EventSet([FlyingApartEvent(), ContactEvent(), GraspEvent()])
    assert events.names == ('contact', 'flying_apart', 'grasp')
    config = MonitorConfig(events=('grasp', 'slip_out', 'contact'))
    assert config.build_events().names == ('contact', 'slip_out', 'grasp')


def test_invalid_parameters_are_refused_with_the_valid_range():
    cases = [
        ({'sensor_period_s': 0.0}, 'sensor_period_s must be finite and > 0, got 0.0'),
        ({'slip_out': -1.0}, 'slip_out must be finite and > 0, got -1.0'),
        ({'still_speed': -0.1},
         'still_speed must be finite and >= 0, got -0.1'),
        ({'max_sample_age_s': 0.0}, 'max_sample_age_s must be > 0 (inf disables it), got 0.0'),
        ({'grasp_min_bodies': 0}, 'grasp_min_bodies must be >= 1, got 0'),
        ({'robot_bodies': ('a', 'a')}, "robot_bodies must be unique, got ['a', 'a']"),
    ]
    for overrides, message in cases:
        with pytest.raises(ConfigError) as error:
            MonitorConfig(**overrides)
        assert str(error.value) == message
    assert MonitorConfig(sensor_period_s=0.002).grasp_dwell == pytest.approx(0.02)


def test_bad_samples_are_refused_with_what_is_valid():
    with pytest.raises(ConfigError) as error:
        GraspSample(0.0, [True, False], palm_index=2)
    assert str(error.value) == 'palm_index must be -1 (no palm) or in [0, 1], got 2'
    with pytest.raises(ConfigError) as error:
        GraspSample(0.0, [True, False], distances_from_base_m=[1.0])
    assert str(error.value) == (
        'distances_from_base_m must have 0 or 2 values (one per body), got 1')
    with pytest.raises(ConfigError) as error:
        GraspSample(math.inf, [True])
    assert str(error.value) == 'time_s must be finite, got inf'
    with pytest.raises(ConfigError) as error:
        monitor().update(GraspSample(0.0, [True, False]))
    assert str(error.value) == (
        'sample has 2 bodies, the monitor watches 3: palm, finger_left, finger_right')
    sample = script.make_sample(0.0, (True, True, False))
    assert (sample.bodies_in_contact, sample.non_palm_in_contact) == (2, 1)


# -- robustness: stale, resets, pauses, enable/disable -------------------------------------
def test_stale_input_never_fires_slip_or_grasp_and_reports_stale():
    mon, records, updates = run(script.stale_sensor())
    # Stale from 0.3 s to 3.3 s: still contact (a grasp) then 2 s without (a slip).
    assert kinds(records) == ['trial_start', 'contact', 'sensor_stale', 'sensor_fresh']
    assert only(records, 'sensor_stale').step == 300
    fresh = only(records, 'sensor_fresh')
    assert fresh.step == 3300 and fresh.details['stale_for_s'] == pytest.approx(3.0)
    assert {u.status for u in updates[300:3300]} == {MonitorStatus.STALE}
    assert updates[3300].status is MonitorStatus.OK
    # The monitored clock stood still while stale: 3.399 s of trial, 0.399 s watched.
    assert mon.trial.monitored_time_s == pytest.approx(0.399)
    assert mon.counters['stale'] == 3000


def test_stale_samples_pause_the_dwell_and_the_slip_timer():
    # 5 fresh still samples, 3 stale, 5 fresh still: fires on the 10th fresh one.
    samples = script.phases(PERIOD_S, [
        (0.1, {}), (0.005, STILL), (0.003, {**STILL, 'stale': True}), (0.01, STILL)])
    _, records, _ = run(samples)
    assert only(records, 'grasp').step == 112
    # Contact lost at 0.2 s, 0.5 s stale in the gap: slip-out 0.5 s later than at 1.2 s.
    samples = script.with_stale(script.phases(PERIOD_S, [
        (0.1, {}), (0.1, {'in_contact': script.ONE_FINGER}), (2.0, {})]), 0.5, 1.0)
    _, records, _ = run(samples)
    slip = only(records, 'slip_out')
    assert slip.step == 1700 and slip.details['since_contact_s'] == pytest.approx(1.001)


def test_old_samples_are_stale_by_age():
    samples = script.phases(PERIOD_S, [(0.1, {}), (0.1, {**STILL, 'age_s': 0.2})])
    mon, records, updates = run(samples, monitor(max_sample_age_s=0.1))
    assert kinds(records) == ['trial_start', 'sensor_stale']
    assert only(records, 'sensor_stale').details == {'flagged': False, 'age_s': 0.2}
    assert updates[-1].status is MonitorStatus.STALE


def test_the_force_test_still_ends_while_the_sensors_are_stale():
    samples = script.with_stale(script.approach_then_grasp(hold_s=6.0), 1.0, 7.0)
    _, records, _ = run(samples)
    assert only(records, 'stop_external_force').step == 5560


def test_time_going_back_ends_the_trial_and_waits_for_a_start():
    samples = script.time_reset(
        script.approach_then_grasp(), script.approach_then_grasp(), reset_at_s=0.8)
    mon, records, updates = run(samples)
    assert kinds(records) == ['trial_start', 'contact', 'grasp', 'trial_end']
    end = only(records, 'trial_end')
    assert (end.details['reason'], end.step) == ('time_reset', 799)
    # nothing fires after the reset: no grasp, no force test without a start
    assert {u.status for u in updates[800:]} == {MonitorStatus.IDLE}
    assert {u.command for u in updates[800:]} == {Command.CONTINUE}
    assert mon.counters['time_resets'] == 1 and mon.counters['trials'] == 1
    mon.start_trial()
    assert mon.trial_id == 2


def test_with_restart_on_reset_time_going_back_opens_a_new_trial():
    samples = script.time_reset(
        script.approach_then_grasp(), script.approach_then_grasp(), reset_at_s=0.8)
    mon, records, updates = run(samples, monitor(restart_on_reset=True))
    assert kinds(records, trial=1) == ['trial_start', 'contact', 'grasp', 'trial_end']
    end = only(records, 'trial_end')
    assert (end.details['reason'], end.step) == ('time_reset', 799)
    assert kinds(records, trial=2) == ['trial_start', 'contact', 'grasp']
    assert [r.step for r in records if r.trial_id == 2] == [0, 500, 559]
    assert (updates[800].trial_id, updates[800].step) == (2, 0)
    assert mon.counters['time_resets'] == 1 and mon.counters['trials'] == 2
    # the second start says where time went back from; the first saw no reset
    starts = [r.details for r in records if r.kind == 'trial_start']
    assert starts == [{'start_time_s': 0.0},
                      {'start_time_s': 0.0, 'reset_from_s': pytest.approx(0.799)}]


def test_a_trial_started_after_a_reset_between_trials_says_where_time_went_back_from():
    # the demo's order: the simulator runs, is reset while no trial is open, then a start
    mon = monitor(auto_start=False)
    first = list(script.never_contact(duration_s=2.6))
    run(first, mon)
    mon.start_trial()
    _, records, _ = run(script.approach_then_grasp(), mon)
    assert records[0].kind == 'trial_start'
    assert records[0].details['reset_from_s'] == pytest.approx(first[-1].time_s)
    # as the metrics read it back from the published strings
    strings = records[0].as_strings()
    assert EventRecord.from_strings(strings).reset_from_s == records[0].details['reset_from_s']
    for unreadable in ('true', 'soon', 'nan'):
        read = EventRecord.from_strings(strings | {'reset_from_s': unreadable}).reset_from_s
        assert not math.isfinite(read)
    assert EventRecord.from_strings({k: v for k, v in strings.items()
                                     if k != 'reset_from_s'}).reset_from_s == -math.inf


def test_a_reset_after_a_stop_ends_nothing_twice_and_opens_a_trial_only_if_asked():
    samples = list(script.time_reset(
        script.never_contact(), script.approach_then_grasp(), reset_at_s=2.5))
    _, records, _ = run(samples)
    assert kinds(records) == ['trial_start', 'contact_timeout', 'trial_end']
    _, records, _ = run(samples, monitor(restart_on_reset=True))
    assert kinds(records) == ['trial_start', 'contact_timeout', 'trial_end',
                              'trial_start', 'contact', 'grasp']
    assert [r.trial_id for r in records] == [1, 1, 1, 2, 2, 2]


def test_small_backward_jitter_within_tolerance_is_dropped_not_a_reset():
    samples = list(script.never_contact(duration_s=0.01))
    samples.insert(5, script.make_sample(0.002))
    mon, records, updates = run(samples, monitor(time_reset_tolerance_s=0.005))
    assert updates[5].status is MonitorStatus.OUT_OF_ORDER
    assert kinds(records) == ['trial_start'] and mon.counters['out_of_order'] == 1


def test_a_pause_is_ignored_and_does_not_count_toward_the_dwell():
    samples = script.with_pause(script.approach_then_grasp(), at_s=0.555, repeats=20)
    mon, records, updates = run(samples)
    assert [u.status for u in updates[556:576]] == [MonitorStatus.PAUSED] * 20
    grasp = only(records, 'grasp')
    assert (grasp.step, grasp.trial_time_s) == (559, pytest.approx(0.559))
    assert mon.counters['paused'] == 20


def test_disabled_monitors_do_not_fire_and_resume_when_enabled():
    mon = monitor()
    mon.set_enabled('slip_out', False)
    assert not mon.enabled('slip_out')
    _, records, _ = run(script.grasp_then_slip(), mon)
    assert 'slip_out' not in kinds(records)
    # Re-enabled at 1.0 s (no contact since 0.499 s): the slip window restarts then.
    mon = monitor()
    mon.set_enabled('slip_out', False)
    records = []
    for sample in script.grasp_then_slip(fall_s=2.5):
        if abs(sample.time_s - 1.0) < 1e-9:
            mon.set_enabled('slip_out', True)
        records += mon.update(sample).records
    assert only(records, 'slip_out').step == 2000


def test_enabling_and_disabling_respect_prerequisites():
    mon = monitor()
    with pytest.raises(ConfigError) as error:
        mon.set_enabled('contact', False)
    assert str(error.value) == (
        "cannot disable 'contact': enabled events need it: contact_timeout, grasp")
    for name in ('stop_external_force', 'grasp', 'contact_timeout', 'contact'):
        mon.set_enabled(name, False)
    with pytest.raises(ConfigError) as error:
        mon.set_enabled('grasp', True)
    assert str(error.value) == "cannot enable 'grasp': it needs contact enabled"
    with pytest.raises(ConfigError) as error:
        mon.enabled('contact_time')
    assert str(error.value).startswith("unknown event 'contact_time'; valid events: contact,")
    _, records, _ = run(script.approach_then_grasp(), mon)
    assert kinds(records) == ['trial_start']


def test_trial_ids_go_on_from_the_last_one_given():
    mon = GraspMonitor(MonitorConfig(auto_start=False), last_trial_id=8)
    assert mon.trial_id == 0
    mon.start_trial()
    assert mon.update(script.make_sample(0.0)).trial_id == 9
    assert GraspMonitor(MonitorConfig(), last_trial_id=8).update(
        script.make_sample(0.0)).trial_id == 9


def test_stop_and_start_trial():
    mon = GraspMonitor(MonitorConfig(auto_start=False))
    assert mon.update(script.make_sample(0.0)).status is MonitorStatus.IDLE
    assert mon.trial_id == 0
    assert mon.start_trial() == [] and mon.trial_id == 1
    update = mon.update(script.make_sample(0.001))
    assert (update.status, kinds(update.records)) == (MonitorStatus.OK, ['trial_start'])
    end = mon.stop_trial()
    assert kinds(end) == ['trial_end'] and end[0].details['reason'] == 'stopped'
    assert mon.update(script.make_sample(0.002)).status is MonitorStatus.IDLE
    mon.start_trial()
    assert mon.update(script.make_sample(0.003)).trial_id == 2
    assert kinds(mon.start_trial()) == ['trial_end'] and mon.trial_id == 3


# -- records and the force test ------------------------------------------------------------
def test_event_records_flatten_to_strings_and_back():
    record = EventRecord('slip_out', 1.5, 1.25, 1250, 3, Command.STOP,
                         {'last_contact_s': 0.25, 'body': 'finger_left', 'count': np.int64(2),
                          'flagged': np.bool_(True)})
    flat = record.as_strings()
    assert flat == {
        'type': 'slip_out', 'time_s': '1.5', 'trial_time_s': '1.25', 'step': '1250',
        'trial': '3', 'command': 'STOP', 'last_contact_s': '0.25', 'body': 'finger_left',
        'count': '2', 'flagged': 'true'}
    assert EventRecord.from_strings(flat) == record
    with pytest.raises(ConfigError) as error:
        EventRecord('grasp', 0.0, 0.0, 0, 1, details={'step': 1})
    assert str(error.value) == (
        "detail key 'step' is reserved; reserved keys: type, time_s, trial_time_s, step, "
        'trial, command')
    with pytest.raises(ConfigError) as error:
        EventRecord.from_strings({'type': 'grasp'})
    assert str(error.value) == 'event record lacks time_s, trial_time_s, step, trial, command'


def test_events_follow_trial_time_whatever_the_clock_origin():
    # A wall clock starting at 1000 s: the same events, on the same steps and trial times.
    _, records, _ = run(script.shifted(script.grasp_then_slip(), 1000.0))
    assert [(r.kind, r.step) for r in records] == [
        ('trial_start', 0), ('contact', 200), ('grasp', 209), ('slip_out', 1500),
        ('trial_end', 1500)]
    slip = only(records, 'slip_out')
    assert slip.time_s == pytest.approx(1001.5) and slip.trial_time_s == pytest.approx(1.5)


@pytest.mark.parametrize('sequence', [list(sequence) for sequence in (
    script.grasp_then_slip(), script.flying_apart(), script.flying_apart(distance_m=math.nan),
    script.approach_then_grasp())])
@pytest.mark.parametrize('palm_index', [-1, script.PALM_INDEX])
def test_trusted_samples_equal_checked_ones_and_give_the_same_records(sequence, palm_index):
    # The pipeline's samples: no finger speeds, never stale.
    checked = [dataclasses.replace(sample, palm_index=palm_index) for sample in sequence]
    trusted = GraspSample.trusted_series(
        np.array([s.time_s for s in checked]), np.stack([s.in_contact for s in checked]),
        np.array([s.object_speed_m_per_s for s in checked]),
        np.stack([s.distances_from_base_m for s in checked]), palm_index)
    for one, other in zip(checked, trusted, strict=True):
        for name in ('time_s', 'palm_index', 'object_speed_m_per_s', 'stale', 'age_s',
                     'bodies_in_contact', 'non_palm_in_contact'):
            assert getattr(one, name) == getattr(other, name), name
        for name in ('in_contact', 'finger_speeds', 'distances_from_base_m'):
            assert np.array_equal(getattr(one, name), getattr(other, name), equal_nan=True)
            assert getattr(other, name).dtype == getattr(one, name).dtype
            assert not getattr(other, name).flags.writeable
        assert np.array_equal(one.farthest_from_base_m, other.farthest_from_base_m,
                              equal_nan=True)
    assert run(checked)[1] == run(trusted)[1]


def test_farthest_from_base_is_nan_with_a_nan_distance_and_minus_inf_without_any():
    assert GraspSample(0.0, [True, False], distances_from_base_m=[0.1, 0.3]
                       ).farthest_from_base_m == 0.3
    assert math.isnan(GraspSample(0.0, [True, False], distances_from_base_m=[math.nan, 0.3]
                                  ).farthest_from_base_m)
    assert GraspSample(0.0, [True, False]).farthest_from_base_m == -math.inf


def test_a_later_timeline_ends_the_trial_as_a_reset_though_its_stamps_go_on():
    samples = list(script.approach_then_grasp())
    mon = GraspMonitor()
    mon.start_trial()
    records = [r for s in samples[:500] for r in mon.update(s).records]
    later = dataclasses.replace(samples[500], time_s=samples[499].time_s + 2.0, timeline=1)
    update = mon.update(later)
    end = only(list(update.records), 'trial_end')
    assert end.details['reason'] == 'time_reset' and end.time_s == samples[499].time_s
    assert mon.counters['time_resets'] == 1 and 'trial_end' not in kinds(records)
