"""The realism model of sensors: each effect alone, exact; blocks, resets, presets, settings."""

from dataclasses import fields
import re

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.realism import (
    JointRealism, JointRealismConfig, PRESET_NAMES, PRESETS, realism_configs,
    REALISM_SETTINGS, stream_seed, TactileRealism, TactileRealismConfig)
import numpy as np
import pytest

PERIOD_S = 0.002


def grid(rows: int, columns: int, spacing_m: float = 0.003) -> np.ndarray:
    """Return (rows * columns, 3) taxel positions on a square grid in the pad's xy plane."""
    x, y = np.meshgrid(np.arange(columns) * spacing_m, np.arange(rows) * spacing_m)
    return np.column_stack((x.ravel(), y.ravel(), np.zeros(x.size)))


def line(count: int, spacing_m: float = 0.003) -> np.ndarray:
    """Return (count, 3) taxel positions along x."""
    return grid(1, count, spacing_m)


def random_forces(frames: int, taxels: int, components: int = 3, seed: int = 7) -> np.ndarray:
    """Return (frames, taxels, components) forces in [-0.3, 0.3] N."""
    return np.random.default_rng(seed).uniform(-0.3, 0.3, (frames, taxels, components))


def tactile(config: TactileRealismConfig, positions: np.ndarray, seed: int = 3):
    """Return a tactile realism model at the test period."""
    return TactileRealism(config, positions, PERIOD_S, seed)


# --- ideal -----------------------------------------------------------------------------------

def test_ideal_tactile_is_the_identity_to_the_bit():
    forces = random_forces(20, 12)
    forces[0, 0, 0] = -0.0
    readings, arrived = tactile(TactileRealismConfig(), grid(3, 4)).apply(forces)
    assert readings.tobytes() == forces.tobytes()
    assert arrived.dtype == bool and arrived.shape == (20,) and arrived.all()
    assert readings is not forces


def test_ideal_joints_are_the_identity_to_the_bit():
    positions = random_forces(9, 2, 1)[:, :, 0]
    velocities = random_forces(9, 2, 1, seed=8)[:, :, 0]
    reported, speeds, arrived = JointRealism(JointRealismConfig(), 2, PERIOD_S, 0).apply(
        positions, velocities)
    assert reported.tobytes() == positions.tobytes()
    assert speeds.tobytes() == velocities.tobytes()
    assert arrived.all()


# --- each tactile effect alone ---------------------------------------------------------------

def test_quantisation_rounds_to_the_adc_step():
    # 3 bits over [-1, 1] N: a step of 2 / 8 = 0.25 N.
    model = tactile(TactileRealismConfig(full_scale_n=1.0, bits=3), line(6))
    forces = np.array([0.1, 0.13, 0.37, 0.38, -0.9, 0.99]).reshape(1, 6, 1)
    readings, _ = model.apply(forces)
    assert readings.ravel().tolist() == [0.0, 0.25, 0.25, 0.5, -1.0, 1.0]


def test_saturation_clamps_each_component_to_the_full_scale():
    model = tactile(TactileRealismConfig(full_scale_n=0.5), line(2))
    readings, _ = model.apply(np.array([[[0.7, -2.0, 0.3], [0.0, 0.5, -0.6]]]))
    assert readings.tolist() == [[[0.5, -0.5, 0.3], [0.0, 0.5, -0.5]]]


def test_dead_taxels_read_zero_and_the_others_are_untouched():
    model = tactile(TactileRealismConfig(dead_fraction=0.25), grid(2, 4))
    forces = random_forces(5, 8)
    readings, _ = model.apply(forces)
    assert model.dead.size == 2
    assert np.all(readings[:, model.dead] == 0.0)
    alive = np.setdiff1d(np.arange(8), model.dead)
    assert np.array_equal(readings[:, alive], forces[:, alive])


def test_stuck_taxels_hold_one_value_within_the_range():
    model = tactile(TactileRealismConfig(stuck_fraction=0.25, full_scale_n=0.4), grid(2, 4))
    forces = random_forces(5, 8)
    readings, _ = model.apply(forces)
    stuck = model.stuck
    assert stuck.size == 2
    assert np.all(readings[:, stuck] == readings[0, stuck])
    assert np.all(np.abs(readings[0, stuck]) <= 0.4) and np.any(readings[0, stuck] != 0)
    others = np.setdiff1d(np.arange(8), stuck)
    assert np.array_equal(readings[:, others], forces[:, others])


def test_dead_and_stuck_taxels_are_distinct():
    model = tactile(TactileRealismConfig(dead_fraction=0.5, stuck_fraction=0.5,
                                         full_scale_n=1.0), grid(4, 4))
    assert model.dead.size == 8 and model.stuck.size == 8
    assert np.intersect1d(model.dead, model.stuck).size == 0


def test_crosstalk_adds_a_share_of_each_neighbour_on_a_line():
    # Neighbours lie within 1.5 spacings: the middle taxel has two, the ends one.
    model = tactile(TactileRealismConfig(crosstalk=0.1), line(3))
    readings, _ = model.apply(np.array([[[1.0], [2.0], [4.0]]]))
    assert readings.ravel() == pytest.approx([1.0 + 0.1 * 2.0, 2.0 + 0.1 * 5.0, 4.0 + 0.1 * 2.0])


def test_crosstalk_on_a_grid_reaches_the_eight_around_a_taxel():
    model = tactile(TactileRealismConfig(crosstalk=0.01), grid(3, 3))
    forces = np.zeros((1, 9, 1))
    forces[0, 4, 0] = 1.0
    readings, _ = model.apply(forces)
    expected = np.full(9, 0.01)
    expected[4] = 1.0
    assert readings.ravel() == pytest.approx(expected)


def test_latency_shifts_frames_and_repeats_the_first():
    # 6 ms at 2 ms a frame: 3 frames.
    model = tactile(TactileRealismConfig(latency_s=0.006), line(1))
    forces = np.arange(1.0, 7.0).reshape(6, 1, 1)
    readings, _ = model.apply(forces)
    assert readings.ravel().tolist() == [1.0, 1.0, 1.0, 1.0, 2.0, 3.0]


def test_gain_error_scales_each_taxel_by_one_constant():
    model = tactile(TactileRealismConfig(gain_error=0.1), grid(40, 50))
    forces = random_forces(3, 2000) + 0.5
    readings, _ = model.apply(forces)
    gains = readings / forces
    assert np.allclose(gains, gains[0])
    # 6000 draws of 1 + 0.1 z: the mean within 5 standard errors, the std within 5 %.
    assert abs(gains[0].mean() - 1.0) < 5 * 0.1 / np.sqrt(6000)
    assert gains[0].std() == pytest.approx(0.1, rel=0.05)


def test_offset_is_constant_per_taxel():
    model = tactile(TactileRealismConfig(offset_n=0.02), grid(40, 50))
    forces = random_forces(4, 2000)
    readings, _ = model.apply(forces)
    offsets = readings - forces
    assert np.allclose(offsets, offsets[0], atol=1e-15)
    assert offsets[0].std() == pytest.approx(0.02, rel=0.05)


def test_drift_is_linear_in_time_from_zero():
    model = tactile(TactileRealismConfig(drift_n_per_s=0.003), grid(10, 10))
    forces = random_forces(6, 100)
    readings, _ = model.apply(forces)
    drift = readings - forces
    assert np.all(drift[0] == 0.0)
    for frame in range(2, 6):
        assert drift[frame] == pytest.approx(frame * drift[1], abs=1e-15)
    rates = drift[1] / PERIOD_S
    assert rates.std() == pytest.approx(0.003, rel=0.2)


def test_noise_is_white_with_the_configured_std():
    model = tactile(TactileRealismConfig(noise_n=0.002), grid(10, 10))
    noise = model.apply(np.zeros((200, 100, 3)))[0]
    assert noise.std() == pytest.approx(0.002, rel=0.02)
    assert abs(np.corrcoef(noise[:-1].ravel(), noise[1:].ravel())[0, 1]) < 0.02


def test_hysteresis_is_a_play_operator_on_a_triangle_wave():
    # Width 0.2 * 1 N: the output lags 0.1 N behind on the way up and on the way down.
    model = tactile(TactileRealismConfig(hysteresis=0.2, full_scale_n=1.0), line(1))
    triangle = np.array([0.0, 0.5, 1.0, 0.5, 0.0, 0.5]).reshape(6, 1, 1)
    readings, _ = model.apply(triangle)
    assert readings.ravel() == pytest.approx([0.0, 0.4, 0.9, 0.6, 0.1, 0.4])


def test_dropped_frames_within_a_binomial_bound():
    model = tactile(TactileRealismConfig(drop_rate=0.1), line(1), seed=11)
    _, arrived = model.apply(np.zeros((10000, 1, 1)))
    # Binomial(10000, 0.1): mean 1000, std 30; five standard deviations either side.
    assert abs((~arrived).sum() - 1000) < 150


def test_one_component_forces_are_taken():
    config = PRESETS['typical'][0]
    readings, arrived = tactile(config, grid(4, 4)).apply(np.full((3, 16, 1), 0.1))
    assert readings.shape == (3, 16, 1) and arrived.shape == (3,)


def test_bad_shapes_are_refused():
    model = tactile(TactileRealismConfig(noise_n=0.01), line(3))
    text = 'forces must be (S, 3, 1 or 3), got (2, 3, 2)'
    with pytest.raises(ValueError, match=re.escape(text)):
        model.apply(np.zeros((2, 3, 2)))
    model.apply(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match='forces have 1 components, earlier ones had 3'):
        model.apply(np.zeros((2, 3, 1)))


# --- each joint effect alone -----------------------------------------------------------------

def joints(config: JointRealismConfig, count: int = 1, period_s: float = PERIOD_S,
           seed: int = 5) -> JointRealism:
    """Return a joint realism model."""
    return JointRealism(config, count, period_s, seed)


def test_backlash_is_a_play_operator_from_the_first_position():
    model = joints(JointRealismConfig(backlash=0.2))
    positions = np.array([0.0, 0.05, 0.3, 0.25, 0.1, 0.0])[:, None]
    reported, speeds, _ = model.apply(positions, np.ones_like(positions))
    assert reported.ravel() == pytest.approx([0.0, 0.0, 0.2, 0.2, 0.2, 0.1])
    assert speeds.ravel().tolist() == [1.0] * 6


def test_encoder_resolution_quantises_positions():
    model = joints(JointRealismConfig(resolution=0.25))
    positions = np.array([0.1, 0.13, 0.37, 0.38, -0.9])[:, None]
    reported, _, _ = model.apply(positions, np.zeros_like(positions))
    assert reported.ravel().tolist() == [0.0, 0.25, 0.25, 0.5, -1.0]


def test_differentiated_velocity_of_a_ramp():
    model = joints(JointRealismConfig(differentiate=True), period_s=0.01)
    ramp = 0.001 * np.arange(6.0)[:, None]
    _, speeds, _ = model.apply(ramp, np.zeros_like(ramp))
    assert speeds.ravel() == pytest.approx([0.0] + [0.1] * 5)


def test_differentiated_velocity_of_a_quantised_ramp():
    # 0.1 m a frame through a 0.25 m quantum: 0, 0, 0.25, 0.25, 0.5, 0.5 m.
    model = joints(JointRealismConfig(differentiate=True, resolution=0.25), period_s=0.5)
    ramp = 0.1 * np.arange(6.0)[:, None]
    reported, speeds, _ = model.apply(ramp, np.zeros_like(ramp))
    assert reported.ravel().tolist() == [0.0, 0.0, 0.25, 0.25, 0.5, 0.5]
    assert speeds.ravel().tolist() == [0.0, 0.0, 0.5, 0.0, 0.5, 0.0]


def test_joint_velocity_noise_and_latency():
    model = joints(JointRealismConfig(velocity_noise=0.015), count=2)
    _, speeds, _ = model.apply(np.zeros((5000, 2)), np.zeros((5000, 2)))
    assert speeds.std() == pytest.approx(0.015, rel=0.03)
    late = joints(JointRealismConfig(latency_s=0.004))
    positions = np.arange(5.0)[:, None]
    reported, speeds, _ = late.apply(positions, 10 * positions)
    assert reported.ravel().tolist() == [0.0, 0.0, 0.0, 1.0, 2.0]
    assert speeds.ravel().tolist() == [0.0, 0.0, 0.0, 10.0, 20.0]
    # Half a period rounds up to a whole frame.
    half = joints(JointRealismConfig(latency_s=0.001))
    reported, _, _ = half.apply(positions, positions)
    assert reported.ravel().tolist() == [0.0, 0.0, 1.0, 2.0, 3.0]


def test_joint_drops_within_a_binomial_bound():
    _, _, arrived = joints(JointRealismConfig(drop_rate=0.02)).apply(
        np.zeros((10000, 1)), np.zeros((10000, 1)))
    # Binomial(10000, 0.02): mean 200, std 14; five standard deviations.
    assert abs((~arrived).sum() - 200) < 70


def test_joint_shapes_are_checked():
    with pytest.raises(ValueError, match=re.escape('must both be (S, 2), got (3, 2) and (3, 1)')):
        joints(JointRealismConfig(), count=2).apply(np.zeros((3, 2)), np.zeros((3, 1)))


# --- blocks, resets, seeds -------------------------------------------------------------------

@pytest.mark.parametrize('preset', ['typical', 'harsh'])
def test_a_block_equals_frame_by_frame_and_chunks(preset):
    config, joint_config = PRESETS[preset]
    forces = random_forces(50, 64)
    whole = tactile(config, grid(8, 8)).apply(forces)
    one_by_one = tactile(config, grid(8, 8))
    frames = [one_by_one.apply(forces[s:s + 1]) for s in range(50)]
    assert np.array_equal(whole[0], np.concatenate([f[0] for f in frames]))
    assert np.array_equal(whole[1], np.concatenate([f[1] for f in frames]))
    chunked = tactile(config, grid(8, 8))
    parts = [chunked.apply(forces[a:b]) for a, b in ((0, 7), (7, 20), (20, 50))]
    assert np.array_equal(whole[0], np.concatenate([p[0] for p in parts]))

    positions = 0.01 * np.sin(np.linspace(0, 3, 50))[:, None] * np.ones((1, 2))
    velocities = np.gradient(positions, axis=0) / PERIOD_S
    block = JointRealism(joint_config, 2, PERIOD_S, 4).apply(positions, velocities)
    single = JointRealism(joint_config, 2, PERIOD_S, 4)
    steps = [single.apply(positions[s:s + 1], velocities[s:s + 1]) for s in range(50)]
    for index in range(3):
        assert np.array_equal(block[index], np.concatenate([s[index] for s in steps]))


def test_reset_replays_the_same_output():
    config, joint_config = PRESETS['harsh']
    model = tactile(config, grid(6, 6))
    forces = random_forces(30, 36)
    first = model.apply(forces)
    model.apply(forces)
    model.reset()
    again = model.apply(forces)
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    encoder = JointRealism(joint_config, 1, PERIOD_S, 2)
    ramp = np.linspace(0, 0.01, 30)[:, None]
    before = encoder.apply(ramp, np.ones_like(ramp))
    encoder.apply(ramp, np.ones_like(ramp))
    encoder.reset()
    after = encoder.apply(ramp, np.ones_like(ramp))
    assert all(np.array_equal(b, a) for b, a in zip(before, after))


def test_the_same_seed_gives_the_same_draws_and_another_differs():
    config = PRESETS['typical'][0]
    forces = random_forces(10, 36)
    same = [tactile(config, grid(6, 6), seed=9).apply(forces)[0] for _ in range(2)]
    other = tactile(config, grid(6, 6), seed=10).apply(forces)[0]
    assert np.array_equal(same[0], same[1]) and not np.array_equal(same[0], other)
    assert stream_seed(0, 'left') == stream_seed(0, 'left') != stream_seed(0, 'right')


# --- configurations --------------------------------------------------------------------------

@pytest.mark.parametrize('kwargs, text', [
    ({'noise_n': -1.0}, 'TactileRealismConfig.noise_n must be a number in [0.0, inf], got -1.0'),
    ({'offset_n': 'a'}, 'TactileRealismConfig.offset_n must be a number in [0.0, inf], got '
                        "str 'a'"),
    ({'gain_error': 0.5}, 'TactileRealismConfig.gain_error must be a number in [0.0, 0.5), '
                          'got 0.5'),
    ({'drop_rate': 1.0}, 'TactileRealismConfig.drop_rate must be a number in [0.0, 1.0), '
                         'got 1.0'),
    ({'full_scale_n': 0.0}, 'TactileRealismConfig.full_scale_n must be a number in '
                            '[1e-12, inf] or inf, got 0.0'),
    ({'bits': True}, 'TactileRealismConfig.bits must be an int in [0, 32], got True'),
    ({'bits': 33, 'full_scale_n': 1.0},
     'TactileRealismConfig.bits must be an int in [0, 32], got 33'),
    ({'latency_s': float('nan')},
     'TactileRealismConfig.latency_s must be a number in [0.0, inf], got nan'),
    ({'hysteresis': 0.1}, 'TactileRealismConfig.hysteresis = 0.1 needs a finite '
                          'full_scale_n, got inf'),
    ({'bits': 12}, 'TactileRealismConfig.bits = 12 needs a finite full_scale_n, got inf'),
    ({'dead_fraction': 0.6, 'stuck_fraction': 0.5, 'full_scale_n': 1.0},
     'TactileRealismConfig.dead_fraction + stuck_fraction must be <= 1, got 0.6 + 0.5'),
])
def test_bad_tactile_configs_are_refused(kwargs, text):
    with pytest.raises(ConfigError) as error:
        TactileRealismConfig(**kwargs)
    assert str(error.value) == text


@pytest.mark.parametrize('kwargs, text', [
    ({'resolution': -0.1}, 'JointRealismConfig.resolution must be a number in [0.0, inf], '
                           'got -0.1'),
    ({'differentiate': 1}, 'JointRealismConfig.differentiate must be a bool, got int 1'),
    ({'drop_rate': 2}, 'JointRealismConfig.drop_rate must be a number in [0.0, 1.0), got 2'),
    ({'velocity_noise': float('inf')},
     'JointRealismConfig.velocity_noise must be a number in [0.0, inf], got inf'),
])
def test_bad_joint_configs_are_refused(kwargs, text):
    with pytest.raises(ConfigError) as error:
        JointRealismConfig(**kwargs)
    assert str(error.value) == text


def test_bad_model_arguments_are_refused():
    with pytest.raises(ConfigError, match=re.escape('positions_in_pad must be finite (N, 3), '
                                                    'm, got shape (4, 2)')):
        TactileRealism(TactileRealismConfig(), np.zeros((4, 2)), PERIOD_S, 0)
    with pytest.raises(ConfigError, match='sample_period_s must be a finite number > 0, s, '
                                          'got 0.0'):
        TactileRealism(TactileRealismConfig(), line(2), 0.0, 0)
    with pytest.raises(ConfigError, match=re.escape(
            'realism.seed must be an int in [0, 9223372036854775807], got -1')):
        JointRealism(JointRealismConfig(), 1, PERIOD_S, -1)
    with pytest.raises(ConfigError, match='joints must be an int >= 1, got 0'):
        JointRealism(JointRealismConfig(), 0, PERIOD_S, 0)


def test_realism_configs_resolves_preset_and_overrides():
    assert realism_configs({}) == PRESETS['ideal']
    assert realism_configs({'realism.preset': 'harsh', 'other.name': 3}) == PRESETS['harsh']
    tactile_config, joint_config = realism_configs({
        'realism.preset': 'typical', 'realism.tactile.noise_n': 0.01,
        'realism.tactile.bits': 0, 'realism.tactile.latency_s': -1.0,
        'realism.joints.differentiate': 'false', 'realism.joints.backlash': 0})
    assert tactile_config.noise_n == 0.01 and tactile_config.bits == 0
    assert tactile_config.latency_s == PRESETS['typical'][0].latency_s
    assert tactile_config.offset_n == PRESETS['typical'][0].offset_n
    assert joint_config.differentiate is False and joint_config.backlash == 0.0
    assert joint_config.resolution == PRESETS['typical'][1].resolution
    on = realism_configs({'realism.joints.differentiate': 'true'})[1]
    assert on == JointRealismConfig(differentiate=True)


@pytest.mark.parametrize('values, text', [
    ({'realism.tactile.nois_n': 0.1},
     "unknown realism setting 'realism.tactile.nois_n'; did you mean "
     "'realism.tactile.noise_n'?"),
    ({'realism.preset': 'rough'},
     "parameter 'realism.preset' must be one of ideal, typical, harsh, got 'rough'"),
    ({'realism.tactile.noise_n': -0.5},
     'TactileRealismConfig.noise_n must be a number in [0.0, inf], got -0.5'),
    ({'realism.tactile.hysteresis': 0.1},
     'TactileRealismConfig.hysteresis = 0.1 needs a finite full_scale_n, got inf'),
])
def test_realism_configs_refuses_with_the_reason(values, text):
    with pytest.raises(ConfigError) as error:
        realism_configs(values)
    assert str(error.value) == text


def test_every_field_has_one_setting():
    names = {setting.name for setting in REALISM_SETTINGS}
    expected = {'realism.preset', 'realism.seed'}
    expected |= {f'realism.tactile.{f.name}' for f in fields(TactileRealismConfig)}
    expected |= {f'realism.joints.{f.name}' for f in fields(JointRealismConfig)}
    assert names == expected and len(names) == len(REALISM_SETTINGS)


@pytest.mark.parametrize('preset', PRESET_NAMES)
def test_every_preset_is_valid_and_runs(preset):
    tactile_config, joint_config = PRESETS[preset]
    assert tactile_config.is_ideal == joint_config.is_ideal == (preset == 'ideal')
    readings, arrived = tactile(tactile_config, grid(16, 20)).apply(random_forces(40, 320))
    assert readings.shape == (40, 320, 3) and np.all(np.isfinite(readings))
    assert arrived.shape == (40,)
    ramp = np.linspace(0.0, 0.02, 40)[:, None]
    reported, speeds, _ = JointRealism(joint_config, 1, PERIOD_S, 1).apply(
        ramp, np.full_like(ramp, 0.5 * 0.02 / (40 * PERIOD_S)))
    assert np.all(np.isfinite(reported)) and np.all(np.isfinite(speeds))
    late = int(np.floor(joint_config.latency_s / PERIOD_S + 0.5))
    delayed = ramp[np.maximum(np.arange(40) - late, 0)]
    assert np.all(np.abs(reported - delayed) <= joint_config.backlash / 2
                  + joint_config.resolution / 2 + 1e-12)


def test_the_kernel_as_python_gives_what_it_gives_compiled():
    # Without numba the same function runs as Python: it must agree to the bit.
    from grasp_monitor.core.realism import kernel
    config = PRESETS['harsh'][0]
    forces = random_forces(4, 9)
    compiled = tactile(config, grid(3, 3))
    expected = compiled.apply(forces)[0]
    python = tactile(config, grid(3, 3))
    saved = kernel.TACTILE_FRAMES.__dict__.get('compiled')
    kernel.TACTILE_FRAMES.__dict__['compiled'] = kernel._tactile_frames
    try:
        got = python.apply(forces)[0]
    finally:
        kernel.TACTILE_FRAMES.__dict__['compiled'] = saved
    assert np.array_equal(got, expected)
