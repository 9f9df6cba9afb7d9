"""Monitor inputs: contact from pad forces, staleness from reading ages; the event log."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.event_log import EventLog
from grasp_monitor.core.events import Command, EventRecord
from grasp_monitor.core.monitor_inputs import InputsConfig, MonitorInputs
import numpy as np
import pytest


def fresh_inputs(**config):
    inputs = MonitorInputs(InputsConfig(('left', 'right'), ('f_l', 'f_r'), **config))
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


def test_an_old_or_missing_reading_makes_the_sample_stale():
    assert fresh_inputs(max_age_s=0.1).sample(1.2).stale
    inputs = MonitorInputs(InputsConfig(('left', 'right')))
    inputs.update_pad('left', np.zeros((1, 3)), 1.0)
    sample = inputs.sample(1.0)  # the right pad never spoke
    assert sample.stale and math.isinf(sample.age_s)


def test_time_going_back_drops_the_old_timeline():
    inputs = fresh_inputs()  # readings at t = 1.0 s, the left pad touching
    # the clock went back (a simulator reset) before new readings arrived
    assert inputs.sample(0.05).stale
    inputs.update_pad('right', np.zeros((2, 3)), 0.02)
    assert inputs.pad_forces_n().tolist() == [0.0, 0.0]  # the old left reading is gone
    sample = inputs.sample(0.05)
    assert sample.stale and sample.in_contact.tolist() == [False, False]


def test_contact_threshold_and_scalar_forces():
    inputs = fresh_inputs(contact_force_n=2.0)
    assert inputs.sample(1.0).in_contact.tolist() == [False, False]
    inputs.update_pad('right', [1.5, 0.7], 1.0)
    assert inputs.sample(1.0).in_contact.tolist() == [False, True]
    assert inputs.pad_forces_n().tolist() == pytest.approx([1.0, 2.2])


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
