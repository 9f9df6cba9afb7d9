"""The energy metric and its tracker, against hand-computed values."""

import math

from grasp_monitor.core.energy import (
    energy, EnergyTracker, EnergyTrackerConfig, inertia_in_world, to_omega)
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.values import BodyState
import numpy as np
import pytest

IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])
ZERO = np.zeros(3)
INERTIA = np.diag([1.0, 2.0, 3.0])


def hamilton(a, b):
    """Quaternion product a ⊗ b, (w, x, y, z), written out independently of the code."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def axis_angle(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis])


def unit_quaternions(rng, shape):
    q = rng.normal(size=shape + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def still(position=ZERO, quaternion=IDENTITY, mass=1.0, inertia=INERTIA, dt=0.01, **changes):
    """Arguments of energy() for a body at rest at its desired state, with changes."""
    args = {'mass': mass, 'inertia': inertia, 'dt': dt, 'current_pose': (position, quaternion),
            'desired_pose': (position, quaternion), 'current_linvel': ZERO,
            'desired_linvel': ZERO, 'current_angvel': ZERO, 'desired_angvel': ZERO}
    return args | changes


# -- to_omega -----------------------------------------------------------------------------


def test_to_omega_is_twice_the_vector_part_of_q_dot_times_conj_q():
    rng = np.random.default_rng(3)
    q = unit_quaternions(rng, (2, 5))
    q_dot = rng.normal(size=(2, 5, 4))
    conj = q * np.array([1.0, -1.0, -1.0, -1.0])
    omega = to_omega(q, q_dot)
    assert omega.shape == (2, 5, 3)
    np.testing.assert_allclose(omega, 2.0 * hamilton(q_dot, conj)[..., 1:], atol=1e-12)


def test_to_omega_of_a_rotation_about_z_at_one_rad_per_second():
    # q(t) = (cos t/2, 0, 0, sin t/2): q_dot = ½ (-sin t/2, 0, 0, cos t/2), ω = (0, 0, 1).
    t = 0.7
    q = [math.cos(t / 2), 0, 0, math.sin(t / 2)]
    q_dot = [-0.5 * math.sin(t / 2), 0, 0, 0.5 * math.cos(t / 2)]
    np.testing.assert_allclose(to_omega(q, q_dot), [0.0, 0.0, 1.0], atol=1e-15)


def test_to_omega_refuses_wrong_shapes():
    with pytest.raises(ConfigError) as error:
        to_omega(np.zeros(3), np.zeros(4))
    assert str(error.value) == 'q must have shape (..., 4), got (3,)'
    with pytest.raises(ConfigError) as error:
        to_omega(np.zeros((2, 4)), np.zeros((3, 4)))
    assert str(error.value) == 'batch shapes do not broadcast: q (2,), q_dot (3,)'


# -- energy -------------------------------------------------------------------------------


def test_a_body_at_rest_in_place_needs_no_energy():
    q = axis_angle([1, 2, 3], 0.9)
    assert energy(**still(position=np.array([0.1, -0.2, 0.5]), quaternion=q)) == 0.0


def test_a_translation_offset_costs_half_m_times_offset_over_dt_squared():
    # |d| = 0.005 m over 0.01 s is 0.5 m/s; ½ · 2 kg · 0.25 m²/s² = 0.25 J.
    args = still(mass=2.0, desired_pose=(np.array([0.003, 0.0, 0.004]), IDENTITY))
    assert energy(**args) == pytest.approx(0.25, rel=1e-12)


def test_offset_and_velocity_errors_add_before_squaring():
    # v = 0.5 m/s (offset) + 0.25 m/s (velocity error), both along x: ½ · 2 · 0.75² = 0.5625 J.
    args = still(mass=2.0, desired_pose=(np.array([0.005, 0.0, 0.0]), IDENTITY),
                 desired_linvel=np.array([0.5, 0, 0]), current_linvel=np.array([0.25, 0, 0]))
    assert energy(**args) == pytest.approx(0.5625, rel=1e-12)


def test_an_angular_velocity_error_costs_half_omega_i_omega():
    # ω error (0, 0, 2) rad/s about the axis of I_zz = 3 kg·m²: ½ · 3 · 4 = 6 J.
    args = still(desired_angvel=np.array([0.0, 0.0, 1.5]), current_angvel=np.array([0, 0, -0.5]))
    assert energy(**args) == pytest.approx(6.0, rel=1e-12)


@pytest.mark.parametrize('axis, moment', [([1, 0, 0], 1.0), ([0, 1, 0], 2.0), ([0, 0, 1], 3.0)])
def test_a_small_rotation_costs_half_i_axis_times_angle_over_dt_squared(axis, moment):
    angle, dt = 1e-3, 1e-3
    start = axis_angle([0.3, -0.4, 0.5], 1.1)
    # The body and its goal both rotated by `start`; the goal turned `angle` further about
    # a world axis. The reference's finite difference gives exactly 2 sin(angle/2) / dt.
    goal = hamilton(axis_angle(axis, angle), start)
    inertia = inertia_in_world(INERTIA, start)
    world_axis_moment = np.asarray(axis) @ inertia @ np.asarray(axis)
    value = energy(**still(quaternion=start, inertia=inertia, dt=dt, desired_pose=(ZERO, goal)))
    exact = 0.5 * world_axis_moment * (2 * math.sin(angle / 2) / dt) ** 2
    assert value == pytest.approx(exact, rel=1e-9)
    aligned = energy(**still(dt=dt, desired_pose=(ZERO, axis_angle(axis, angle))))
    assert aligned == pytest.approx(0.5 * moment * (angle / dt) ** 2, rel=1e-6)


def test_the_opposite_quaternion_is_the_same_pose_and_costs_nothing():
    q = axis_angle([1, -1, 2], 2.5)
    assert energy(**still(quaternion=q, desired_pose=(ZERO, -q))) == 0.0


def test_a_flipped_goal_quaternion_is_the_same_goal_even_with_a_spin_error():
    # Goal: 0.01 rad further about z, reached in dt = 0.01 s, so the pose error asks for
    # w_pose = 2 sin(0.005) / 0.01 ≈ 1 rad/s about z; the spin error adds 1 rad/s about z.
    # E = ½ · I_zz · (w_pose + 1)² whatever the goal's sign (I_zz: the world z moment).
    # The reference, which does not choose the sign, reverses w_pose for -goal and gives
    # ½ · I_zz · (1 - w_pose)² ≈ 0.
    q = axis_angle([1, -1, 2], 2.5)
    goal = hamilton(axis_angle([0, 0, 1], 0.01), q)
    inertia = inertia_in_world(INERTIA, q)
    spin_error = {'desired_angvel': np.array([0.0, 0.0, 1.0])}
    w_pose = 2 * math.sin(0.005) / 0.01
    world_z_moment = inertia[2, 2]
    expected = 0.5 * world_z_moment * (w_pose + 1.0) ** 2
    for sign in (1.0, -1.0):
        value = energy(**still(quaternion=q, inertia=inertia,
                               desired_pose=(ZERO, sign * goal), **spin_error))
        assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize('batch', [(5,), (2, 3)])
def test_batch_shapes_are_preserved_and_match_one_by_one(batch):
    rng = np.random.default_rng(7)
    mass = rng.uniform(0.5, 2.0, batch)
    inertia = inertia_in_world(rng.uniform(0.1, 1.0, batch + (3,)),
                               unit_quaternions(rng, batch), diagonal=True)
    states = [rng.normal(size=batch + (3,)), unit_quaternions(rng, batch),
              rng.normal(size=batch + (3,)), unit_quaternions(rng, batch)]
    vels = [rng.normal(size=batch + (3,)) for _ in range(4)]
    values = energy(mass, inertia, 0.01, (states[0], states[1]), (states[2], states[3]), *vels)
    assert values.shape == batch
    for index in np.ndindex(*batch):
        one = energy(mass[index], inertia[index], 0.01, (states[0][index], states[1][index]),
                     (states[2][index], states[3][index]), *(v[index] for v in vels))
        assert one.shape == ()
        assert values[index] == pytest.approx(float(one), rel=1e-12)


def test_world_inertia_rotates_with_the_body():
    # I_body = diag(1, 2, 3) turned 90° about z: the body's y axis lies along world x.
    quarter_turn = axis_angle([0, 0, 1], math.pi / 2)
    inertia = inertia_in_world(INERTIA, quarter_turn)
    np.testing.assert_allclose(inertia, np.diag([2.0, 1.0, 3.0]), atol=1e-15)
    np.testing.assert_allclose(inertia_in_world([1.0, 2.0, 3.0], quarter_turn, diagonal=True),
                               inertia, atol=1e-15)
    # A spin error of 1 rad/s about world x now costs ½ · 2 J, not ½ · 1 J.
    spin = still(quaternion=quarter_turn, inertia=inertia, desired_angvel=np.array([1.0, 0, 0]))
    assert energy(**spin) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize('changes, message', [
    ({'mass': 0.0}, 'mass must be finite and > 0 kg, got 0.0'),
    ({'mass': [1.0, -2.0]}, 'mass must be finite and > 0 kg, got -2.0'),
    ({'dt': 0.0}, 'dt must be finite and > 0 s, got 0.0'),
    ({'dt': math.nan}, 'dt must be finite and > 0 s, got nan'),
    ({'inertia': np.ones(3)}, 'inertia must have shape (..., 3, 3), got (3,)'),
    ({'current_pose': (np.zeros(4), IDENTITY)},
     'current_pose position must have shape (..., 3), got (4,)'),
    ({'desired_pose': (ZERO, np.zeros(3))},
     'desired_pose quaternion must have shape (..., 4), got (3,)'),
    ({'desired_pose': ZERO},
     'desired_pose must be a pair (position (..., 3), quaternion (..., 4))'),
    ({'current_angvel': np.zeros((2, 2))},
     'current_angvel must have shape (..., 3), got (2, 2)'),
    ({'mass': np.ones(2), 'current_linvel': np.zeros((3, 3))},
     'batch shapes do not broadcast: mass (2,), dt (), inertia (), current_position (), '
     'current_quaternion (), desired_position (), desired_quaternion (), current_linvel (3,), '
     'desired_linvel (), current_angvel (), desired_angvel ()'),
])
def test_invalid_inputs_are_refused_with_what_is_valid(changes, message):
    with pytest.raises(ConfigError) as error:
        energy(**still(**changes))
    assert str(error.value) == message


def test_inertia_in_world_refuses_a_diagonal_without_the_flag():
    with pytest.raises(ConfigError) as error:
        inertia_in_world([1.0, 2.0, 3.0], IDENTITY)
    assert str(error.value) == 'inertia_in_body must have shape (..., 3, 3), got (3,)'


# -- tracker ------------------------------------------------------------------------------

# One object (2 kg, I = diag(1, 2, 3)) at the origin, the grippers 0.1 m either side on y.
GRIPPERS = np.array([[0.0, 0.1, 0.0], [0.0, -0.1, 0.0]])
UPRIGHT = np.tile(IDENTITY, (2, 1))


def tracker(**changes):
    config = EnergyTrackerConfig(**({'object_names': ('cube',), 'mass_kg': 2.0,
                                     'inertia_in_body_kg_m2': [[1.0, 2.0, 3.0]],
                                     'dt_s': 0.01} | changes))
    result = EnergyTracker(config)
    result.reset_arrays([ZERO], [IDENTITY], GRIPPERS, UPRIGHT)
    return result


def sample(time_s, position=ZERO, quaternion=IDENTITY, linvel=ZERO, angvel=ZERO,
           grippers=GRIPPERS, gripper_quaternions=UPRIGHT, gripper_linvel=np.zeros((2, 3)),
           gripper_angvel=np.zeros((2, 3))):
    return (time_s, [position], [quaternion], [linvel], [angvel], grippers,
            gripper_quaternions, gripper_linvel, gripper_angvel)


def test_an_object_carried_rigidly_by_both_grippers_has_no_energy():
    energy_tracker = tracker()
    # Both grippers moved 1 mm along x at 1 m/s; so did the object.
    moved = GRIPPERS + [0.001, 0.0, 0.0]
    velocity = np.tile([1.0, 0.0, 0.0], (2, 1))
    result = energy_tracker.update_arrays(*sample(
        0.01, position=np.array([0.001, 0.0, 0.0]), linvel=np.array([1.0, 0.0, 0.0]),
        grippers=moved, gripper_linvel=velocity))
    assert result.energy_mean_j.tolist() == [0.0] and not result.failed


def test_a_turning_gripper_carries_the_object_round_its_lever_arm():
    energy_tracker = tracker()
    # The left gripper turned 90° about z: the object, 0.1 m along -y of it at the start,
    # is wanted at 0.1 m along +x of it, turned the same way.
    quarter_turn = axis_angle([0, 0, 1], math.pi / 2)
    result = energy_tracker.update_arrays(*sample(
        0.01, position=np.array([0.1, 0.1, 0.0]), quaternion=quarter_turn,
        gripper_quaternions=np.array([quarter_turn, IDENTITY])))
    assert result.energy_left_j[0] == pytest.approx(0.0, abs=1e-20)
    # Against the unturned right gripper: offset (0.1, 0.1, 0) m over 0.01 s, and a quarter
    # turn: ½·2·(10² + 10²) + ½·3·(2 sin(π/4) / 0.01)² = 200 + 30000 J.
    assert result.energy_right_j[0] == pytest.approx(200.0 + 30000.0, rel=1e-12)
    assert result.energy_mean_j[0] == pytest.approx(15100.0, rel=1e-12)


def test_a_spinning_gripper_wants_the_lever_arm_velocity():
    energy_tracker = tracker()
    # Left gripper spins at 1 rad/s about z with the object still at its start pose:
    # wanted v = ω × (x* − x_g) = (0, 0, 1) × (0, −0.1, 0) = (0.1, 0, 0) m/s, wanted ω = ẑ.
    # E_left = ½·2·0.1² + ½·3·1² = 1.51 J; E_right = 0.
    result = energy_tracker.update_arrays(*sample(
        0.01, gripper_angvel=np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])))
    assert result.energy_left_j[0] == pytest.approx(1.51, rel=1e-12)
    assert result.energy_right_j[0] == 0.0
    assert result.energy_mean_j[0] == pytest.approx(0.755, rel=1e-12)


def test_the_benchmark_codes_desired_velocity_is_the_grippers_own():
    # The benchmark's code wants v* = v_g (no ω × r): the spinning left gripper above then
    # wants the still object to stay still, E_left = ½·3·1² = 1.5 J.
    energy_tracker = tracker(desired_velocity='gripper')
    result = energy_tracker.update_arrays(*sample(
        0.01, gripper_angvel=np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])))
    assert result.energy_left_j[0] == pytest.approx(1.5, rel=1e-12)
    assert result.energy_mean_j[0] == pytest.approx(0.75, rel=1e-12)
    with pytest.raises(ValueError, match='desired_velocity must be one of rigid, gripper, '
                       "got 'lever'"):
        tracker(desired_velocity='lever')


def test_dt_is_the_physics_step_whatever_the_sample_interval():
    # The benchmark's analyser divides by the physics step (input->time_step): a state's
    # energy must not depend on how often it is sampled.
    energy_tracker = tracker()
    dropped = np.array([0.0, 0.0, -0.002])
    # dt = 0.01 s (configured), v = 0.2 m/s, ½·2·0.04 = 0.04 J at every sample.
    first = energy_tracker.update_arrays(*sample(5.0, position=dropped))
    soon = energy_tracker.update_arrays(*sample(5.004, position=dropped))
    late = energy_tracker.update_arrays(*sample(5.5, position=dropped))
    assert first.energy_mean_j[0] == pytest.approx(0.04, rel=1e-12)
    assert soon.energy_mean_j[0] == late.energy_mean_j[0] == first.energy_mean_j[0]
    assert first.max_energy_j == first.energy_mean_j[0]


def test_a_flipped_quaternion_sign_from_the_simulator_costs_nothing():
    energy_tracker = tracker()
    result = energy_tracker.update_arrays(*sample(0.01, quaternion=-IDENTITY))
    assert result.energy_mean_j.tolist() == [0.0]


def test_history_grows_and_keeps_peaks_per_object():
    energy_tracker = tracker(initial_capacity=2)
    drops = [0.0, 0.001, 0.003, 0.002, 0.0]
    for step, drop in enumerate(drops):
        energy_tracker.update_arrays(*sample(0.01 * (step + 1), position=np.array([0, 0, -drop])))
    expected = [0.5 * 2.0 * (drop / 0.01) ** 2 for drop in drops]  # 0, 0.01, 0.09, 0.04, 0
    assert energy_tracker.sample_count == 5
    np.testing.assert_allclose(energy_tracker.history_time_s, [0.01, 0.02, 0.03, 0.04, 0.05])
    np.testing.assert_allclose(energy_tracker.history_energy_j[:, 0], expected, rtol=1e-12)
    assert energy_tracker.peak_energy_j[0] == pytest.approx(0.09)
    assert energy_tracker.peak_time_s[0] == pytest.approx(0.03)
    energy_tracker.reset()
    assert energy_tracker.sample_count == 0 and not energy_tracker.started
    assert np.isnan(energy_tracker.peak_energy_j[0])


def test_failure_above_the_threshold_or_on_nan_is_latched_with_its_time():
    energy_tracker = tracker(threshold_j=0.05)
    ok = energy_tracker.update_arrays(*sample(0.01, position=np.array([0.0, 0.0, -0.002])))
    over = energy_tracker.update_arrays(*sample(0.02, position=np.array([0.0, 0.0, -0.003])))
    back = energy_tracker.update_arrays(*sample(0.03))
    assert (ok.failed, over.failed, back.failed) == (False, True, False)
    assert energy_tracker.failed and energy_tracker.failure_time_s == 0.02
    nan_tracker = tracker()
    diverged = nan_tracker.update_arrays(*sample(0.01, position=np.full(3, np.nan)))
    assert diverged.failed and math.isnan(diverged.max_energy_j)


def test_a_block_equals_the_same_samples_one_by_one():
    rng = np.random.default_rng(11)
    n, k = 6, 3
    config = EnergyTrackerConfig(('a', 'b', 'c'), [1.0, 2.0, 0.5],
                                 rng.uniform(0.1, 1.0, (k, 3)), dt_s=0.002)
    times = 0.001 * np.arange(1, n + 1)
    objects = [rng.normal(size=(n, k, 3)), unit_quaternions(rng, (n, k)),
               rng.normal(size=(n, k, 3)), rng.normal(size=(n, k, 3))]
    grippers = [rng.normal(size=(n, 2, 3)), unit_quaternions(rng, (n, 2)),
                rng.normal(size=(n, 2, 3)), rng.normal(size=(n, 2, 3))]
    one_by_one, blocked = EnergyTracker(config), EnergyTracker(config)
    samples = [one_by_one.update_arrays(times[i], *(a[i] for a in objects + grippers))
               for i in range(n)]
    block = blocked.update_block(times, *objects, *grippers)
    # Single samples run the kernel as Python, blocks compiled: the same operations in the
    # same order, so the same bits.
    np.testing.assert_array_equal(block.energy_left_j, [s.energy_left_j for s in samples])
    np.testing.assert_array_equal(block.energy_mean_j, [s.energy_mean_j for s in samples])
    np.testing.assert_array_equal(blocked.history_energy_j, one_by_one.history_energy_j)
    np.testing.assert_array_equal(blocked.peak_energy_j, one_by_one.peak_energy_j)
    np.testing.assert_array_equal(blocked.peak_time_s, one_by_one.peak_time_s)
    assert block.max_energy_j == pytest.approx(max(s.max_energy_j for s in samples))
    # The first sample of an unstarted trial defines the start: nothing is wrong yet but
    # the velocity error.
    assert blocked.started and block.energy_mean_j.shape == (n, k)


def test_body_states_feed_the_tracker_like_arrays():
    energy_tracker = tracker()
    start = [BodyState('cube', ZERO, IDENTITY, ZERO, ZERO, 0.0)]
    left = BodyState('gripper_left', GRIPPERS[0], IDENTITY, ZERO, ZERO, 0.0)
    right = BodyState('gripper_right', GRIPPERS[1], IDENTITY, ZERO, ZERO, 0.0)
    energy_tracker.reset(start, left, right)
    moved = [BodyState('cube', [0.0, 0.0, -0.002], IDENTITY, ZERO, ZERO, 0.004)]
    # The sample time is the latest of the states' (0.004 s), the first sample uses dt_s.
    result = energy_tracker.update(moved, left, right)
    assert result.time_s == 0.004 and result.energy_mean_j[0] == pytest.approx(0.04)
    with pytest.raises(ConfigError) as error:
        energy_tracker.update(moved, right, left)
    assert str(error.value) == ("grippers must be 'gripper_left' (left) and 'gripper_right' "
                                "(right), got 'gripper_right' and 'gripper_left'")
    with pytest.raises(ConfigError) as error:
        energy_tracker.update([], left, right)
    assert str(error.value) == "objects must be ['cube'] in this order, got []"


def test_time_must_increase_and_shapes_must_match():
    energy_tracker = tracker()
    energy_tracker.update_arrays(*sample(0.01))
    with pytest.raises(ConfigError) as error:
        energy_tracker.update_arrays(*sample(0.01))
    assert str(error.value) == ('time_s must be finite and increase from sample to sample, '
                                'got 0.01 after 0.01')
    with pytest.raises(ConfigError) as error:
        energy_tracker.update_arrays(0.02, *sample(0.02)[1:5], GRIPPERS[:1], *sample(0.0)[6:])
    assert str(error.value) == 'position_gripper_in_world must have shape (2, 3), got (1, 3)'


@pytest.mark.parametrize('changes, message', [
    ({'object_names': ()}, 'object_names must name at least one object, each once, got []'),
    ({'mass_kg': [1.0, 2.0]}, 'mass_kg must be one value or one per object (1), got shape (2,)'),
    ({'mass_kg': -1.0}, 'mass_kg must be finite and > 0 kg, got -1.0'),
    ({'inertia_in_body_kg_m2': [1.0, 2.0, 3.0]},
     'inertia_in_body_kg_m2 must have shape (1, 3, 3) or (1, 3), got (3,)'),
    ({'inertia_in_body_kg_m2': [[1.0, -2.0, 3.0]]},
     'inertia_in_body_kg_m2 must be finite, symmetric and positive definite for every object'),
    ({'gripper_names': ('a', 'a')},
     "gripper_names must be two different names (left, right), got ['a', 'a']"),
    ({'dt_s': 0.0}, 'dt_s must be finite and > 0 s, got 0.0'),
    ({'threshold_j': 0.0}, 'threshold_j must be > 0 J, got 0.0'),
    ({'initial_capacity': 0}, 'initial_capacity must be an integer >= 1, got 0'),
])
def test_invalid_tracker_configs_are_refused(changes, message):
    with pytest.raises(ConfigError) as error:
        tracker(**changes)
    assert str(error.value) == message


def test_strided_read_only_views_give_the_energies_of_contiguous_copies():
    # The benchmark passes read-only views into MuJoCo's sensor history: samples a
    # record apart, bodies a buffer apart.
    rng = np.random.default_rng(12)
    n, k = 50, 3
    config = EnergyTrackerConfig(('a', 'b', 'c'), 1.5, rng.uniform(0.1, 1.0, (k, 3)))
    times = 0.001 * np.arange(1, n + 1)
    record = np.zeros((n, k + 2, 20))
    record[..., 0:3] = rng.normal(size=(n, k + 2, 3))
    record[..., 4:8] = unit_quaternions(rng, (n, k + 2))
    record[..., 9:12] = rng.normal(size=(n, k + 2, 3))
    record[..., 13:16] = rng.normal(size=(n, k + 2, 3))
    record.setflags(write=False)
    fields = [record[..., 0:3], record[..., 4:8], record[..., 9:12], record[..., 13:16]]
    views = [f[:, :k] for f in fields] + [f[:, k:] for f in fields]
    copies = [np.ascontiguousarray(v) for v in views]
    from_views = EnergyTracker(config).update_block(times, *views)
    from_copies = EnergyTracker(config).update_block(times, *copies)
    np.testing.assert_array_equal(from_views.energy_left_j, from_copies.energy_left_j)
    np.testing.assert_array_equal(from_views.energy_mean_j, from_copies.energy_mean_j)
    assert np.all(from_copies.energy_mean_j > 0.0)


def rotate(q, v):
    """R(q) v for unit quaternions (..., 4) and vectors (..., 3), by Hamilton products."""
    pure = np.concatenate([np.zeros(v.shape[:-1] + (1,)), v], axis=-1)
    return hamilton(hamilton(q, pure), q * [1.0, -1.0, -1.0, -1.0])[..., 1:]


@pytest.mark.parametrize('diagonal', [True, False], ids=['principal_moments', 'tensors'])
def test_a_block_equals_energy_of_the_rigidly_carried_state_built_by_hand(diagonal):
    rng = np.random.default_rng(21)
    n, k, dt = 40, 3, 0.002
    mass = np.array([1.0, 2.5, 0.4])
    moments = rng.uniform(0.1, 1.0, (k, 3))
    tilt = unit_quaternions(rng, (k,))
    inertia = (np.array([np.diag(m) for m in moments]) if diagonal
               else inertia_in_world(moments, tilt, diagonal=True))
    objects = [rng.normal(size=(n, k, 3)), unit_quaternions(rng, (n, k)),
               rng.normal(size=(n, k, 3)), rng.normal(size=(n, k, 3))]
    grippers = [rng.normal(size=(n, 2, 3)), unit_quaternions(rng, (n, 2)),
                rng.normal(size=(n, 2, 3)), rng.normal(size=(n, 2, 3))]
    energy_tracker = EnergyTracker(EnergyTrackerConfig(('a', 'b', 'c'), mass, inertia, dt_s=dt))
    block = energy_tracker.update_block(dt * np.arange(1, n + 1), *objects, *grippers)
    position, quaternion, linear, angular = (a[:, None] for a in objects)  # (n, 1, k, .)
    gripper_position, gripper_quaternion, gripper_linear, gripper_angular = (
        a[:, :, None] for a in grippers)  # (n, 2, 1, .)
    # T_gripper_object at the first sample, then carried rigidly by each gripper.
    conjugate = gripper_quaternion[0] * [1.0, -1.0, -1.0, -1.0]
    offset = rotate(conjugate, position[0] - gripper_position[0])
    relative = hamilton(conjugate, quaternion[0])
    lever = rotate(gripper_quaternion, offset)
    expected = energy(
        mass * np.ones((n, 2, k)), inertia_in_world(inertia, quaternion), dt,
        (position, quaternion), (gripper_position + lever, hamilton(gripper_quaternion, relative)),
        linear, gripper_linear + np.cross(gripper_angular, lever),
        angular, gripper_angular * np.ones((n, 2, k, 3)))  # (n, 2, k)
    np.testing.assert_allclose(block.energy_left_j, expected[:, 0], rtol=1e-9)
    np.testing.assert_allclose(block.energy_right_j, expected[:, 1], rtol=1e-9)
    np.testing.assert_allclose(block.energy_mean_j, expected.mean(axis=1), rtol=1e-9)
