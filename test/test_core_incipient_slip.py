"""The incipient_slip event and the tactile slip signals it reads, on hand-made pads."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor import (
    GraspMonitor, GraspSample, InputsConfig, MonitorConfig, MonitorInputs, pad_slip_signals)
from grasp_monitor.core.monitor.incipient_slip import SlipScore
import numpy as np
import pytest

#: Four taxels on a pad whose surface faces -y: at x = +-1 cm, z = +-1 cm.
POSITIONS = np.array([[0.01, -0.005, 0.01], [-0.01, -0.005, 0.01],
                      [0.01, -0.005, -0.01], [-0.01, -0.005, -0.01]])


def test_signals_hand_computed():
    # 1 N and 3 N pressing (-y), 0.5 N of shear along z on the second taxel
    forces = np.zeros((4, 3))
    forces[0, 1] = -1.0
    forces[1] = (0.0, -3.0, 0.5)
    normal, shear, cop_x, cop_z, slip = pad_slip_signals(POSITIONS, forces, 'y')
    assert (normal, shear) == (4.0, 0.5)
    # (1 N at x = 1 cm, 3 N at x = -1 cm) / 4 N; both at z = 1 cm
    assert (cop_x, cop_z) == pytest.approx((-0.005, 0.01))
    assert math.isnan(slip)
    # with a slip channel: the normal-force-weighted sliding speed, its normal part left out
    velocity = np.zeros((4, 3))
    velocity[0] = (0.003, 0.7, 0.004)  # 5 mm/s across, 0.7 m/s along the normal (ignored)
    assert pad_slip_signals(POSITIONS, forces, 'y', velocity)[4] == pytest.approx(0.005 / 4)


def test_signals_of_an_unloaded_pad_and_a_block():
    block = np.zeros((3, 4, 3))
    block[2, :, 1] = 2.0
    signals = pad_slip_signals(POSITIONS, block, 'y')
    assert signals.shape == (3, 5)
    assert np.isnan(signals[0, 2:4]).all() and signals[0, 0] == 0.0
    assert signals[2, :4] == pytest.approx([8.0, 0.0, 0.0, 0.0])


def sample(time_s, shear_n, normal_n=10.0, cop=(0.0, 0.0), slip=math.nan):
    """Two pads, the first with ``shear_n``, the second at rest."""
    signals = [[normal_n, shear_n, *cop, slip], [normal_n, 0.0, 0.0, 0.0, math.nan]]
    return GraspSample(time_s, np.array([True, True]), pad_signals=signals)


def monitor(**settings):
    # watched from the first sample: these test the cues, not the settling
    return GraspMonitor(MonitorConfig(sensor_period_s=0.01, robot_bodies=('left', 'right'),
                                      events=('contact', 'incipient_slip'),
                                      **{'incipient_slip_settle': 0.0} | settings))


def test_fires_when_a_pad_uses_the_share_of_its_friction_cone():
    grasp = monitor(incipient_slip_friction=0.5, incipient_slip_ratio=0.8)
    # friction 0.5 x 10 N = 5 N of cone; 0.8 of it = 4 N of shear
    fired = [any(r.kind == 'incipient_slip' for r in grasp.update(sample(0.01 * i, s)).records)
             for i, s in enumerate((1.0, 2.0, 3.0, 3.9, 4.0, 4.5))]
    assert fired == [False] * 4 + [True, False]
    event = grasp.events['incipient_slip']
    assert event.details['cue'] == 'friction' and event.details['pad'] == 'left'
    assert event.details['friction_share'] == pytest.approx(0.8)


def test_fires_on_a_moving_centre_of_pressure_and_on_vibration():
    # the speed of each sample
    grasp = monitor(incipient_slip_cop_speed=0.1, incipient_slip_cop_window=0.0)
    grasp.update(sample(0.00, 0.0, cop=(0.0, 0.0)))
    grasp.update(sample(0.01, 0.0, cop=(0.0005, 0.0)))  # 5 cm/s
    assert 'incipient_slip' not in grasp.trial.fired
    grasp.update(sample(0.02, 0.0, cop=(0.0025, 0.0)))  # 20 cm/s
    assert grasp.events['incipient_slip'].details['cue'] == 'cop'
    # the normal force jumps 10 -> 13 N; the low-pass (20 ms) follows a third of it in
    # 10 ms: 2 N of high-pass over 13 N = 0.154
    grasp = monitor(incipient_slip_vibration=0.15)
    grasp.update(sample(0.00, 0.0))
    grasp.update(sample(0.01, 0.0, normal_n=13.0))
    assert grasp.events['incipient_slip'].details['cue'] == 'vibration'


def test_slip_channel_only_where_the_sensor_has_one():
    grasp = monitor(incipient_slip_slip_speed=0.001)
    grasp.update(sample(0.00, 0.0))  # NaN: no channel, no cue
    grasp.update(sample(0.01, 0.0, slip=0.0009))
    assert 'incipient_slip' not in grasp.trial.fired
    grasp.update(sample(0.02, 0.0, slip=0.0011))
    assert grasp.events['incipient_slip'].details['cue'] == 'slip'


def test_a_lightly_pressed_pad_and_no_signals_never_fire():
    grasp = monitor(incipient_slip_min_force=1.0)
    for i in range(3):  # all shear, but 0.5 N of normal force
        grasp.update(sample(0.01 * i, 5.0, normal_n=0.5))
        grasp.update(GraspSample(0.01 * i + 0.005, np.array([True, True])))
    assert 'incipient_slip' not in grasp.trial.fired


def test_score_cues_scaled_and_off():
    score = SlipScore(friction=1.0, ratio=0.5, cop_speed=0.0, settle_s=0.0)
    cues = score.update(np.array([[10.0, 2.0, 0.0, 0.0, 0.004]]), 0.01)
    assert cues.tolist() == [[0.4, 0.0, 0.0, 0.0, 0.0]]  # 0.2 of the cone over 0.5; the rest off


@pytest.mark.parametrize('settings, message', [
    ({'incipient_slip_ratio': 0.0}, 'ratio must be finite and > 0, got 0.0'),
    ({'incipient_slip_cop_speed': -1.0}, 'cop_speed must be finite and >= 0 (0: off), got -1.0'),
    ({'incipient_slip_normal_axis': 'w'},
     "incipient_slip_normal_axis must be one of x, y, z, got 'w'"),
])
def test_bad_settings_refused(settings, message):
    with pytest.raises(ConfigError) as error:
        monitor(**settings)
    assert str(error.value) == message


def test_a_jittering_centre_of_pressure_averages_out_where_a_drifting_one_warns():
    # 2 cm/s of threshold; the centre of pressure jumps 1 mm back and forth every 10 ms
    # (10 cm/s a sample, as between a box's corner contacts), or drifts at 3 cm/s
    def fired(cops, window_s):
        grasp = monitor(incipient_slip_cop_speed=0.02, incipient_slip_cop_window=window_s)
        for i, cop in enumerate(cops):
            grasp.update(sample(0.01 * i, 0.0, cop=(cop, 0.0)))
        return 'incipient_slip' in grasp.trial.fired
    jitter = [0.001 * (i % 2) for i in range(40)]
    drift = [0.0003 * i for i in range(40)]
    assert fired(jitter, 0.0) and fired(drift, 0.0)
    assert not fired(jitter, 0.05) and fired(drift, 0.05)


def test_sample_refuses_signals_of_another_shape():
    with pytest.raises(ConfigError, match=r'pad_signals must be empty or \(2, 5\)'):
        GraspSample(0.0, np.array([True, True]), pad_signals=np.zeros((2, 4)))


def test_inputs_give_the_pads_signals_from_their_taxels():
    inputs = MonitorInputs(InputsConfig(('left', 'right'), use_object=False, tare_time=0.0,
                                        finger_joints=('f',), period_s=0.01,
                                        slip_signals=True, incipient_slip_normal_axis='y'))
    forces = np.zeros((4, 3))
    forces[:, 1] = -1.0
    forces[0, 2] = 0.5
    for pad in ('left', 'right'):
        inputs.update_pad(pad, forces, 0.01, POSITIONS)
    inputs.update_joints(('f',), [0.0], 0.01)
    (due,) = inputs.due()
    assert due.pad_signals.shape == (2, 5)
    assert due.pad_signals[0, :4] == pytest.approx([4.0, 0.5, 0.0, 0.0])
    assert np.isnan(due.pad_signals[:, 4]).all()  # no slip channel in these clouds
    # a cloud with the slip channel: its force-weighted sliding speed joins the signals
    slip = np.zeros((4, 3))
    slip[:, 0] = [0.004, 0.0, 0.0, 0.0]  # along x, tangential to a y-normal pad
    inputs.update_pad('left', forces, 0.02, POSITIONS, slip)
    inputs.update_pad('right', forces, 0.02, POSITIONS)
    inputs.update_joints(('f',), [0.0], 0.02)
    (due,) = inputs.due()
    assert due.pad_signals[0, 4] == pytest.approx(0.001)  # a quarter of the force slides
    assert np.isnan(due.pad_signals[1, 4])
    assert due.in_contact.tolist() == [True, True]
    # a cloud without positions (an older publisher): no signals, contacts as before
    inputs.update_pad('left', forces, 0.03)
    inputs.update_pad('right', forces, 0.03)
    inputs.update_joints(('f',), [0.0], 0.03)
    (due,) = inputs.due()
    assert due.pad_signals.size == 0 and due.in_contact.tolist() == [True, True]
