"""Monitor inputs: contact from pad forces, staleness from reading ages; the event log."""

import json
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.frames import FrameTransforms, FrameTree
from grasp_monitor.core.monitor import (
    Command, EventLog, EventRecord, InputsConfig, MonitorInputs, StampGrid)
import numpy as np
import pytest


#: Exact readings (no tare): a pad touches from its first reading.
EXACT = {'tare_time': 0.0}


def fresh_inputs(**config):
    inputs = MonitorInputs(InputsConfig(('left', 'right'), ('f_l', 'f_r'), **EXACT | config))
    inputs.update_pad('left', [[0, 0, 0.5], [0, 0, 0.5]], 1.0)
    inputs.update_pad('right', np.zeros((2, 3)), 1.0)
    inputs.update_object([0.003, 0.004, 0.0], 1.0)
    inputs.update_joints(['lift', 'f_l', 'f_r'], [9.0, -0.2, 0.1], 1.0)
    return inputs


def test_sample_from_the_latest_readings():
    sample = fresh_inputs().sample(1.05)
    assert sample.in_contact.tolist() == [True, False]
    assert sample.object_speed_m_per_s == pytest.approx(0.005)
    assert sample.finger_speeds.tolist() == [0.2, 0.1]
    assert not sample.stale and sample.age_s == pytest.approx(0.05)


def test_the_palm_pad_is_marked_in_every_sample():
    assert fresh_inputs().sample(1.0).palm_index == -1
    sample = fresh_inputs(palm='left').sample(1.0)
    assert (sample.palm_index, sample.bodies_in_contact, sample.non_palm_in_contact) == (0, 1, 0)
    with pytest.raises(ConfigError) as error:
        InputsConfig(('left', 'right'), ('f_l',), palm='palm', **EXACT)
    assert str(error.value) == "palm 'palm' is not one of the pads: left, right"


def test_an_old_or_missing_reading_makes_the_sample_stale():
    assert fresh_inputs(max_sample_age=0.1).sample(1.2).stale
    inputs = MonitorInputs(InputsConfig(('left', 'right'), **EXACT))
    inputs.update_pad('left', np.zeros((1, 3)), 1.0)
    sample = inputs.sample(1.0)  # the right pad never spoke
    assert sample.stale and math.isinf(sample.age_s)


def test_time_going_back_drops_the_old_timeline():
    inputs = fresh_inputs()  # readings at t = 1.0 s, the left pad touching
    # the clock went back (a simulator reset) before new readings arrived
    assert inputs.sample(0.05).stale
    inputs.update_pad('right', np.zeros((2, 3)), 0.01)
    assert inputs.pad_forces_n().tolist() == [1.0, 0.0]  # one reading: held, not yet a reset
    inputs.update_pad('right', np.zeros((2, 3)), 0.02)  # the stream goes on from it
    assert inputs.pad_forces_n().tolist() == [0.0, 0.0]  # the old left reading is gone
    sample = inputs.sample(0.05)
    assert sample.stale and sample.in_contact.tolist() == [False, False]


def test_contact_threshold_and_scalar_forces():
    inputs = fresh_inputs(contact_force=2.0)
    assert inputs.sample(1.0).in_contact.tolist() == [False, False]
    inputs.update_pad('right', [1.5, 0.7], 1.0)
    assert inputs.sample(1.0).in_contact.tolist() == [False, True]
    assert inputs.pad_forces_n().tolist() == pytest.approx([1.0, 2.2])


def test_the_pads_distances_from_the_base_join_the_grid_and_the_samples():
    inputs = fresh_inputs(use_distances=True, period_s=0.5)
    assert inputs.due() == []  # every input is needed on the grid: the distances too
    inputs.update_distances([0.1, 0.4], 1.0)
    (sample,) = inputs.due()
    assert sample.time_s == 1.0 and sample.distances_from_base_m.tolist() == [0.1, 0.4]
    assert sample.farthest_from_base_m == 0.4
    # without them (hardware), samples carry none and distances are not taken
    inputs = fresh_inputs(period_s=0.5)
    inputs.update_distances([0.1, 0.4], 1.0)
    assert inputs.due()[0].distances_from_base_m.size == 0
    with pytest.raises(ConfigError, match=r"1 distances for pads \['left', 'right'\]"):
        fresh_inputs(use_distances=True).update_distances([0.1], 1.0)


def test_bad_configurations_and_unknown_pads_are_refused():
    with pytest.raises(ConfigError, match='pads must name at least one tactile pad'):
        InputsConfig(())
    with pytest.raises(ConfigError, match='without object ground truth, finger_joints'):
        InputsConfig(('left',), use_object=False)
    with pytest.raises(ConfigError, match="unknown pad 'palm'; pads: left, right"):
        fresh_inputs().update_pad('palm', np.zeros((1, 3)), 0.0)


def test_event_log_appends_flushes_and_reads_back(tmp_path):
    path = tmp_path / 'logs' / 'events.jsonl'
    log = EventLog(path)
    first = EventRecord('contact', 1.5, 0.5, 50, 1, Command.CONTINUE, {'bodies': 'left'})
    log.append([first])
    # flushed: another reader sees it before close
    assert path.read_text().count('\n') == 1
    second = EventRecord('grasp', 2.25, 1.25, 125, 1, Command.ACTIVATE, {})
    log.append([second])
    log.close()
    assert EventLog.read(path) == [first, second]


def test_event_log_gives_its_last_trial_id_and_mends_an_unfinished_line(tmp_path):
    path = tmp_path / 'events.jsonl'
    assert EventLog.last_trial_id(path) == (0, f'no event log at {path}')
    log = EventLog(path)
    log.append([EventRecord('trial_start', 0.0, 0.0, 0, 7, Command.CONTINUE, {}),
                EventRecord('trial_end', 1.0, 1.0, 100, 8, Command.CONTINUE, {})])
    log.close()
    with path.open('a') as file:
        file.write('{"trial": "9", "ty')  # a writer killed mid-line
    assert EventLog.last_trial_id(path) == (
        8, f'event log {path}: 2 records, last trial 8, 1 lines skipped')
    log = EventLog(path)  # the next record starts on a line of its own
    record = EventRecord('trial_start', 0.0, 0.0, 0, 9, Command.CONTINUE, {})
    log.append([record])
    log.close()
    assert EventLog.last_trial_id(path)[0] == 9
    assert path.read_text().splitlines()[-1] == json.dumps(record.as_strings(), sort_keys=True)
    assert EventLog.last_trial_id(tmp_path)[1].startswith(f'event log {tmp_path} unreadable')


# -- the sample grid: stamps, not arrival, decide the samples ---------------------------

def stream(end_i=30, silent=()):
    """Return readings every 2 ms to end_i * 2 ms, per input in stamp order, as a sim sends.

    The left pad touches from 30 ms on; the object's speed is its stamp (m/s).
    """
    readings = {'left': [], 'right': [], 'object': [], 'joints': []}
    for i in range(1, end_i + 1):
        t = 0.002 * i
        readings['left'].append(('left', t, [[0, 0, 1.0 if i >= 15 else 0.0]]))
        readings['right'].append(('right', t, [[0, 0, 0.0]]))
        readings['object'].append(('object', t, [t, 0, 0]))
        readings['joints'].append(('joints', t, [0.1, 0.2]))
    return {name: r for name, r in readings.items() if name not in silent}


def feed(inputs, readings):
    """Give readings to the inputs in the order given, collecting the samples as they fall due."""
    samples = []
    for kind, t, value in readings:
        if kind == 'object':
            inputs.update_object(value, t)
        elif kind == 'joints':
            inputs.update_joints(['f_l', 'f_r'], value, t)
        else:
            inputs.update_pad(kind, value, t)
        samples += inputs.due()
    return samples


def grid_inputs(**config):
    return MonitorInputs(InputsConfig(('left', 'right'), ('f_l', 'f_r'), **EXACT, period_s=0.01,
                                      **config))


def interleaved(readings):
    return sorted((r for rs in readings.values() for r in rs), key=lambda r: r[1])


def summary(samples):
    return [(round(s.time_s, 9), s.in_contact.tolist(), round(s.object_speed_m_per_s, 9),
             s.stale) for s in samples]


def test_the_samples_depend_on_the_stamps_not_on_the_arrival_order():
    readings = stream()
    by_stamp = feed(grid_inputs(), interleaved(readings))
    # one input at a time, the last first: every sample waits for it
    by_input = feed(grid_inputs(), [r for name in ('joints', 'object', 'right', 'left')
                                    for r in readings[name]])
    # the first grid stamp every input reached is 10 ms; the last 60 ms
    expected = [(round(0.01 * k, 9), [k >= 3, False], round(0.01 * k, 9), False)
                for k in range(1, 7)]
    assert summary(by_stamp) == summary(by_input) == expected


def test_a_late_input_is_caught_up_in_stamp_order():
    readings = stream()
    inputs = grid_inputs()
    # the right pad lags: up to 20 ms, while the others reach 60 ms
    early = feed(inputs, interleaved(readings | {'right': readings['right'][:10]}))
    assert [round(s.time_s, 9) for s in early] == [0.01, 0.02]
    caught_up = feed(inputs, readings['right'][10:])
    assert [round(s.time_s, 9) for s in caught_up] == [0.03, 0.04, 0.05, 0.06]
    assert [s.in_contact[0] for s in caught_up] == [True] * 4
    assert not any(s.stale for s in early + caught_up)


def test_evaluation_is_bounded_per_call_and_owes_the_rest():
    grid = StampGrid(2, 0.01, 0.1, max_per_call=3)
    for i in range(11):
        grid.add(0, 0.01 * i, i)
    assert grid.due() == []  # input 1 never spoke
    grid.add(1, 0.0, 'a')
    grid.add(1, 0.1, 'b')
    assert [p.values for p in grid.due()] == [(0, 'a'), (1, 'a'), (2, 'a')]
    assert [p.values for p in grid.due()] == [(3, 'a'), (4, 'a'), (5, 'a')]
    assert [p.values for p in grid.due()] == [(6, 'a'), (7, 'a'), (8, 'a')]
    assert [p.values for p in grid.due()] == [(9, 'a'), (10, 'b')]
    assert grid.due() == [] and grid.dropped == 0


def test_a_full_buffer_drops_the_samples_it_can_no_longer_make_and_counts_them():
    grid = StampGrid(2, 0.01, 1.0, depth=4)
    grid.add(0, 0.0, 0)
    grid.add(1, 0.0, 'a')
    assert [p.values for p in grid.due()] == [(0, 'a')]
    for i in range(1, 8):  # input 1 waits at 0 s; input 0 keeps only 0.04 .. 0.07 s
        grid.add(0, 0.01 * i, i)
    grid.add(1, 0.07, 'b')
    points = grid.due()
    # the stamps 0.01 .. 0.03 s needed readings pushed out of input 0's buffer
    assert grid.dropped == 3
    assert [(round(p.time_s, 9), p.values) for p in points] == [
        (0.04, (4, 'a')), (0.05, (5, 'a')), (0.06, (6, 'a')), (0.07, (7, 'b'))]


def test_a_reading_out_of_order_takes_its_place_by_stamp():
    grid = StampGrid(2, 0.01, 1.0, depth=3)
    for t, value in ((0.0, 'a'), (0.02, 'c'), (0.01, 'b'), (0.03, 'd')):  # b came late
        grid.add(0, t, value)
    grid.add(1, 0.03, 'x')  # input 1 starts the grid at 0.03 s
    assert grid.latest() == (('d', 'x'), (0.03, 0.03))
    grid.add(0, 0.015, 'b2')  # older than the buffer's (full) newest: it still fits in
    grid.add(0, 0.04, 'e')
    grid.add(1, 0.04, 'y')
    assert [p.values for p in grid.due()] == [('d', 'x'), ('e', 'y')]


def test_a_first_reading_from_the_timeline_the_others_left_is_ignored():
    grid = StampGrid(2, 0.01, 0.05)
    grid.add(0, 2.0, 'old')
    grid.add(0, 0.0, 'new')  # a reset, before input 1 ever spoke
    grid.add(0, 0.0, 'new')  # (its stream goes on from there)
    grid.add(1, 2.0, 'straggler')  # input 1's first reading is of the old timeline
    assert grid.ignored == 1 and grid.latest() == (('new', None), (0.0, -math.inf))
    grid.add(1, 0.0, 'a')
    assert [p.values for p in grid.due()] == [('new', 'a')]


def test_a_silent_input_then_the_clock_makes_late_samples_stale():
    readings = stream()
    inputs = grid_inputs(max_sample_age=0.1)
    # the right pad goes silent after 20 ms
    samples = feed(inputs, interleaved(readings | {'right': readings['right'][:10]}))
    assert [round(s.time_s, 9) for s in samples] == [0.01, 0.02]
    assert inputs.due(0.1) == []  # silence alone is no sample, and no slip
    late = inputs.due(0.15)  # the clock passed 30 and 40 ms by more than 0.1 s
    assert [(round(s.time_s, 9), s.stale) for s in late] == [(0.03, True), (0.04, True)]
    assert late[1].age_s == pytest.approx(0.02)  # the right pad's reading of 20 ms
    # it speaks again: the samples owed are made from its readings, fresh
    resumed = feed(inputs, readings['right'][10:])
    assert [(round(s.time_s, 9), s.stale) for s in resumed] == [(0.05, False), (0.06, False)]


def test_a_reset_opens_a_new_timeline_and_ignores_the_old_one_still_arriving():
    readings = stream()
    inputs = grid_inputs(time_back_s=0.02)  # going back by more is a reset
    feed(inputs, interleaved(readings))
    # the simulator restarts at 0 s: the object's new readings come first, then late
    # readings of the old timeline on the other inputs, then their new ones
    old = [('left', 0.062, [[0, 0, 1.0]]), ('right', 0.062, [[0, 0, 0.0]]),
           ('joints', 0.062, [0.1, 0.2])]
    new = stream(end_i=10)
    samples = feed(inputs, [(kind, t - 0.002, value) for kind, t, value in new['object']])
    samples += feed(inputs, old)
    assert samples == [] and inputs.grid.ignored == 3 and inputs.grid.timelines == 1
    samples = feed(inputs, [(kind, t - 0.002, value) for kind, t, value in
                            interleaved(new | {'object': []})])
    # stamps 0 .. 18 ms: the first grid stamp every input reached is 0 s; the left pad
    # of the old timeline (touching) is gone
    assert [(round(s.time_s, 9), s.in_contact.tolist()) for s in samples] == [
        (0.0, [False, False]), (0.01, [False, False])]


def test_a_clock_still_on_the_old_timeline_declares_no_sample_of_the_new_one_stale():
    grid = StampGrid(2, 0.01, 0.05)
    for k in range(1, 301):  # a first timeline up to 3 s
        grid.add(0, k * 0.01, 'a')
        grid.add(1, k * 0.01, 'b')
    while grid.due(3.0, 0.1):  # at most max_per_call a call
        pass
    grid.add(0, 0.005, 'a')  # a reset: one input is on the new timeline, the other not yet
    grid.add(0, 0.01, 'a')
    # the clock still reads the old timeline: nothing is late on the new one
    assert grid.due(3.2, 0.1) == []
    grid.add(1, 0.005, 'b')
    grid.add(1, 0.01, 'b')
    points = grid.due(3.2, 0.1)
    assert [round(p.time_s, 6) for p in points] == [0.01] and not points[0].late
    # once the clock went back too, silence makes samples late again
    grid.add(0, 0.02, 'a')
    assert grid.due(0.02, 0.1) == []
    late = grid.due(0.2, 0.1)
    assert late and late[0].late and round(late[0].time_s, 6) == 0.02


def test_with_contacts_a_pad_touches_when_one_of_its_object_contacts_reaches_the_force():
    inputs = MonitorInputs(InputsConfig(('left', 'right'), contacts=True))
    inputs.update_object([0.0, 0.0, 0.0], 0.01)
    inputs.update_contacts([2e-3, 5e-4], 0.01)  # right: below 1 mN, as rostok ignores it
    (sample,) = inputs.due()
    assert sample.in_contact.tolist() == [True, False] and not sample.stale
    assert inputs.pad_forces_n().tolist() == [2e-3, 5e-4]
    with pytest.raises(ConfigError, match='the monitor reads contacts, not taxels'):
        inputs.update_pad('left', [[0.0, 0.0, 1.0]], 0.02)
    with pytest.raises(ConfigError, match='one force per pad'):
        inputs.update_contacts([1.0], 0.02)
    with pytest.raises(ConfigError, match='contacts need InputsConfig.contacts'):
        MonitorInputs(InputsConfig(('left', 'right'))).update_contacts([1.0, 1.0], 0.02)


def test_inputs_report_their_status_and_take_distances_once_the_frames_are_known():
    inputs = fresh_inputs(use_distances=True)
    assert inputs.diagnostics() == {
        'pad_force_n.left': '1.000', 'pad_force_n.right': '0.000', 'basis': 'taxels (estimate)',
        'dropped_samples': '0', 'old_timeline_inputs': '0'}
    frames = FrameTree()
    assert not inputs.update_frames(frames, 'base')  # nothing known yet: nothing taken
    frames.update(FrameTransforms(('world',) * 3, ('base', 'left', 'right'),
                                  np.array([[0, 0, 0.1], [0, 0.03, 0.1], [0, -0.04, 0.1]]),
                                  np.tile([1.0, 0, 0, 0], (3, 1)), 1.0))
    assert inputs.update_frames(frames, 'base')
    assert inputs.due()[0].distances_from_base_m.tolist() == pytest.approx([0.03, 0.04])


def test_missing_names_the_inputs_that_have_not_spoken_yet():
    inputs = MonitorInputs(InputsConfig(('left', 'right'), ('f_l', 'f_r'), **EXACT,
                                        use_distances=True))
    assert inputs.missing() == ('left', 'right', 'object', 'finger_joints', 'distances')
    inputs.update_pad('right', np.zeros((2, 3)), 1.0)
    inputs.update_joints(['f_l', 'f_r'], [0.0, 0.0], 1.0)
    assert inputs.missing() == ('left', 'object', 'distances')
    assert fresh_inputs().missing() == ()
    contacts = MonitorInputs(InputsConfig(('left', 'right'), use_object=True, contacts=True))
    assert contacts.missing() == ('contacts', 'object')


def test_a_new_source_that_jumps_restarts_its_input_even_stamped_ahead():
    grid = StampGrid(2, 0.01, 0.05)
    for k in range(1, 121):  # a first timeline up to 1.2 s
        grid.add(0, k * 0.01, 'a')
        grid.add(1, k * 0.01, 'b')
    assert len(grid.due()) == 120
    # a restarted simulator, heard only from 2.8 s: both inputs' new publishers
    grid.new_source(0)
    grid.add(0, 2.8, 'a2')
    assert (grid.epoch, grid.timelines, grid.restarts, grid.stamps.refused) == (1, 1, 1, 0)
    grid.new_source(1)
    grid.add(1, 2.8, 'b2')
    assert (grid.epoch, grid.restarts) == (1, 2)
    points = grid.due()
    assert [(round(p.time_s, 6), p.values) for p in points] == [(2.8, ('a2', 'b2'))]
    # a new source going on from its stream (a second publisher) changes nothing
    grid.new_source(0)
    grid.add(0, 2.81, 'a3')
    assert (grid.epoch, grid.restarts) == (1, 2)


def test_a_restarted_source_heard_late_is_a_time_reset_in_the_samples():
    inputs = MonitorInputs(InputsConfig(('left',), use_object=True, time_back_s=0.05))
    for k in range(1, 11):
        inputs.update_pad('left', [1.0], k * 0.01)
        inputs.update_object([0.0, 0.0, 0.0], k * 0.01)
    assert {s.timeline for s in inputs.due()} == {0}
    inputs.grid.new_source(0)
    inputs.grid.new_source(1)
    inputs.update_pad('left', [0.0], 2.0)
    inputs.update_object([0.0, 0.0, 0.0], 2.0)
    assert [(s.time_s, s.timeline) for s in inputs.due()] == [(2.0, 1)]
