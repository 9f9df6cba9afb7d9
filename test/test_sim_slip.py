"""Slip ground truth and the incipient_slip event on pick_lift holds, in MuJoCo.

Two trials of the slip-eval family run offline: a still hold and a hold pulled
down past what the pads' friction holds.
"""

import math

from grasp_monitor.app.slip_eval.family import PULL_S, RAMP_RAD_PER_S, SlipTrial
from grasp_monitor.app.slip_eval.score import GROSS_SLIP_M, score_of
from grasp_monitor.app.slip_eval.trial import Detector, run_slip_trial
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor import MonitorConfig
from grasp_monitor.sim.slip_truth import contact_slip_speed, SLIP_SPEED_M_PER_S
import numpy as np
import pytest

#: 10 N per finger, friction 1, 0.2 kg: the pads hold 20 N - 1.96 N downwards.
HOLD = SlipTrial(0, 0, False, False, grip_force_n=10.0, mass_kg=0.2, friction=1.0,
                 direction='down', pull_n=0.0, pull_s=1.0, motor_noise_n=0.0)
#: The ramp passes the 18 N the pads hold 0.6 s into the pull.
PULLED = SlipTrial(1, 1, True, False, grip_force_n=10.0, mass_kg=0.2, friction=1.0,
                   direction='down', pull_n=18.04 / math.sin(RAMP_RAD_PER_S * 0.6),
                   pull_s=1.0, motor_noise_n=0.0)


@pytest.fixture(scope='module')
def runs():
    return {trial.slips: run_slip_trial((trial, Detector())) for trial in (HOLD, PULLED)}


def test_truth_still_on_a_hold_and_sliding_under_a_pull(runs):
    hold, pulled = runs[False], runs[True]
    assert hold['slip_speed'].max() < SLIP_SPEED_M_PER_S
    assert hold['drift_m'].max() < 0.1 * GROSS_SLIP_M
    # the pads hold until the ramp passes their friction, then the object slides out
    sliding = pulled['time_s'][pulled['slip_speed'] > SLIP_SPEED_M_PER_S]
    assert sliding.size and PULL_S + 0.4 < sliding[0] < PULL_S + 0.7
    assert pulled['slip_speed'][pulled['time_s'] < PULL_S].max() < SLIP_SPEED_M_PER_S
    assert pulled['drift_m'].max() > 10 * GROSS_SLIP_M


def test_event_fires_before_gross_slip_on_the_pull_only(runs):
    hold, pulled = runs[False], runs[True]
    assert math.isnan(hold['event_s'])
    gross_s = pulled['time_s'][np.argmax(pulled['drift_m'] > GROSS_SLIP_M)]
    assert PULL_S < pulled['event_s'] < gross_s - 0.03
    # the event is the detector's first alarm at the monitor's thresholds
    config = MonitorConfig()
    alarms = score_of(pulled['cues'], (
        config.incipient_slip_ratio, config.incipient_slip_cop_speed,
        config.incipient_slip_vibration, 0.0, config.incipient_slip_stall)) >= 1
    assert pulled['time_s'][np.argmax(alarms)] == pulled['event_s']


def test_truth_needs_the_contact_velocities():
    from grasp_monitor.sim.offline import OfflinePipeline
    from grasp_monitor.sim.scenes import build_scene
    pipeline = OfflinePipeline(build_scene('pick_lift'))
    with pytest.raises(ConfigError, match="turn a pad's slip setting on"):
        contact_slip_speed(pipeline.evaluation.layout, pipeline.stepper.record[:1])


def test_the_offline_runs_own_monitor_fires_incipient_slip_on_the_pull_alone(runs):
    # the pipeline's monitor, as `grasp-monitor run` runs it, samples from the trial's
    # start; it fires where slip-eval's monitor (from the hold on) does, and not on a hold
    assert math.isnan(runs[False]['pipeline_event_s'])
    assert runs[True]['pipeline_event_s'] == runs[True]['event_s']


def test_a_preset_runs_the_detectors_on_the_clouds_its_arrays_report(runs):
    from grasp_monitor.app.slip_eval.trial import trial_values
    # ideal is the default: the same trial, not one value more
    assert trial_values(HOLD, Detector(preset='ideal')) == trial_values(HOLD, Detector())
    ideal = runs[False]
    typical = run_slip_trial((HOLD, Detector(preset='typical')))
    # the same physics and ticks (a sample whose pad frame was lost comes with the next)
    n = typical['time_s'].size
    assert n >= ideal['time_s'].size - 2
    np.testing.assert_array_equal(typical['time_s'], ideal['time_s'][:n])
    np.testing.assert_array_equal(typical['slip_speed'], ideal['slip_speed'][:n])
    # the detectors' cues from noisy, offset, quantised clouds (tared at the trial's start)
    assert not np.allclose(typical['cues'], ideal['cues'][:n], equal_nan=True)
    assert np.all(np.isfinite(typical['cues'][:, :3]))
