"""Contact forces onto taxels: touch functions, response functions, frames, conservation."""

import math

from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.noise import NoiseConfig
from grasp_monitor.core.plugins import create_plugin
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile import (
    pad_layout, PadGroup, PadLayout, TactileConfig, TactilePad)
from grasp_monitor.core.values import Contacts, GeomShape
import numpy as np
import pytest

PAD_GEOM = 5
OBJECT_GEOM = 9
AT_ORIGIN = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
# Contact frame rows (normal, tangent1, tangent2) for a normal pointing down / up.
DOWN = ((0, 0, -1), (1, 0, 0), (0, -1, 0))
UP = ((0, 0, 1), (1, 0, 0), (0, 1, 0))


def line_layout():
    """Three taxels on the x axis at 0, 4 and 12 mm; resolution 5 mm (spread radius 1 cm)."""
    return PadLayout('pad', [[0, 0, 0], [0.004, 0, 0], [0.012, 0, 0]], [[0, 0, 1]] * 3,
                     [PAD_GEOM] * 3, 0.005)


def contacts(positions, frames, forces, geom1, geom2):
    """Contacts from lists, bodies equal to geoms."""
    return Contacts(np.asarray(positions, float).reshape(-1, 3),
                    np.asarray(frames, float).reshape(-1, 3, 3),
                    np.asarray(forces, float).reshape(-1, 3), geom1, geom2, geom1, geom2)


def pushed_down(x_m, force_n=10.0):
    """Return an object (geom1) pressing the pad (geom2) at (x, 0, 0) with ``force_n`` down."""
    return contacts([[x_m, 0, 0]], [DOWN], [[force_n, 0, 0]], [OBJECT_GEOM], [PAD_GEOM])


def pad(layout, touch='force_vector_global', response='spread_linear', **kwargs):
    return TactilePad(layout, config=TactileConfig(touch, response, **kwargs))


def test_spread_linear_weights_fall_linearly_to_zero_at_twice_the_resolution():
    sensor = pad(line_layout())
    # Distances 0, 4, 12 mm within a 10 mm radius: weights 1, 0.6, 0 -> shares 1/1.6, 0.6/1.6.
    values = sensor.compute(pushed_down(0.0), AT_ORIGIN)
    np.testing.assert_allclose(values, [[0, 0, -6.25], [0, 0, -3.75], [0, 0, 0]], atol=1e-12)
    assert values[2, 2] == 0.0
    # At x = 20 mm only the 12 mm taxel (8 mm away, weight 0.2) is in range: it gets it all.
    np.testing.assert_allclose(sensor.compute(pushed_down(0.02), AT_ORIGIN),
                               [[0, 0, 0], [0, 0, 0], [0, 0, -10]], atol=1e-12)
    normal = pad(line_layout(), touch='normal').compute(pushed_down(0.0), AT_ORIGIN)
    np.testing.assert_allclose(normal, [[6.25], [3.75], [0.0]], atol=1e-12)


def test_spread_linear_falls_back_to_nearest_when_no_taxel_is_in_range():
    values = pad(line_layout()).compute(pushed_down(0.05), AT_ORIGIN)
    np.testing.assert_allclose(values, [[0, 0, 0], [0, 0, 0], [0, 0, -10]], atol=1e-12)


def test_nearest_puts_everything_on_the_nearest_taxel():
    sensor = pad(line_layout(), touch='normal', response='nearest')
    for x_m, expected in ((0.007, 1), (0.0019, 0), (0.0021, 1), (0.0085, 2), (-0.3, 0)):
        values = sensor.compute(pushed_down(x_m, 4.0), AT_ORIGIN)
        assert values[:, 0].tolist() == [4.0 if i == expected else 0.0 for i in range(3)]


def test_force_is_flipped_when_the_pad_is_geom1():
    friction = [[10.0, 2.0, -1.0]]
    # Pad as geom2: force on the pad = 10 (0,0,-1) + 2 (1,0,0) - 1 (0,-1,0) = (2, 1, -10).
    as_geom2 = contacts([[0, 0, 0]], [DOWN], friction, [OBJECT_GEOM], [PAD_GEOM])
    # The same contact seen from the pad: normal up, force on the object (-2, -1, 10).
    as_geom1 = contacts([[0, 0, 0]], [UP], [[10.0, -2.0, -1.0]], [PAD_GEOM], [OBJECT_GEOM])
    for touching in (as_geom2, as_geom1):
        sensor = pad(line_layout())
        values = sensor.compute(touching, AT_ORIGIN)
        np.testing.assert_allclose(values.sum(axis=0), [2.0, 1.0, -10.0], atol=1e-12)
        np.testing.assert_allclose(sensor.total_force_in_pad, [2.0, 1.0, -10.0], atol=1e-12)
        normal = pad(line_layout(), touch='normal_force').compute(touching, AT_ORIGIN)
        np.testing.assert_allclose(normal.sum(axis=0), [0.0, 0.0, -10.0], atol=1e-12)


@pytest.mark.parametrize('touch, expected', [
    ('normal', [10.0]),
    ('normal_force', [0.0, 0.0, -10.0]),
    ('force_vector', [1.0, -2.0, -10.0]),
    ('force_vector_global', [2.0, 1.0, -10.0]),
])
def test_touch_functions_use_the_pad_frame_or_the_world(touch, expected):
    # Pad at (1, 2, 3) turned 90° about z: pad x is world y, pad y is world -x, so the
    # world force (2, 1, -10) reads (1, -2, -10) in the pad frame.
    quaternion = (math.cos(math.pi / 4), 0.0, 0.0, math.sin(math.pi / 4))
    position = np.array([1.0, 2.0, 3.0])
    contact_in_pad = np.array([0.004, 0.0, 0.0])
    contact_in_world = position + quat_to_matrix(quaternion) @ contact_in_pad
    touching = contacts([contact_in_world], [DOWN], [[10.0, 2.0, -1.0]],
                        [OBJECT_GEOM], [PAD_GEOM])
    sensor = pad(line_layout(), touch=touch, response='nearest')
    values = sensor.compute(touching, (position, quaternion))
    assert values.shape == (3, len(expected))
    np.testing.assert_allclose(values[1], expected, atol=1e-12)
    np.testing.assert_allclose(values[[0, 2]], 0.0, atol=1e-12)
    np.testing.assert_allclose(sensor.total_force_in_pad, [1.0, -2.0, -10.0], atol=1e-12)


def random_pad_contacts(rng, layout, count, position, quaternion):
    """Contacts at random points of the pad's top face, random forces and geom order."""
    rotation = quat_to_matrix(quaternion)
    in_pad = np.column_stack([rng.uniform(-0.02, 0.02, (count, 2)), np.full(count, 0.005)])
    normal_in_world = rotation @ (0, 0, 1.0)
    tangent = rotation @ (1.0, 0, 0)
    pad_first = rng.uniform(size=count) < 0.5
    sign = np.where(pad_first, 1.0, -1.0)[:, None]  # normal from geom1 to geom2
    n = sign * normal_in_world
    t1 = np.broadcast_to(tangent, (count, 3))
    frames = np.stack([n, t1, np.cross(n, t1)], axis=1)
    forces = np.column_stack([rng.uniform(0, 5, count), rng.normal(0, 1, (count, 2))])
    geom1 = np.where(pad_first, PAD_GEOM, OBJECT_GEOM)
    geom2 = np.where(pad_first, OBJECT_GEOM, PAD_GEOM)
    touching = contacts(position + in_pad @ rotation.T, frames, forces, geom1, geom2)
    on_pad_in_world = -sign * np.einsum('ki,kij->kj', forces, frames)
    return touching, on_pad_in_world


def test_spread_linear_conserves_total_force_and_stays_within_range():
    box = GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.02, 0.005), (0, 0, 0),
                    (1, 0, 0, 0))
    layout = pad_layout([box], 0.005)
    assert len(layout) == 2 * (8 * 8 + 8 * 2 + 2 * 8)
    rng = np.random.default_rng(42)
    position = np.array([0.3, -0.1, 0.7])
    quaternion = np.array([0.9, 0.1, -0.3, 0.2]) / np.linalg.norm([0.9, 0.1, -0.3, 0.2])
    rotation = quat_to_matrix(quaternion)
    touching, on_pad_in_world = random_pad_contacts(rng, layout, 60, position, quaternion)
    sensor = pad(layout)
    total = on_pad_in_world.sum(axis=0)
    values = sensor.compute(touching, (position, quaternion))
    np.testing.assert_allclose(values.sum(axis=0), total, rtol=1e-9, atol=1e-9 * 60 * 5)
    in_pad = pad(layout, touch='force_vector').compute(touching, (position, quaternion))
    np.testing.assert_allclose(in_pad.sum(axis=0), rotation.T @ total, rtol=1e-9, atol=3e-7)
    np.testing.assert_allclose(sensor.total_force_in_pad, rotation.T @ total, atol=3e-7)
    assert sensor.contact_count == 60
    # One contact at a time: non-zero exactly on the taxels closer than 2 x 5 mm.
    for k in range(5):
        single = contacts(touching.position_in_world[k:k + 1], touching.frame_in_world[k:k + 1],
                          touching.force_in_contact[k:k + 1], touching.geom1[k:k + 1],
                          touching.geom2[k:k + 1])
        values = sensor.compute(single, (position, quaternion))
        point_in_pad = rotation.T @ (touching.position_in_world[k] - position)
        distance = np.linalg.norm(layout.positions_in_body - point_in_pad, axis=1)
        lit = np.any(values != 0.0, axis=1)
        assert np.array_equal(lit, distance < 0.01)
        np.testing.assert_allclose(values.sum(axis=0), on_pad_in_world[k], rtol=1e-12,
                                   atol=1e-12)


def test_buffers_grow_and_shrink_without_changing_results():
    box = GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.02, 0.005), (0, 0, 0),
                    (1, 0, 0, 0))
    layout = pad_layout([box], 0.005)
    rng = np.random.default_rng(3)
    batches = [random_pad_contacts(rng, layout, count, np.zeros(3), (1, 0, 0, 0))[0]
               for count in (3, 100, 2)]
    reused = pad(layout)
    for batch in batches:
        np.testing.assert_array_equal(reused.compute(batch, AT_ORIGIN),
                                      pad(layout).compute(batch, AT_ORIGIN))


def test_other_contacts_and_self_contacts_are_ignored():
    sensor = pad(line_layout(), touch='normal')
    others = contacts([[0, 0, 0], [0, 0, 0]], [DOWN, DOWN], [[5, 0, 0], [7, 0, 0]],
                      [OBJECT_GEOM, PAD_GEOM], [11, PAD_GEOM])
    values = sensor.compute(others, AT_ORIGIN)
    assert values.shape == (3, 1) and not values.any() and sensor.contact_count == 0
    np.testing.assert_array_equal(sensor.total_force_in_pad, 0.0)
    empty = sensor.compute(Contacts.empty(), AT_ORIGIN)
    assert empty.shape == (3, 1) and not empty.any()
    # A pad made of two geoms counts contacts on either.
    two = TactilePad(line_layout(), geom_ids=[PAD_GEOM, 6],
                     config=TactileConfig('normal', 'nearest'))
    on_six = contacts([[0.012, 0, 0]], [DOWN], [[3, 0, 0]], [OBJECT_GEOM], [6])
    assert two.compute(on_six, AT_ORIGIN)[:, 0].tolist() == [0.0, 0.0, 3.0]


def test_values_are_copies_and_positions_are_in_the_pad_frame():
    sensor = pad(line_layout())
    first = sensor.compute(pushed_down(0.0), AT_ORIGIN)
    sensor.compute(pushed_down(0.012), AT_ORIGIN)
    assert first[0, 2] == pytest.approx(-6.25)
    np.testing.assert_array_equal(sensor.positions_in_pad, line_layout().positions_in_body)
    np.testing.assert_array_equal(sensor.normals_in_pad[:, 2], 1.0)


def test_noise_is_added_then_clamped_to_the_touch_range():
    clean = pad(line_layout(), touch='normal').compute(pushed_down(0.0), AT_ORIGIN)
    noisy_pad = pad(line_layout(), touch='normal',
                    noise=NoiseConfig('gaussian', 5.0, seed=1))
    noisy = np.stack([noisy_pad.compute(pushed_down(0.0), AT_ORIGIN) for _ in range(200)])
    assert np.all(noisy >= 0.0)  # a normal force is never negative
    assert np.any(noisy == 0.0) and not np.allclose(noisy, clean)
    again = pad(line_layout(), touch='normal', noise=NoiseConfig('gaussian', 5.0, seed=1))
    np.testing.assert_array_equal(again.compute(pushed_down(0.0), AT_ORIGIN), noisy[0])


def test_bad_configuration_lists_what_is_valid():
    with pytest.raises(ConfigError) as error:
        TactileConfig(touch='pressure')
    assert str(error.value) == ("touch function 'pressure' is not one of normal, normal_force, "
                                'force_vector, force_vector_global')
    with pytest.raises(ConfigError) as error:
        TactileConfig(response='gaussian')
    assert str(error.value) == "response function 'gaussian' is not one of nearest, spread_linear"
    for bad in (0.0, -0.005, math.nan):
        with pytest.raises(ConfigError) as error:
            TactileConfig(resolution_m=bad)
        assert str(error.value) == ('resolution_m must be a finite number > 0 (or None for '
                                    f"the layout's), got {bad}")
    with pytest.raises(ConfigError, match=r'^geom_ids must be one or more ids >= 0, got \[\]$'):
        TactilePad(line_layout(), geom_ids=[])
    with pytest.raises(ConfigError, match=r'^layout must be a PadLayout, got list$'):
        TactilePad([[0, 0, 0]])


def test_resolution_override_sets_the_spread_radius():
    # Resolution 2 mm: radius 4 mm, so only the taxel at 0 is in range of x = 0.
    sensor = pad(line_layout(), resolution_m=0.002)
    np.testing.assert_allclose(sensor.compute(pushed_down(0.0), AT_ORIGIN)[:, 2], [-10, 0, 0])


def test_tactile_array_plugin_builds_a_pad_from_a_configuration():
    shapes = [GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.02, 0.005), (0, 0, 0),
                        (1, 0, 0, 0))]
    sensor = create_plugin('sensor', {'type': 'tactile_array', 'resolution': 0.01,
                                      'touch': 'normal', 'response': 'nearest'},
                           shapes=shapes)
    assert isinstance(sensor, TactilePad)
    assert len(sensor.layout) == 2 * (4 * 4 + 4 * 1 + 1 * 4) and sensor.width == 1
    assert sensor.config == TactileConfig('normal', 'nearest')
    np.testing.assert_array_equal(sensor.geom_ids, [PAD_GEOM])
    noisy = create_plugin('sensor', {'type': 'tactile_array', 'noise_type': 'gaussian',
                                     'noise_range': 0.1, 'noise_seed': 3}, shapes=shapes)
    assert noisy.config.noise == NoiseConfig('gaussian', 0.1, 3)
    assert len(noisy.layout) == 2 * (13 * 13 + 13 * 3 + 3 * 13)  # default resolution 3 mm
    # noise_seed -1 (the default) draws fresh entropy rather than sharing seed 0.
    assert sensor.config.noise.seed is None
    with pytest.raises(ConfigError) as error:
        create_plugin('sensor', {'type': 'tactile_array', 'touch': 'pressure'}, shapes=shapes)
    assert str(error.value) == (
        "parameter 'touch' of sensor 'tactile_array' must be one of normal, normal_force, "
        "force_vector, force_vector_global, got 'pressure'")


def brute_force(layout, touching, pose, radius_m, response):
    """Straightforward reference: one contact at a time, every taxel (force_vector)."""
    rotation = quat_to_matrix(pose[1])
    values = np.zeros((len(layout), 3))
    for k in range(len(touching)):
        on2 = touching.geom2[k] == PAD_GEOM
        if on2 == (touching.geom1[k] == PAD_GEOM):
            continue
        force = (1.0 if on2 else -1.0) * touching.force_in_contact[k] @ touching.frame_in_world[k]
        point = rotation.T @ (touching.position_in_world[k] - pose[0])
        distance = np.linalg.norm(layout.positions_in_body - point, axis=1)
        weight = np.maximum(0.0, 1.0 - distance / radius_m)
        if response == 'nearest' or weight.sum() == 0.0:
            weight = (np.arange(len(layout)) == np.argmin(distance)).astype(float)
        values += np.outer(weight / weight.sum(), rotation.T @ force)
    return values


@pytest.mark.parametrize('response', ['spread_linear', 'nearest'])
def test_candidate_grid_matches_a_brute_force_search(response):
    shapes = [GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.015, 0.004), (0.3, 0, 0),
                        (1, 0, 0, 0)),
              GeomShape('tip', PAD_GEOM, 'pad', 'sphere', (0.01, 0, 0), (0.3, 0.02, 0.01),
                        (1, 0, 0, 0))]
    layout = pad_layout(shapes, 0.004)
    rng = np.random.default_rng(17)
    count = 300
    # Points on, inside, near and far from the pad (also outside the grid entirely).
    points = np.array([0.3, 0.0, 0.0]) + rng.normal(0, 0.02, (count, 3))
    points[::25] += rng.normal(0, 1.0, (len(points[::25]), 3))
    frames = np.tile(np.array(DOWN, float), (count, 1, 1))
    forces = rng.normal(0, 2, (count, 3))
    geom1 = np.where(rng.uniform(size=count) < 0.5, PAD_GEOM, OBJECT_GEOM)
    geom2 = np.where(geom1 == PAD_GEOM, OBJECT_GEOM, PAD_GEOM)
    pose = (np.array([0.1, 0.2, 0.3]), np.array([0.8, 0.0, 0.6, 0.0]))
    rotation = quat_to_matrix(pose[1])
    touching = contacts(pose[0] + points @ rotation.T, frames, forces, geom1, geom2)
    sensor = pad(layout, touch='force_vector', response=response)
    expected = brute_force(layout, touching, pose, 0.008, response)
    np.testing.assert_allclose(sensor.compute(touching, pose), expected, rtol=1e-12, atol=1e-12)


def test_a_large_fine_layout_gets_coarser_cells_and_stays_exact():
    # Eight taxels on the corners of a 1 m cube at 0.1 mm resolution would need 1e12 cells.
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
    outward = (corners - 0.5) / np.linalg.norm(corners - 0.5, axis=1, keepdims=True)
    layout = PadLayout('pad', corners, outward, [PAD_GEOM] * 8, 1e-4)
    sensor = pad(layout, touch='normal')
    assert sensor._grid.shape.prod() <= sensor._grid.MAX_CELLS
    near = contacts([[1.0, 1.0, 1.0001], [0.0, 0.0, 0.5]], [DOWN, DOWN], [[2, 0, 0], [3, 0, 0]],
                    [OBJECT_GEOM] * 2, [PAD_GEOM] * 2)
    values = sensor.compute(near, AT_ORIGIN)[:, 0]
    # 0.1 mm from the (1, 1, 1) corner: weight 1 - 0.1/0.2 -> all of it; the other is in
    # range of nothing and falls back to its nearest corner (0, 0, 0) or (0, 0, 1).
    assert values[7] == pytest.approx(2.0) and values[[0, 1]].sum() == pytest.approx(3.0)
    assert values.sum() == pytest.approx(5.0)


def test_non_finite_contacts_raise_a_simulation_error():
    with pytest.raises(SimulationError, match=r'^contact positions or the pad pose are not'):
        pad(line_layout()).compute(pushed_down(math.nan), AT_ORIGIN)


def random_block(rng, pads, samples):
    """Contacts of ``samples`` steps on each pad, pad after pad, seen from the pad."""
    counts, parts, poses = [], [], []
    for sensor in pads:
        per_sample = rng.integers(0, 5, samples)
        sample = np.repeat(np.arange(samples), per_sample)
        count = sample.size
        low = sensor.layout.positions_in_body.min(axis=0) - 0.01
        high = sensor.layout.positions_in_body.max(axis=0) + 0.01
        points = rng.uniform(low, high, (count, 3))
        points[::7] += 0.5  # far from every taxel (and outside the grid): nearest taxel
        normal = rng.normal(size=(count, 3))
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        tangent = np.cross(normal, rng.normal(size=(count, 3)))
        tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
        frame = np.stack([normal, tangent, np.cross(normal, tangent)], axis=1)
        force = np.column_stack([rng.uniform(0, 5, count), rng.normal(0, 1, (count, 2))])
        quaternion = rng.normal(size=(samples, 4))
        quaternion /= np.linalg.norm(quaternion, axis=1, keepdims=True)
        position = rng.normal(0, 0.1, (samples, 3))
        rotation = np.array([quat_to_matrix(q) for q in quaternion])
        in_world = position[sample] + np.einsum('kij,kj->ki', rotation[sample], points)
        counts.append(count)
        parts.append((sample, in_world, frame, force))
        poses.append((position, quaternion))
    inputs = [np.concatenate([part[i] for part in parts]) for i in range(4)]
    return (counts, *inputs, np.stack([p for p, _ in poses]), np.stack([q for _, q in poses]))


@pytest.mark.parametrize('touch, responses', [
    ('force_vector', ('spread_linear', 'spread_linear')),
    ('normal', ('spread_linear', 'spread_linear')),
    ('normal_force', ('nearest', 'nearest')),
    ('force_vector_global', ('spread_linear', 'nearest')),
])
def test_a_pad_group_gives_every_pad_its_compute_of_every_sample(touch, responses):
    plate = GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.015, 0.004), (0, 0, 0),
                      (1, 0, 0, 0))
    pads = (pad(pad_layout([plate], 0.004), touch=touch, response=responses[0]),
            pad(line_layout(), touch=touch, response=responses[1]))
    rng = np.random.default_rng(5)
    samples = 6
    counts, sample, position, frame, force, pad_position, pad_quaternion = random_block(
        rng, pads, samples)
    values = PadGroup(pads).compute_block(counts, sample, position, frame, force,
                                          pad_position, pad_quaternion)
    first = 0
    for p, sensor in enumerate(pads):
        assert values[p].shape == (samples, len(sensor.layout), sensor.width)
        assert sensor.contact_count == counts[p]
        value_sum, total = sensor.value_sum.copy(), sensor.total_force_in_pad.copy()
        mine = slice(first, first + counts[p])
        first += counts[p]
        for s in range(samples):
            at = np.flatnonzero(sample[mine] == s) + mine.start
            # The pad as geom1 of the simulator's contacts: the same forces, seen from it.
            touching = contacts(position[at], frame[at], force[at], [PAD_GEOM] * at.size,
                                [OBJECT_GEOM] * at.size)
            expected = sensor.compute(touching, (pad_position[p, s], pad_quaternion[p, s]))
            np.testing.assert_allclose(values[p][s], expected, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(value_sum[s], expected.sum(axis=0), atol=1e-12)
            np.testing.assert_allclose(total[s], sensor.total_force_in_pad, atol=1e-12)


def test_a_pad_group_block_after_block_equals_a_new_groups_block():
    # A group keeps its output from block to block, zeroing the last block's rows it does
    # not write again: every block, of any size, equals a new group's, slip included.
    plate = GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.015, 0.004), (0, 0, 0),
                      (1, 0, 0, 0))
    pads = (pad(pad_layout([plate], 0.004), touch='force_vector', slip=True),
            pad(line_layout(), touch='force_vector', slip=True))
    rng = np.random.default_rng(11)
    group = PadGroup(pads)
    for samples in (6, 3, 6, 2, 6):
        block = random_block(rng, pads, samples)
        velocity = rng.normal(0.0, 0.01, (len(block[1]), 3))
        kept = [v.copy() for v in group.compute_block(*block, None, velocity)]
        kept_slip = [sensor.slip.copy() for sensor in pads]
        new = PadGroup(pads).compute_block(*block, None, velocity)
        for p, sensor in enumerate(pads):
            assert np.abs(kept[p]).max() > 0.1 and np.abs(kept_slip[p]).max() > 1e-4
            np.testing.assert_array_equal(kept[p], new[p])
            np.testing.assert_array_equal(kept_slip[p], sensor.slip)


def test_a_pad_of_a_group_computes_its_blocks_alone_as_in_the_group():
    # The group's candidate tables end to end; each pad's are views of them.
    plate = GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.015, 0.004), (0, 0, 0),
                      (1, 0, 0, 0))
    pads = (pad(pad_layout([plate], 0.004), touch='force_vector'),
            pad(pad_layout([plate], 0.004), touch='force_vector'))
    counts, sample, position, frame, force, pad_position, pad_quaternion = random_block(
        np.random.default_rng(3), pads, 4)
    in_group = PadGroup(pads).compute_block(counts, sample, position, frame, force,
                                            pad_position, pad_quaternion)[1].copy()
    mine = slice(counts[0], None)
    alone = pads[1].compute_block(sample[mine], position[mine], frame[mine], force[mine],
                                  pad_position[1], pad_quaternion[1])
    assert np.abs(alone).max() > 0.1
    np.testing.assert_array_equal(alone, in_group)


def test_a_pad_group_checks_its_contact_counts():
    group = PadGroup([pad(line_layout()), pad(line_layout())])
    none = np.zeros((0, 3))
    with pytest.raises(ConfigError, match=r'^counts must be 2 contact counts >= 0 adding up '
                                          r'to the 0 contacts, got \[1, 0\]$'):
        group.compute_block([1, 0], [], none, none.reshape(0, 3, 3), none,
                            np.zeros((2, 1, 3)), np.tile([1.0, 0, 0, 0], (2, 1, 1)))
    with pytest.raises(ConfigError, match='needs one or more TactilePad'):
        PadGroup([])
    # No contact on any pad: zeros, in each pad's shape.
    values = group.compute_block([0, 0], [], none, none.reshape(0, 3, 3), none,
                                 np.zeros((2, 4, 3)), np.tile([1.0, 0, 0, 0], (2, 4, 1)))
    assert [v.shape for v in values] == [(4, 3, 3), (4, 3, 3)]
    assert not np.any(values[0]) and not np.any(values[1])


# -- force frame and contact point (mimoTouch's DiscreteTouch) ------------------------------
def quarter_turn_plate():
    """Return a plate turned a quarter turn about z in its body: geom x is body y."""
    half = math.sqrt(0.5)
    return GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.015, 0.004), (0, 0, 0),
                     (half, 0, 0, half))


def test_force_frame_geom_gives_each_taxel_in_its_geoms_frame_as_mimotouch_does():
    # An object presses the top face with friction: the force on the pad is (2, 1, -10) N.
    touching = contacts([[0.001, 0.002, 0.004]], [DOWN], [[10.0, 2.0, -1.0]], [OBJECT_GEOM],
                        [PAD_GEOM])
    sums = {}
    for frame in ('pad', 'geom'):
        sensor = create_plugin('sensor', {'type': 'tactile_array', 'resolution': 0.004,
                                          'touch': 'force_vector', 'force_frame': frame},
                               shapes=[quarter_turn_plate()])
        values = sensor.compute(touching, AT_ORIGIN)
        sums[frame] = values.sum(axis=0)
        # the block path, the contact seen from the pad, gives the same
        block = sensor.compute_block([0], [[0.001, 0.002, 0.004]], [UP], [[10.0, -2.0, -1.0]],
                                     [[0, 0, 0]], [[1, 0, 0, 0]])
        np.testing.assert_allclose(block[0], values, atol=1e-12)
        np.testing.assert_allclose(sensor.value_sum[0], sums[frame], atol=1e-12)
    np.testing.assert_allclose(sums['pad'], [2.0, 1.0, -10.0], atol=1e-12)
    # in the plate's frame: x along the body's y, y along the body's -x
    np.testing.assert_allclose(sums['geom'], [1.0, -2.0, -10.0], atol=1e-12)
    # geoms aligned with the body: the frames agree, nothing to turn
    plain = create_plugin('sensor', {'type': 'tactile_array', 'force_frame': 'geom'}, shapes=[
        GeomShape('plate', PAD_GEOM, 'pad', 'box', (0.02, 0.015, 0.004), (0, 0, 0),
                  (1, 0, 0, 0))])
    assert plain.to_geom is None
    with pytest.raises(ConfigError) as error:
        TactileConfig(force_frame='world')
    assert str(error.value) == "force_frame 'world' is not one of pad, geom"


def test_contact_point_surface_moves_the_point_onto_the_pad_by_half_the_penetration():
    # MuJoCo's point of a 4 mm penetration lies 2 mm inside the pad, under x = 8 mm.
    def pressed(z_m, distance_m, pad_is_geom1=False):
        frame, force = ([UP], [[10.0, 0, 0]]) if pad_is_geom1 else ([DOWN], [[10.0, 0, 0]])
        geoms = ([PAD_GEOM], [OBJECT_GEOM]) if pad_is_geom1 else ([OBJECT_GEOM], [PAD_GEOM])
        touching = contacts([[0.008, 0, z_m]], frame, force, *geoms)
        return Contacts(*(getattr(touching, name) for name in (
            'position_in_world', 'frame_in_world', 'force_in_contact', 'geom1', 'geom2',
            'body1', 'body2')), distance_m=[distance_m])

    on_surface = pad(line_layout(), touch='normal').compute(pressed(0.0, 0.0), AT_ORIGIN)
    midpoint = pad(line_layout(), touch='normal').compute(pressed(-0.002, -0.004), AT_ORIGIN)
    # 8, 4 and 4 mm from the taxels on the surface: weights 0.2, 0.6, 0.6 of 1.4
    np.testing.assert_allclose(on_surface[:, 0], [10 / 7, 30 / 7, 30 / 7], atol=1e-12)
    assert not np.allclose(midpoint, on_surface)
    surface = pad(line_layout(), touch='normal', contact_point='surface')
    for pad_is_geom1 in (False, True):
        np.testing.assert_allclose(
            surface.compute(pressed(-0.002, -0.004, pad_is_geom1), AT_ORIGIN), on_surface,
            atol=1e-12)
    # the block path (the contact seen from the pad: normal up) moves it the same way
    block = surface.compute_block([0], [[0.008, 0, -0.002]], [UP], [[10.0, 0, 0]],
                                  [[0, 0, 0]], [[1, 0, 0, 0]], distance_m=[-0.004])
    np.testing.assert_allclose(block[0], on_surface, atol=1e-12)
    with pytest.raises(ConfigError) as error:
        surface.compute_block([0], [[0.008, 0, -0.002]], [UP], [[10.0, 0, 0]],
                              [[0, 0, 0]], [[1, 0, 0, 0]])
    assert str(error.value) == "contact_point surface needs the contacts' distance_m"
