"""Taxels over primitive surfaces: points at about a resolution, exact outward normals.

With ``[x] = floor(x + 1/2)`` (half up):

- box: each face split into ``max(1, [2 a / res])`` cells per axis, one
  taxel at each cell centre;
- sphere: per hemisphere, ``n + 1`` latitude rings (the pole is the first)
  at polar angles ``k dθ``, ``dθ = (π/2) / (n + 1/2)``, ``n = [π r / (2 res)
  - 1/2]``; ring k has ``max(1, [2π sin(k dθ) / dθ])`` points, i.e. in
  proportion to its circumference;
- ellipsoid: the sphere points for the largest semi-axis, projected
  radially onto the ellipsoid;
- cylinder: side rings at the centres of ``max(1, [2 h / res])`` cells
  along z with ``max(1, [2π r / res])`` points each, plus on each cap a
  centre point and ``n = [r / res - 1/2]`` rings at radii ``k r / (n + 1/2)``
  with ``[2π k]`` points each;
- capsule: the cylinder's side rings plus a sphere's hemispheres on its ends;
- pipe: the side rings only.
"""

from __future__ import annotations

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.tactile.layout import (
    geom_pose, half_up, largest_extent_m, PadLayout, segments)
from grasp_monitor.core.values import GeomShape
import numpy as np
import numpy.typing as npt

#: Surfaces a layout can cover ('pipe' is a cylinder without caps).
SURFACE_KINDS = ('box', 'sphere', 'ellipsoid', 'cylinder', 'capsule', 'pipe')


def _cell_centres(half_length_m: float, count: int) -> np.ndarray:
    """Return the centres of ``count`` equal cells over [-half_length_m, half_length_m]."""
    return -half_length_m + (np.arange(count) + 0.5) * (2.0 * half_length_m / count)


def _rings(radii_m: np.ndarray, heights_m: np.ndarray, spacing_m: float,
           radial_normal: np.ndarray, axial_normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return points on horizontal circles, as many as each circumference holds.

    Args:
        radii_m: (R,) ring radii; a zero radius gives one point on the axis.
        heights_m: (R,) ring heights along z.
        spacing_m: the arc length wanted between neighbours on a ring.
        radial_normal: (R,) normal component along the ring's outward radius.
        axial_normal: (R,) normal component along +z.
    """
    counts = np.maximum(1, half_up(2.0 * np.pi * radii_m / spacing_m))
    ring = np.repeat(np.arange(radii_m.size), counts)
    # Index of each point within its ring, without a loop over rings.
    within = np.arange(ring.size) - np.repeat(np.cumsum(counts) - counts, counts)
    azimuth = 2.0 * np.pi * within / counts[ring]
    cos_a, sin_a = np.cos(azimuth), np.sin(azimuth)
    points = np.stack(
        [radii_m[ring] * cos_a, radii_m[ring] * sin_a, heights_m[ring]], axis=1)
    normals = np.stack(
        [radial_normal[ring] * cos_a, radial_normal[ring] * sin_a, axial_normal[ring]], axis=1)
    return points, normals


def _hemisphere(radius_m: float, resolution_m: float, centre_z_m: float,
                sign: float) -> tuple[np.ndarray, np.ndarray]:
    """Return latitude rings over the hemisphere facing ``sign`` * z, pole included.

    Ring k sits at polar angle k * dtheta, dtheta = (pi / 2) / (n + 1/2), so
    the last ring is half a spacing from the equator and two hemispheres (or a
    hemisphere and a cylinder side) meet at about one spacing.
    """
    quarter_m = 0.5 * np.pi * radius_m
    rings = max(0, int(half_up(quarter_m / resolution_m - 0.5)))
    step_rad = 0.5 * np.pi / (rings + 0.5)
    polar = np.arange(rings + 1) * step_rad
    sin_p, cos_p = np.sin(polar), np.cos(polar)
    points, normals = _rings(radius_m * sin_p, centre_z_m + sign * radius_m * cos_p,
                             radius_m * step_rad, sin_p, sign * cos_p)
    return points, normals


def _side(radius_m: float, half_length_m: float,
          resolution_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Return rings over a cylinder's side, at the centres of equal cells along z."""
    heights = _cell_centres(half_length_m, segments(2.0 * half_length_m, resolution_m))
    ones = np.ones(heights.size)
    return _rings(radius_m * ones, heights, resolution_m, ones, 0.0 * ones)


def _cap(radius_m: float, resolution_m: float, z_m: float,
         sign: float) -> tuple[np.ndarray, np.ndarray]:
    """Return concentric rings on a disc: a centre point, then rings one spacing apart.

    The spacing is r / (n + 1/2), so the outer ring is half a spacing in from the rim.
    """
    rings = max(0, int(half_up(radius_m / resolution_m - 0.5)))
    spacing = radius_m / (rings + 0.5)
    radii = np.arange(rings + 1) * spacing
    zeros = np.zeros(radii.size)
    return _rings(radii, z_m + zeros, spacing, zeros, sign + zeros)


def _check_surface(kind: str, size: npt.ArrayLike, resolution_m: float) -> np.ndarray:
    """Validate a surface kind, its size and a resolution; return the size as (3,)."""
    if kind not in SURFACE_KINDS:
        raise ConfigError(f'surface kind {kind!r} is not one of {", ".join(SURFACE_KINDS)}')
    if not (math.isfinite(resolution_m) and resolution_m > 0):
        raise ConfigError(f'resolution_m must be a finite number > 0, got {resolution_m}')
    values = np.zeros(3)
    given = np.asarray(size, dtype=float).reshape(-1)
    values[:min(3, given.size)] = given[:3]
    used = {'box': 3, 'ellipsoid': 3, 'sphere': 1}.get(kind, 2)
    if not (np.all(np.isfinite(values[:used])) and np.all(values[:used] > 0)):
        raise ConfigError(
            f'a {kind} needs {used} size value(s) > 0, got {given.tolist()}')
    return values


def surface_points(kind: str, size: npt.ArrayLike,
                   resolution_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Return points and outward unit normals over one primitive surface, in its frame.

    Args:
        kind: one of ``SURFACE_KINDS``.
        size: MuJoCo size parameters, m: box half-extents; sphere radius;
            cylinder, capsule or pipe radius and half-length (of the
            cylindrical part); ellipsoid semi-axes.
        resolution_m: wanted spacing between neighbouring points, m.

    Returns:
        positions (P, 3) m and normals (P, 3), in the geom frame. Point
        counts: box ``2 (nx ny + ny nz + nz nx)`` with ``n = max(1,
        floor(2 a / resolution + 1/2))`` per axis; see the module docstring
        for the others. A surface whose largest extent is below the resolution gives
        one point at its centre with normal +z.

    Raises:
        ConfigError: unknown kind, non-positive size or resolution.
    """
    size = _check_surface(kind, size, resolution_m)
    if largest_extent_m(kind, size) < resolution_m:
        return np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]])
    if kind == 'box':
        return _box_points(size, resolution_m)
    if kind == 'sphere':
        return _sphere_points(size[0], resolution_m)
    if kind == 'ellipsoid':
        return _ellipsoid_points(size, resolution_m)
    radius, half_length = float(size[0]), float(size[1])
    parts = [_side(radius, half_length, resolution_m)]
    if kind == 'cylinder':
        parts += [_cap(radius, resolution_m, half_length, 1.0),
                  _cap(radius, resolution_m, -half_length, -1.0)]
    elif kind == 'capsule':
        parts += [_hemisphere(radius, resolution_m, half_length, 1.0),
                  _hemisphere(radius, resolution_m, -half_length, -1.0)]
    return (np.concatenate([p for p, _ in parts]), np.concatenate([n for _, n in parts]))


def _box_points(half_extents: np.ndarray,
                resolution_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Return one point per cell centre of an integer subdivision of each face."""
    counts = [segments(2.0 * h, resolution_m) for h in half_extents]
    centres = [_cell_centres(h, n) for h, n in zip(half_extents, counts)]
    positions, normals = [], []
    for axis in range(3):
        u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
        u, v = np.meshgrid(centres[u_axis], centres[v_axis], indexing='ij')
        for sign in (1.0, -1.0):
            face = np.empty((u.size, 3))
            face[:, axis] = sign * half_extents[axis]
            face[:, u_axis] = u.ravel()
            face[:, v_axis] = v.ravel()
            normal = np.zeros((u.size, 3))
            normal[:, axis] = sign
            positions.append(face)
            normals.append(normal)
    return np.concatenate(positions), np.concatenate(normals)


def _sphere_points(radius_m: float, resolution_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Return two hemispheres of latitude rings (each pole is one point)."""
    north = _hemisphere(radius_m, resolution_m, 0.0, 1.0)
    south = _hemisphere(radius_m, resolution_m, 0.0, -1.0)
    return np.concatenate([north[0], south[0]]), np.concatenate([north[1], south[1]])


def _ellipsoid_points(semi_axes: np.ndarray,
                      resolution_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Return sphere points (radius: largest semi-axis) projected radially onto it.

    Radial projection only pulls points inward, so spacing is at most about
    the resolution (tighter along the short axes).
    """
    directions, _ = _sphere_points(1.0, resolution_m / float(np.max(semi_axes)))
    scale = 1.0 / np.sqrt(np.sum((directions / semi_axes) ** 2, axis=1))
    positions = directions * scale[:, None]
    gradient = positions / semi_axes ** 2
    return positions, gradient / np.linalg.norm(gradient, axis=1, keepdims=True)


def primitives_layout(shapes: tuple[GeomShape, ...], resolution_m: float,
                      pipes: frozenset[str]) -> PadLayout:
    """Primitives-mode layout: each geom's surface points, moved into the body frame."""
    positions, normals, geom_ids = [], [], []
    for shape in shapes:
        kind = 'pipe' if shape.name in pipes else shape.kind
        local_points, local_normals = surface_points(kind, shape.size, resolution_m)
        rotation, translation = geom_pose(shape)
        positions.append(local_points @ rotation.T + translation)
        normals.append(local_normals @ rotation.T)
        geom_ids.append(np.full(local_points.shape[0], shape.geom_id))
    return PadLayout(shapes[0].body, np.concatenate(positions), np.concatenate(normals),
                     np.concatenate(geom_ids), float(resolution_m))
