"""Taxel layouts over primitives and merged meshes: counts, spacing, surface, normals."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile import pad_layout, PadLayout, surface_points
from grasp_monitor.core.values import GeomShape
import numpy as np
import pytest
from scipy.spatial import cKDTree

IDENTITY = (1.0, 0.0, 0.0, 0.0)
SIZES = {
    'box': (0.05, 0.03, 0.01),
    'sphere': (0.05, 0.0, 0.0),
    'ellipsoid': (0.05, 0.03, 0.02),
    'cylinder': (0.03, 0.05, 0.0),
    'capsule': (0.03, 0.05, 0.0),
    'pipe': (0.03, 0.05, 0.0),
}


def surface_error_and_normal(kind, size, points):
    """Return |implicit surface residual| (m) and the analytic outward normal per point."""
    a = np.asarray(size, float)
    if kind == 'box':
        excess = np.abs(points) - a
        face = np.argmax(excess, axis=1)
        normal = np.zeros_like(points)
        rows = np.arange(len(points))
        normal[rows, face] = np.sign(points[rows, face])
        return np.abs(excess.max(axis=1)), normal
    if kind == 'sphere':
        radius = np.linalg.norm(points, axis=1)
        return np.abs(radius - a[0]), points / radius[:, None]
    if kind == 'ellipsoid':
        # Residual of sum (p/a)^2 = 1, scaled to metres by the smallest semi-axis.
        residual = np.abs(np.sum((points / a) ** 2, axis=1) - 1.0) * a.min()
        gradient = points / a ** 2
        return residual, gradient / np.linalg.norm(gradient, axis=1, keepdims=True)
    radius, half = a[0], a[1]
    if kind == 'capsule':
        axis_point = np.zeros_like(points)
        axis_point[:, 2] = np.clip(points[:, 2], -half, half)
        offset = points - axis_point
        distance = np.linalg.norm(offset, axis=1)
        return np.abs(distance - radius), offset / distance[:, None]
    rho = np.linalg.norm(points[:, :2], axis=1)
    on_side = (np.abs(rho - radius) < 1e-12) & (np.abs(points[:, 2]) <= half + 1e-12)
    on_cap = (np.abs(np.abs(points[:, 2]) - half) < 1e-12) & (rho <= radius + 1e-12)
    if kind == 'pipe':
        on_cap[:] = False
    error = np.where(on_side | on_cap, 0.0, np.inf)
    radial = np.stack([points[:, 0], points[:, 1], 0 * rho], 1) / rho[:, None].clip(1e-300)
    axial = np.stack([0 * rho, 0 * rho, np.sign(points[:, 2])], 1)
    normal = np.where(on_side[:, None], radial, axial)
    return error, normal


def random_surface_points(kind, size, rng, count=20000):
    """Uniform-ish random points over the surface, to check coverage."""
    a = np.asarray(size, float)
    direction = rng.normal(size=(count, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    if kind == 'box':
        points = rng.uniform(-1, 1, (count, 3)) * a
        axis = rng.integers(0, 3, count)
        rows = np.arange(count)
        points[rows, axis] = np.where(rng.uniform(size=count) < 0.5, -1, 1) * a[axis]
        return points
    if kind == 'sphere':
        return direction * a[0]
    if kind == 'ellipsoid':
        return direction / np.sqrt(np.sum((direction / a) ** 2, axis=1, keepdims=True))
    radius, half = a[0], a[1]
    azimuth = rng.uniform(0, 2 * np.pi, count)
    height = rng.uniform(-half, half, count)
    side = np.stack([radius * np.cos(azimuth), radius * np.sin(azimuth), height], 1)
    if kind == 'pipe':
        return side
    if kind == 'cylinder':
        rho = radius * np.sqrt(rng.uniform(size=count))
        caps = np.stack([rho * np.cos(azimuth), rho * np.sin(azimuth), np.sign(height) * half], 1)
        return np.concatenate([side, caps])
    ends = direction * radius
    ends[:, 2] += np.sign(ends[:, 2]) * half
    return np.concatenate([side, ends])


def test_box_counts_are_an_integer_subdivision_of_each_face():
    # 0.1 x 0.06 x 0.02 m: n = (10, 6, 2) at 1 cm, (20, 12, 4) at 5 mm, (5, 3, 1) at 2 cm.
    for resolution, expected in ((0.01, 2 * (60 + 12 + 20)), (0.005, 2 * (240 + 48 + 80)),
                                 (0.02, 2 * (15 + 3 + 5))):
        points, _ = surface_points('box', SIZES['box'], resolution)
        assert len(points) == expected
    points, normals = surface_points('box', SIZES['box'], 0.01)
    top = points[normals[:, 2] == 1.0]
    np.testing.assert_allclose(np.unique(top[:, 0].round(12)), np.arange(-0.045, 0.05, 0.01))
    np.testing.assert_allclose(np.unique(top[:, 1].round(12)), np.arange(-0.025, 0.03, 0.01))
    np.testing.assert_allclose(top[:, 2], 0.01)


def test_sphere_rings_have_points_in_proportion_to_circumference():
    # r = 5 cm at 1 cm: n = [7.85 - 0.5] = 7, dθ = (π/2) / 7.5 = π/15, ring k has
    # [2π sin(kπ/15) / (π/15)] = [30 sin(kπ/15)] points: 1, 6, 12, 18, 22, 26, 29, 30.
    points, _ = surface_points('sphere', SIZES['sphere'], 0.01)
    assert len(points) == 2 * (1 + 6 + 12 + 18 + 22 + 26 + 29 + 30)
    heights, counts = np.unique(points[:, 2].round(12), return_counts=True)
    expected_heights = 0.05 * np.cos(np.arange(8) * np.pi / 15)
    np.testing.assert_allclose(heights[8:], np.sort(expected_heights), atol=1e-12)
    assert counts[8:][::-1].tolist() == [1, 6, 12, 18, 22, 26, 29, 30]


def test_cylinder_capsule_and_pipe_counts():
    # r = 3 cm, h = 5 cm at 1 cm: side 10 rings of [2π·3] = 19 points = 190;
    # caps: centre + [3 - 0.5] = 3 rings of [2πk] = 6, 13, 19 points -> 39 each;
    # capsule ends: n = [4.71 - 0.5] = 4, dθ = π/9, rings [18 sin(kπ/9)] = 1, 6, 12, 16, 18.
    assert len(surface_points('pipe', SIZES['pipe'], 0.01)[0]) == 190
    assert len(surface_points('cylinder', SIZES['cylinder'], 0.01)[0]) == 190 + 2 * 39
    assert len(surface_points('capsule', SIZES['capsule'], 0.01)[0]) == 190 + 2 * 53


@pytest.mark.parametrize('kind', sorted(SIZES))
@pytest.mark.parametrize('resolution', [0.02, 0.01, 0.005])
def test_points_on_surface_with_outward_unit_normals_at_resolution_spacing(kind, resolution):
    size = SIZES[kind]
    points, normals = surface_points(kind, size, resolution)
    error, expected_normal = surface_error_and_normal(kind, size, points)
    scale = max(size)
    assert np.max(error) < 1e-9 * scale
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(normals, expected_normal, atol=1e-9)
    # Neighbours about one resolution apart (the radial ellipsoid projection only
    # tightens), and no spot of the surface farther than 0.85 resolution from a taxel.
    tree = cKDTree(points)
    spacing = tree.query(points, k=2)[0][:, 1] / resolution
    assert spacing.max() <= 1.25
    assert spacing.min() >= (0.35 if kind == 'ellipsoid' else 0.6)
    rng = np.random.default_rng(7)
    gap = tree.query(random_surface_points(kind, size, rng))[0] / resolution
    assert gap.max() <= 0.85


def test_point_count_grows_with_the_square_of_the_inverse_resolution():
    coarse = len(surface_points('sphere', (0.05,), 0.01)[0])
    fine = len(surface_points('sphere', (0.05,), 0.005)[0])
    # Area / spacing^2: four times the taxels, within the ring rounding.
    assert 3.8 < fine / coarse < 4.4


@pytest.mark.parametrize('kind', sorted(SIZES))
def test_geom_too_small_gets_one_centre_point(kind):
    points, normals = surface_points(kind, (0.002, 0.002, 0.002), 0.01)
    np.testing.assert_array_equal(points, [[0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(normals, [[0.0, 0.0, 1.0]])


def test_pad_layout_uses_the_geom_pose_in_the_body():
    half = math.radians(30) / 2
    quaternion = (math.cos(half), math.sin(half), 0.0, 0.0)  # 30° about x
    shapes = [
        GeomShape('plate', 4, 'pad', 'box', (0.02, 0.01, 0.005), (0.1, 0.0, 0.02), quaternion),
        GeomShape('tip', 7, 'pad', 'capsule', (0.01, 0.02, 0), (0.0, 0.05, 0.0), IDENTITY),
        GeomShape('dot', 9, 'pad', 'sphere', (0.001, 0, 0), (0.0, 0.0, 0.3), quaternion),
    ]
    layout = pad_layout(shapes, 0.005)
    assert layout.body == 'pad' and layout.resolution_m == 0.005
    counts = dict(zip(*np.unique(layout.geom_ids, return_counts=True)))
    assert counts[4] == 2 * (8 * 4 + 4 * 2 + 2 * 8) and counts[9] == 1
    rotation = quat_to_matrix(quaternion)
    plate = layout.geom_ids == 4
    local = (layout.positions_in_body[plate] - (0.1, 0.0, 0.02)) @ rotation
    error, normal = surface_error_and_normal('box', (0.02, 0.01, 0.005), local)
    assert error.max() < 1e-12
    np.testing.assert_allclose(layout.normals_in_body[plate] @ rotation, normal, atol=1e-12)
    # The too-small sphere is one taxel at its centre, normal along its z axis.
    np.testing.assert_allclose(layout.positions_in_body[layout.geom_ids == 9], [[0, 0, 0.3]])
    np.testing.assert_allclose(layout.normals_in_body[layout.geom_ids == 9], [rotation[:, 2]])
    tip = layout.geom_ids == 7
    local_tip = layout.positions_in_body[tip] - (0.0, 0.05, 0.0)
    assert surface_error_and_normal('capsule', (0.01, 0.02), local_tip)[0].max() < 1e-12


def test_pipe_geoms_lose_their_caps():
    shapes = [GeomShape('finger', 1, 'pad', 'cylinder', (0.03, 0.05, 0), (0, 0, 0), IDENTITY)]
    assert len(pad_layout(shapes, 0.01)) == 268
    assert len(pad_layout(shapes, 0.01, pipe_geoms=['finger'])) == 190


def test_mesh_mode_removes_taxels_hidden_inside_another_geom():
    plate = GeomShape('plate', 1, 'pad', 'box', (0.05, 0.05, 0.01), (0, 0, 0), IDENTITY)
    post = GeomShape('post', 2, 'pad', 'box', (0.01, 0.01, 0.03), (0, 0, 0), IDENTITY)
    apart = pad_layout([plate, post], 0.01, mode='primitives')
    assert len(apart) == 2 * (100 + 20 + 20) + 2 * (4 + 12 + 12)
    layout = pad_layout([plate, post], 0.01, mode='mesh')
    # Surface vertices of the 10x10x2 and 2x2x6 grids: 11·11·3 - 9·9·1 = 282 and
    # 3·3·7 - 1·1·5 = 58. The post hides 9 plate vertices on each plate face (18);
    # the plate hides the post's 8-vertex rings at z = -1, 0, 1 cm (24).
    counts = dict(zip(*np.unique(layout.geom_ids, return_counts=True)))
    assert counts == {1: 282 - 18, 2: 58 - 24}
    points = layout.positions_in_body
    for shape, other in ((plate, post), (post, plate)):
        mine = layout.geom_ids == shape.geom_id
        error, _ = surface_error_and_normal('box', shape.size, points[mine])
        assert error.max() < 1e-12
        assert not np.any(np.all(np.abs(points[mine]) <= other.size + 1e-12, axis=1))
    np.testing.assert_allclose(np.linalg.norm(layout.normals_in_body, axis=1), 1.0, atol=1e-9)
    # Outward: the normal points away from the centre of the geom the taxel lies on.
    assert np.all(np.einsum('ij,ij->i', layout.normals_in_body, points) > 0)


@pytest.mark.parametrize('kind', ['sphere', 'ellipsoid', 'cylinder', 'capsule'])
def test_mesh_mode_vertices_lie_on_curved_surfaces(kind):
    shape = GeomShape('g', 3, 'pad', kind, SIZES[kind], (0, 0, 0), IDENTITY)
    layout = pad_layout([shape], 0.01, mode='mesh')
    error, expected_normal = surface_error_and_normal(kind, SIZES[kind], layout.positions_in_body)
    assert error.max() < 1e-9 * max(SIZES[kind])
    # Mesh normals average the faces around a vertex: outward, near the true normal.
    alignment = np.einsum('ij,ij->i', layout.normals_in_body, expected_normal)
    assert alignment.min() > 0.7 and np.median(alignment) > 0.99
    spacing = cKDTree(layout.positions_in_body).query(layout.positions_in_body, k=2)[0][:, 1]
    assert spacing.max() <= 1.25 * 0.01


def test_mesh_mode_takes_mesh_geoms():
    vertices = np.array([[0, 0, 0], [0.04, 0, 0], [0, 0.04, 0], [0, 0, 0.04]], float)
    faces = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    shape = GeomShape('tet', 5, 'pad', 'mesh', (0.04, 0.04, 0.04), (0, 0, 0), IDENTITY)
    layout = pad_layout([shape], 0.01, mode='mesh', meshes={5: (vertices, faces)})
    assert len(layout) > 4 and set(layout.geom_ids) == {5}
    centroid = vertices.mean(axis=0)
    assert np.all(np.einsum('ij,ij->i', layout.normals_in_body,
                            layout.positions_in_body - centroid) > 0)
    # Every taxel is on one of the faces: on a coordinate plane or on x + y + z = 0.04.
    p = layout.positions_in_body
    on_face = (np.abs(p).min(axis=1) < 1e-12) | (np.abs(p.sum(axis=1) - 0.04) < 1e-12)
    assert np.all(on_face)


def test_bad_layouts_fail_with_what_is_valid():
    box = GeomShape('b', 1, 'pad', 'box', (0.01, 0.01, 0.01), (0, 0, 0), IDENTITY)
    with pytest.raises(ConfigError, match=r"^layout mode 'grid' is not one of primitives, mesh$"):
        pad_layout([box], 0.01, mode='grid')
    for bad in (0.0, -0.01, math.nan, math.inf):
        with pytest.raises(ConfigError, match=r'^resolution_m must be a finite number > 0, got '):
            pad_layout([box], bad)
    with pytest.raises(ConfigError) as error:
        surface_points('cone', (1, 1, 1), 0.1)
    assert str(error.value) == ("surface kind 'cone' is not one of box, sphere, ellipsoid, "
                                'cylinder, capsule, pipe')
    with pytest.raises(ConfigError, match=r'^a capsule needs 2 size value\(s\) > 0, got'):
        surface_points('capsule', (0.01, 0.0, 0.0), 0.1)
    other = GeomShape('c', 2, 'palm', 'box', (0.01, 0.01, 0.01), (0, 0, 0), IDENTITY)
    with pytest.raises(ConfigError, match=r'^a pad layout covers one body; got geoms of pad, pal'):
        pad_layout([box, other], 0.01)
    plane = GeomShape('floor', 3, 'pad', 'plane', (1, 1, 0.1), (0, 0, 0), IDENTITY)
    with pytest.raises(ConfigError) as error:
        pad_layout([plane], 0.01)
    assert str(error.value) == ("geom 'floor' is a plane; sensing geoms must be one of box, "
                                'sphere, ellipsoid, cylinder, capsule, mesh')
    tube = GeomShape('tube', 4, 'pad', 'cylinder', (0.01, 0.01, 0), (0, 0, 0), IDENTITY)
    with pytest.raises(ConfigError) as error:
        pad_layout([box, tube], 0.01, pipe_geoms=['b'])
    assert str(error.value) == ("pipe geoms 'b' are not named cylinders or capsules of the pad; "
                                'valid: tube')
    mesh = GeomShape('m', 5, 'pad', 'mesh', (0.01, 0.01, 0.01), (0, 0, 0), IDENTITY)
    with pytest.raises(ConfigError, match=r"^mesh geom 'm' needs mode \"mesh\" and its triangles"):
        pad_layout([mesh], 0.01)
    with pytest.raises(ConfigError, match=r'^a pad layout needs at least one geom$'):
        pad_layout([], 0.01)


def test_pad_layout_value_checks_itself():
    with pytest.raises(ConfigError, match=r'^normals must have unit length \(within 1e-06\)'):
        PadLayout('pad', [[0, 0, 0]], [[0, 0, 2]], [1], 0.01)
    with pytest.raises(ConfigError, match=r"^pad 'pad' has no taxels; a layout needs at least"):
        PadLayout('pad', np.zeros((0, 3)), np.zeros((0, 3)), [], 0.01)
    with pytest.raises(ConfigError, match=r'^resolution_m must be a finite number > 0, got 0'):
        PadLayout('pad', [[0, 0, 0]], [[0, 0, 1]], [1], 0)
    with pytest.raises(ConfigError, match=r'^geom_ids must have shape \(1,\), got \(2,\)$'):
        PadLayout('pad', [[0, 0, 0]], [[0, 0, 1]], [1, 2], 0.01)
    layout = PadLayout('pad', [[0, 0, 0]], [[0, 0, 1]], [1], 0.01)
    assert not layout.positions_in_body.flags.writeable and len(layout) == 1
