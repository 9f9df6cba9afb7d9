"""Taxels over meshes: the geoms tessellated with trimesh, hidden taxels removed.

Each geom is tessellated at about the resolution, the geoms are merged into
one body mesh whose vertices are the taxels (normals from the mesh), and
taxels inside (or on) another geom of the same body are deactivated, so a
contact cannot light hidden taxels. trimesh and scipy load on first use.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, TYPE_CHECKING

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.tactile.layout import (
    check_shapes, geom_pose, half_up, largest_extent_m, PadLayout, segments)
from grasp_monitor.core.values import GeomShape
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import trimesh

#: Icosphere refinement stops here (10 * 4**7 + 2 = 163842 vertices per sphere).
_MAX_ICOSPHERE_SUBDIVISIONS = 7


# -- inside tests, for hiding covered taxels -----------------------------------------------

def _signed_inside_margin(shape: GeomShape, points_in_geom: np.ndarray,
                          hulls: Mapping[int, np.ndarray]) -> np.ndarray:
    """Return how far inside the geom's solid each point is, m (< 0 outside).

    Exact on the surface (0) for every primitive; for ellipsoids and meshes
    only the sign is meaningful away from it. Meshes use their convex hull,
    the shape MuJoCo collides with.
    """
    size = shape.size
    if shape.kind == 'box':
        return np.min(size - np.abs(points_in_geom), axis=1)
    if shape.kind == 'sphere':
        return size[0] - np.linalg.norm(points_in_geom, axis=1)
    if shape.kind == 'ellipsoid':
        scaled = np.linalg.norm(points_in_geom / size, axis=1)
        return float(np.min(size)) * (1.0 - scaled)
    if shape.kind == 'cylinder':
        radial = size[0] - np.linalg.norm(points_in_geom[:, :2], axis=1)
        return np.minimum(radial, size[1] - np.abs(points_in_geom[:, 2]))
    if shape.kind == 'capsule':
        along = np.clip(points_in_geom[:, 2], -size[1], size[1])
        offset = points_in_geom.copy()
        offset[:, 2] -= along
        return size[0] - np.linalg.norm(offset, axis=1)
    # Convex hull facets a.x + b <= 0 inside; the margin is the smallest -(a.x + b).
    equations = hulls[shape.geom_id]
    return -np.max(points_in_geom @ equations[:, :3].T + equations[:, 3], axis=1)


def _revolved(profile: np.ndarray, radius_m: float, resolution_m: float) -> trimesh.Trimesh:
    """Return the trimesh surface of revolution about z of an (r, z) profile."""
    from trimesh.creation import revolve
    sections = max(3, int(half_up(2.0 * np.pi * radius_m / resolution_m)))
    return revolve(profile, sections=sections)


def _polyline(corners: list[tuple[float, float]], resolution_m: float) -> np.ndarray:
    """Return straight segments through ``corners``, split at about ``resolution_m``."""
    pieces = []
    for start, end in zip(corners[:-1], corners[1:]):
        count = segments(math.dist(start, end), resolution_m)
        t = np.arange(count)[:, None] / count
        pieces.append(np.asarray(start) + t * (np.asarray(end) - np.asarray(start)))
    pieces.append(np.asarray([corners[-1]]))
    return np.concatenate(pieces)


def _arc(radius_m: float, centre_z_m: float, sign: float, resolution_m: float) -> np.ndarray:
    """(r, z) profile of a hemisphere from its equator to its pole."""
    count = segments(0.5 * np.pi * radius_m, resolution_m)
    polar = np.linspace(0.5 * np.pi, 0.0, count + 1)
    return np.stack([radius_m * np.sin(polar), centre_z_m + sign * radius_m * np.cos(polar)], 1)


def _box_mesh(half_extents: np.ndarray, resolution_m: float) -> trimesh.Trimesh:
    """Return a box trimesh whose faces are regular grids at about the resolution."""
    import trimesh
    counts = [segments(2.0 * h, resolution_m) for h in half_extents]
    vertices, faces = [], []
    offset = 0
    for axis in range(3):
        u_axis, v_axis = (axis + 1) % 3, (axis + 2) % 3
        nu, nv = counts[u_axis], counts[v_axis]
        u, v = np.meshgrid(np.linspace(-half_extents[u_axis], half_extents[u_axis], nu + 1),
                           np.linspace(-half_extents[v_axis], half_extents[v_axis], nv + 1),
                           indexing='ij')
        corner = (np.arange(nu)[:, None] * (nv + 1) + np.arange(nv)).ravel()
        quads = np.stack([corner, corner + nv + 1, corner + nv + 2, corner + 1], axis=1)
        for sign in (1.0, -1.0):
            grid = np.empty((u.size, 3))
            grid[:, axis] = sign * half_extents[axis]
            grid[:, u_axis] = u.ravel()
            grid[:, v_axis] = v.ravel()
            # (u, v, axis) is right-handed, so u-then-v winding faces +axis.
            order = (0, 1, 2, 0, 2, 3) if sign > 0 else (0, 2, 1, 0, 3, 2)
            faces.append(quads[:, order].reshape(-1, 3) + offset)
            vertices.append(grid)
            offset += grid.shape[0]
    return trimesh.Trimesh(np.concatenate(vertices), np.concatenate(faces), process=True)


def _geom_mesh(shape: GeomShape, kind: str, resolution_m: float,
               meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]]) -> trimesh.Trimesh:
    """Tessellate one geom at about the resolution, in its own frame."""
    import trimesh
    from trimesh.creation import icosphere
    from trimesh.remesh import subdivide_to_size
    size = shape.size
    if kind == 'box':
        return _box_mesh(size, resolution_m)
    if kind in ('sphere', 'ellipsoid'):
        largest = float(size[0] if kind == 'sphere' else np.max(size))
        # An icosahedron's edge is 1.05 r; each subdivision halves it.
        levels = math.ceil(math.log2(max(1.0, 1.0515 * largest / resolution_m)))
        sphere = icosphere(subdivisions=min(levels, _MAX_ICOSPHERE_SUBDIVISIONS))
        scale = size[0] if kind == 'sphere' else size
        return trimesh.Trimesh(sphere.vertices * scale, sphere.faces, process=True)
    if kind == 'mesh':
        vertices, faces = meshes[shape.geom_id]
        vertices, faces = subdivide_to_size(
            np.asarray(vertices, float), np.asarray(faces, np.int64), resolution_m)
        return trimesh.Trimesh(vertices, faces, process=True)
    radius, half = float(size[0]), float(size[1])
    if kind == 'cylinder':
        profile = _polyline([(0.0, -half), (radius, -half), (radius, half), (0.0, half)],
                            resolution_m)
    elif kind == 'pipe':
        profile = _polyline([(radius, -half), (radius, half)], resolution_m)
    else:
        side = _polyline([(radius, -half), (radius, half)], resolution_m)
        profile = np.concatenate(
            [_arc(radius, -half, -1.0, resolution_m)[::-1], side[1:-1],
             _arc(radius, half, 1.0, resolution_m)])
    return _revolved(profile, radius, resolution_m)


def body_mesh(
    shapes: Iterable[GeomShape],
    resolution_m: float,
    pipe_geoms: Iterable[str] = (),
    meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]] | None = None,
) -> tuple[trimesh.Trimesh, np.ndarray]:
    """Merge the tessellated geoms of one body into one trimesh, in the body frame.

    Args:
        shapes: the body's geoms.
        resolution_m: wanted vertex spacing, m.
        pipe_geoms: cylinder or capsule geoms to leave open (side only).
        meshes: triangles of mesh geoms, as in ``pad_layout``.

    Returns:
        ``(mesh, geom_ids)``: the merged ``trimesh.Trimesh`` (vertices are not
        merged across geoms) and the (V,) geom id of each vertex.
    """
    import trimesh
    meshes = {} if meshes is None else dict(meshes)
    shapes, pipes = check_shapes(shapes, pipe_geoms, meshes, 'mesh')
    parts, geom_ids = [], []
    for shape in shapes:
        kind = 'pipe' if shape.name in pipes else shape.kind
        if kind != 'mesh' and largest_extent_m(kind, shape.size) < resolution_m:
            part = trimesh.Trimesh(np.zeros((1, 3)), np.zeros((0, 3), np.int64), process=False)
        else:
            part = _geom_mesh(shape, kind, resolution_m, meshes)
        rotation, translation = geom_pose(shape)
        transform = np.eye(4)
        transform[:3, :3] = rotation
        transform[:3, 3] = translation
        part.apply_transform(transform)
        parts.append(part)
        geom_ids.append(np.full(len(part.vertices), shape.geom_id))
    return trimesh.util.concatenate(parts), np.concatenate(geom_ids)


def mesh_layout(shapes: tuple[GeomShape, ...], resolution_m: float, pipes: frozenset[str],
                meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]]) -> PadLayout:
    """Mesh-mode layout: merged body mesh vertices, hidden ones deactivated."""
    from scipy.spatial import ConvexHull
    merged, geom_ids = body_mesh(shapes, resolution_m, pipes, meshes)
    positions = np.asarray(merged.vertices, dtype=float)
    normals = np.array(merged.vertex_normals, dtype=float)
    lengths = np.linalg.norm(normals, axis=1)
    # A lone centre vertex has no faces, hence no normal: use the geom's +z axis.
    lonely = lengths < 0.5
    for shape in shapes:
        here = lonely & (geom_ids == shape.geom_id)
        normals[here] = geom_pose(shape)[0][:, 2]
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    hulls = {
        geom_id: ConvexHull(np.asarray(vertices, float)).equations
        for geom_id, (vertices, _) in meshes.items()
        if any(s.geom_id == geom_id for s in shapes)}
    # Taxels inside or on another geom are covered by it; a small tolerance keeps
    # round-off on a shared face from deciding.
    tolerance_m = 1e-9 * max(1.0, resolution_m)
    active = np.ones(positions.shape[0], dtype=bool)
    for shape in shapes:
        rotation, translation = geom_pose(shape)
        others = geom_ids != shape.geom_id
        local = (positions[others] - translation) @ rotation
        covered = _signed_inside_margin(shape, local, hulls) >= -tolerance_m
        active[np.flatnonzero(others)[covered]] = False
    if not np.any(active):
        raise ConfigError(f'every taxel of pad {shapes[0].body!r} is hidden inside its geoms')
    return PadLayout(shapes[0].body, positions[active], normals[active], geom_ids[active],
                     resolution_m)
