"""The monitor's inputs as hardware gives them: tare, noise floor, hysteresis, finger motion."""

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor import GraspMonitor, InputsConfig, MonitorConfig, MonitorInputs
from grasp_monitor.core.monitor.finger_motion import FingerMotion
from grasp_monitor.core.monitor.incipient_slip import SlipScore
from grasp_monitor.core.monitor.taxel_zero import TaxelZero
import numpy as np
import pytest


def test_the_tare_learns_each_taxels_zero_and_reads_zero_meanwhile():
    zero = TaxelZero(tare_s=0.02, deadband_sigmas=0.0, track_s=0.0)
    offsets = np.array([[0.1, 0.0, -0.2], [0.0, 0.3, 0.0]])
    for i in range(3):  # 0, 0.01, 0.02 s: the window closes at its length
        assert zero.taring
        assert zero.apply(offsets, 0.01 * i).tolist() == np.zeros((2, 3)).tolist()
    assert not zero.taring
    load = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    assert zero.apply(offsets + load, 0.03) == pytest.approx(load)
    zero.tare()
    assert zero.taring  # on request, from the next readings


def test_a_taxel_within_its_noise_floor_reads_zero_and_a_load_passes():
    rng = np.random.default_rng(0)
    noise = 0.002 * rng.standard_normal((50, 4, 3))
    zero = TaxelZero(tare_s=0.049, deadband_sigmas=3.0, track_s=0.0)
    for i, frame in enumerate(noise):
        zero.apply(frame, 0.001 * i)
    # the floor: 3 x the root of the summed variances, about 3 x 0.002 x sqrt(3)
    assert zero.floor_n == pytest.approx(np.full(4, 0.0104), abs=0.002)
    frame = np.zeros((4, 3))
    frame[0] = [0.0, 0.0, 0.005]   # within the floor
    frame[1] = [0.0, 0.0, 0.05]    # a load
    out = zero.apply(frame + noise.mean(axis=0), 0.06)
    assert out[0].tolist() == [0.0, 0.0, 0.0] and out[1] == pytest.approx([0.0, 0.0, 0.05])


def test_an_unloaded_taxels_zero_follows_drift_and_a_load_is_kept():
    zero = TaxelZero(tare_s=0.001, deadband_n=0.01, deadband_sigmas=0.0, track_s=0.5)
    zero.apply(np.zeros((2, 1)), 0.0)
    zero.apply(np.zeros((2, 1)), 0.001)
    # taxel 0 drifts 5 mN/s for 4 s; taxel 1 carries 0.2 N
    for i in range(2, 4001):
        t = 0.001 * i
        out = zero.apply(np.array([[0.005 * t], [0.2]]), t)
    # the drift's lag settles at rate x time constant: 2.5 mN, inside the 10 mN floor
    assert out[0, 0] == 0.0 and out[1, 0] == pytest.approx(0.2)


def test_exact_readings_pass_unchanged_after_the_tare():
    zero = TaxelZero(tare_s=0.01)
    zero.apply(np.zeros((3, 3)), 0.0)
    zero.apply(np.zeros((3, 3)), 0.01)
    frame = np.array([[1e-6, 0.0, 0.0], [0.0, 0.3, 0.0], [0.0, 0.0, 0.0]])
    assert zero.apply(frame, 0.02).tolist() == frame.tolist()


@pytest.mark.parametrize('name', ['tare_s', 'deadband_n', 'deadband_sigmas', 'track_s'])
def test_bad_zero_settings_refused(name):
    with pytest.raises(ConfigError) as error:
        TaxelZero(**{name: -1.0})
    assert str(error.value) == f'{name} must be finite and >= 0, got -1.0'


def test_finger_speed_is_the_spread_of_its_positions_over_the_window():
    motion = FingerMotion(1, window_s=0.05)
    rng = np.random.default_rng(1)
    speeds = []
    for i in range(200):  # still, its velocity jittering at 20 mm/s
        speeds.append(motion.speeds([0.03 + 2e-6 * (i % 2)], [0.02 * rng.standard_normal()],
                                    0.001 * i)[0])
    # until a whole window is seen the velocities decide; then 2 um over 50 ms
    assert speeds[-1] == pytest.approx(2e-6 / 0.05)
    closing = [motion.speeds([0.03 + 0.005 * 0.001 * i], [0.005], 0.2 + 0.001 * i)[0]
               for i in range(100)]
    assert closing[-1] == pytest.approx(0.005, rel=0.03)  # a slow close reads as its speed


def test_without_positions_the_velocity_decides():
    assert FingerMotion(2, 0.05).speeds(None, [-0.1, 0.2], 0.0).tolist() == [0.1, 0.2]
    assert FingerMotion(2, 0.0).speeds([0.0, 0.0], [-0.1, 0.2], 0.0).tolist() == [0.1, 0.2]


def hardware_inputs(**config):
    return MonitorInputs(InputsConfig(('left', 'right'), ('f_l', 'f_r'), use_object=False,
                                      contact_force_n=0.05, period_s=0.01,
                                      **{'tare_s': 0.0} | config))


def test_a_pads_contact_holds_until_its_force_falls_below_the_release_share():
    inputs = hardware_inputs(contact_release=0.5)
    contact = []
    for i, force in enumerate((0.0, 0.06, 0.04, 0.026, 0.024, 0.06)):
        inputs.update_pad('left', [[0.0, 0.0, force]], 0.01 * i)
        inputs.update_pad('right', [[0.0, 0.0, 0.0]], 0.01 * i)
        inputs.update_joints(['f_l', 'f_r'], [0.0, 0.0], 0.01 * i)
        contact += [bool(s.in_contact[0]) for s in inputs.due()]
    assert contact == [False, True, True, True, False, True]


def test_a_stalled_finger_jittering_above_the_threshold_is_still_and_a_slow_close_is_not():
    def grasp_time(positions, velocities):
        inputs = hardware_inputs()
        grasp = GraspMonitor(MonitorConfig(sensor_period_s=0.01, robot_bodies=('left', 'right'),
                                           finger_still_speed=0.002, grasp_dwell_s=0.1))
        for i, (position, velocity) in enumerate(zip(positions, velocities)):
            for pad in ('left', 'right'):
                inputs.update_pad(pad, [[0.0, 0.0, 2.0]], 0.01 * i)
            inputs.update_joints(['f_l', 'f_r'], [velocity] * 2, 0.01 * i, [position] * 2)
            for sample in inputs.due():
                for record in grasp.update(sample).records:
                    if record.kind == 'grasp':
                        return record.time_s
        return None
    jitter = [0.02 * (-1) ** i for i in range(60)]     # 20 mm/s of chatter, stalled
    # still from the first whole window (50 ms), then 10 samples of 10 ms: 0.05 ... 0.14 s
    assert grasp_time([0.03 + 2e-6 * (i % 2) for i in range(60)], jitter) == \
        pytest.approx(0.14)
    creep = [0.03 + 0.005 * 0.01 * i for i in range(60)]  # closing at 5 mm/s
    assert grasp_time(creep, [0.005] * 60) is None


def test_the_stall_cue_fires_when_a_rising_shear_ratio_stops_and_not_on_a_smooth_peak():
    def fired_at(ratios):
        score = SlipScore(friction=0.0, stall=0.8, stall_rise=0.1, stall_window_s=0.1,
                          settle_s=0.0)
        for i, ratio in enumerate(ratios):
            cues = score.update(np.array([[10.0, 10.0 * ratio, 0.0, 0.0, np.nan]]), 0.002)
            if cues.max() >= 1.0:
                return i
        return None
    ramp = [0.2 + 0.5 * 0.002 * i for i in range(600)]   # 0.5 / s up to ...
    plateau = [min(r, 0.6) for r in ramp]                   # ... the cone's edge at 0.6
    assert fired_at(ramp) is None
    at = fired_at(plateau)
    assert at is not None and 0.002 * at - 0.8 < 0.03  # within 30 ms of the stall at 0.8 s
    swing = [0.2 + 0.4 * np.sin(0.4 * 0.002 * i) for i in range(2000)]  # a 16 s swing
    assert fired_at(swing) is None
