"""The Ferrari–Canny epsilon against scipy's ConvexHull, hand-computed sets, degenerate grasps."""

from epsilon_reference import epsilon_l1, epsilon_linf, random_grasp
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.quality import (
    contact_wrenches, epsilon, EpsilonConfig, grasp_quality)
from grasp_monitor.core.rotations import cross
import numpy as np
import pytest

#: The agreement with the reference the issue asks for (the fast one is exact: 1e-9).
RTOL = 0.01


def test_the_l1_epsilon_agrees_with_convex_hull_on_1000_random_grasps():
    rng = np.random.default_rng(2023)
    worst = 0.0
    for grasp in range(1000):
        contacts = 3 + grasp % 4
        points, normals = random_grasp(rng, contacts)
        soft = grasp % 3 == 0
        wrenches = contact_wrenches(points, normals, float(rng.uniform(0.2, 1.0)), 8,
                                    0.005 if soft else 0.0, 0.05)
        expected = epsilon_l1(wrenches)
        value, reason = epsilon(wrenches, 'l1')
        assert (reason == '') == (expected > 0), (grasp, reason, expected)
        worst = max(worst, abs(value - expected) / max(expected, 1e-3))
    assert worst < RTOL
    assert worst < 1e-7  # in fact exact


def test_the_linf_epsilon_agrees_with_the_minkowski_sum_hull():
    rng = np.random.default_rng(7)
    for grasp in range(60):
        points, normals = random_grasp(rng, 3)
        wrenches = contact_wrenches(points, normals, 0.8, 4, 0.01 * (grasp % 2), 0.05)
        assert epsilon(wrenches, 'linf')[0] == pytest.approx(epsilon_linf(wrenches),
                                                             rel=1e-7, abs=1e-12)


def test_hand_computed_sets_the_cross_polytope_and_the_cube():
    axes = np.eye(6)
    # one contact with wrenches +-e_k: the cross-polytope, facets sum(+-x_k) = 1
    cross = np.concatenate([axes, -axes])[None]
    assert epsilon(cross, 'l1')[0] == pytest.approx(1 / np.sqrt(6), rel=1e-12)
    assert epsilon(cross, 'linf')[0] == pytest.approx(1 / np.sqrt(6), rel=1e-12)
    # six contacts, contact k with +-e_k: their union is the cross-polytope (L1),
    # the sum of the segments [-e_k, e_k] (the origin between) the cube [-1, 1]^6 (L∞),
    # whose faces are 1 away
    pairs = np.stack([axes, -axes], axis=1)
    assert epsilon(pairs, 'l1')[0] == pytest.approx(1 / np.sqrt(6), rel=1e-12)
    assert epsilon(pairs, 'linf')[0] == pytest.approx(1.0, rel=1e-12)


def test_a_symmetric_grasp_on_a_sphere():
    # six fingers at +-x, +-y, +-z of a 5 cm sphere, normals through its centre
    axes = np.eye(3)
    points = 0.05 * np.concatenate([axes, -axes])
    config = EpsilonConfig(friction=0.5, cone_edges=8)
    quality = grasp_quality(points, -points, np.zeros(3), config)
    wrenches = contact_wrenches(points, -points / 0.05, 0.5, 8, 0.0, 0.05)
    assert quality.reason == ''
    assert quality.contacts == 6
    assert quality.l1 == pytest.approx(epsilon_l1(wrenches), rel=1e-9)
    # hand-computed bounds: epsilon is at most the support in any direction. A pure force
    # along x meets one finger's unit normal push (friction gives the others mu < 1): 1.
    # A pure torque about x meets only friction, mu at the contact distance (= L): 0.5
    assert quality.l1 <= 0.5
    # the same grasp moved and scaled has the same epsilon: torques are scaled by the
    # contacts' distance from the centre
    moved = grasp_quality(3 * points + [1, 2, 3], -points, [1, 2, 3], config)
    assert moved.l1 == pytest.approx(quality.l1, rel=1e-9)
    assert moved.linf == pytest.approx(quality.linf, rel=1e-9)
    # each contact pushing with unit force holds at least as much as all together
    assert quality.linf >= quality.l1


@pytest.mark.parametrize('points, normals, contact, reason', [
    (np.zeros((0, 3)), np.zeros((0, 3)), 'point', 'no contact'),
    ([[0.05, 0, 0]], [[-1, 0, 0]], 'soft', 'one contact cannot hold every wrench'),
    ([[0.05, 0, 0], [-0.05, 0, 0]], [[-1, 0, 0], [1, 0, 0]], 'point',
     'two point contacts cannot resist a torque about the line through them'),
    # three fingers on one face: none pulls the object towards it
    ([[0.05, 0, 0], [0.05, 0.01, 0], [0.05, 0, 0.01]],
     [[-1, 0.1, 0], [-1, 0, 0.1], [-1, -0.1, -0.1]],
     'soft', 'no force closure: the origin is outside the wrench set'),
    # ... and with one normal, every wrench pushes the same unit along it
    ([[0.05, 0, 0], [0.05, 0.01, 0], [0.05, 0, 0.01]], [[-1, 0, 0]] * 3,
     'soft', 'no force closure: the contact wrenches lie in a hyperplane'),
    ([[0.05, 0, 0], [-0.05, 0, 0], [np.nan, 0, 0]], [[-1, 0, 0], [1, 0, 0], [0, 1, 0]],
     'point', 'two point contacts cannot resist a torque about the line through them'),
    ([[0.05, 0, 0], [-0.05, 0, 0], [0, 0, 0]], [[-1, 0, 0], [1, 0, 0], [0, 0, 0]],
     'point', 'two point contacts cannot resist a torque about the line through them'),
])
def test_degenerate_grasps_give_zero_and_say_why(points, normals, contact, reason):
    quality = grasp_quality(points, normals, np.zeros(3), EpsilonConfig(contact=contact))
    assert (quality.l1, quality.linf, quality.reason) == (0.0, 0.0, reason)


def test_two_soft_contacts_hold_a_grasp_two_point_contacts_cannot():
    points, normals = [[0.05, 0, 0], [-0.05, 0, 0]], [[-1, 0, 0], [1, 0, 0]]
    soft = grasp_quality(points, normals, np.zeros(3), EpsilonConfig(contact='soft'))
    assert soft.reason == '' and soft.l1 > 0 and soft.linf > 0
    wrenches = contact_wrenches(points, normals, 1.0, 8, 0.005, 0.05)
    assert soft.l1 == pytest.approx(epsilon_l1(wrenches), rel=1e-9)
    # coplanar contacts on two faces (a box between two pads): flat and symmetric
    face = [[0.02, y, z] for y in (-0.01, 0.01) for z in (-0.01, 0.01)]
    box = np.array(face + [[-x, y, z] for x, y, z in face])
    box_normals = np.array([[-1.0, 0, 0]] * 4 + [[1.0, 0, 0]] * 4)
    quality = grasp_quality(box, box_normals, np.zeros(3), EpsilonConfig())
    box_wrenches = contact_wrenches(box, box_normals, 1.0, 8, 0.0, np.sqrt(0.02 ** 2 * 1.5))
    assert quality.reason == ''
    assert quality.l1 == pytest.approx(epsilon_l1(box_wrenches), rel=1e-7)


def test_bad_configuration_says_what_is_valid():
    with pytest.raises(ConfigError, match='variant must be one of l1, linf'):
        EpsilonConfig(variant='l2')
    with pytest.raises(ConfigError, match=r'cone_edges must be in \[3, 64\]'):
        EpsilonConfig(cone_edges=2)


def test_under_load_epsilon_is_the_margin_left_around_the_wrench_the_contacts_apply():
    # four fingers on a 5 cm sphere, squeezing with 10 N each along their normals
    points = 0.05 * np.array([[1.0, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]])
    normals = -points / 0.05
    config = EpsilonConfig(friction=0.5, cone_edges=8, under_load=True)
    squeeze = 10.0 * normals
    per_unit = grasp_quality(points, normals, np.zeros(3), EpsilonConfig(friction=0.5))
    assert per_unit.reason == '' and per_unit.l1 > 0
    # a pure squeeze applies no net wrench: the margin is epsilon
    quality = grasp_quality(points, normals, np.zeros(3), config, ('l1',), squeeze)
    assert quality.l1 == pytest.approx(per_unit.l1, rel=1e-9)
    # friction carrying a 6 N load along z: the applied wrench per newton of grip is
    # (0, 0, 6 / 40, ...) and the margin is its distance from the hull's boundary
    wrenches = contact_wrenches(points, normals, 0.5, 8, 0.0, 0.05)
    margins = []
    for load_n in (6.0, 12.0, 18.0):
        forces = squeeze + [0.0, 0.0, load_n / 4]
        quality = grasp_quality(points, normals, np.zeros(3), config, ('l1',), forces)
        load = np.concatenate([[0.0, 0.0, load_n], np.zeros(3)]) / 40.0
        assert quality.l1 == pytest.approx(epsilon_l1(wrenches - load), rel=1e-9)
        margins.append(quality.l1)
    assert per_unit.l1 > margins[0] > margins[1] > margins[2] > 0
    # a load the grip cannot hold (friction 0.5 x 40 N = 20 N at most): 0, and why
    beyond = grasp_quality(points, normals, np.zeros(3), config, ('l1',),
                           squeeze + [0.0, 0.0, 6.0])
    assert beyond.l1 == 0.0
    assert beyond.reason == 'no force closure, or the load per unit grip is beyond what it holds'
    # no forces given (taxels): per unit grip
    assert grasp_quality(points, normals, np.zeros(3), config, ('l1',)).l1 == pytest.approx(
        per_unit.l1, rel=1e-9)
    assert grasp_quality(points, normals, np.zeros(3), config, ('l1',),
                         squeeze[:3]).reason == 'forces and points count different contacts'
    with pytest.raises(ConfigError, match="under_load needs variant l1, got variant 'linf'"):
        EpsilonConfig(variant='linf', under_load=True)


@pytest.mark.parametrize('shapes', [((8, 3), (8, 3)), ((8, 1, 3), (8, 6, 3)), ((3,), (5, 3)),
                                    ((0, 3), (0, 3))])
def test_cross_equals_numpys_bit_for_bit(shapes):
    # the wrenches take it instead of np.cross: epsilon must not move by a bit
    rng = np.random.default_rng(7)
    a = rng.normal(size=shapes[0]) * rng.choice([1e-9, 1.0, 1e6], size=shapes[0])
    b = rng.normal(size=shapes[1])
    a.reshape(-1)[:1] = -0.0
    ours, numpys = cross(a, b), np.cross(a, b)
    assert ours.shape == numpys.shape and ours.dtype == numpys.dtype
    assert ours.tobytes() == numpys.tobytes()
