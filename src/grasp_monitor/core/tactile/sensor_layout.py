"""Taxel layouts: points and outward normals over a pad body's geoms (mimoTouch).

Two modes:

* ``'primitives'``: points spread analytically over each geom's surface at
  about ``resolution_m`` spacing; every point lies on the true surface with
  its exact outward normal. With ``[x] = floor(x + 1/2)`` (half up):

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

* ``'mesh'``: each geom is tessellated with trimesh at about the resolution,
  the geoms are merged into one body mesh whose vertices are the taxels
  (normals from the mesh), and taxels inside (or on) another geom of the
  same body are deactivated, so a contact cannot light hidden taxels.

A geom whose largest extent is below the resolution gets one taxel at its
centre; a centre has no surface normal, so by convention it takes the geom's
+z axis. Layouts are expressed in the pad *body* frame, using each geom's
pose in its body.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Iterable, Mapping, TYPE_CHECKING

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile.config import LAYOUT_MODES
from grasp_monitor.core.values import as_array, GeomShape
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import trimesh

#: Surfaces a layout can cover ('pipe' is a cylinder without caps).
SURFACE_KINDS = ('box', 'sphere', 'ellipsoid', 'cylinder', 'capsule', 'pipe')
#: Slack on count ratios, so round-off in length / resolution never flips a count.
_RATIO_EPSILON = 1e-9
#: How far from unit length a normal may be.
_UNIT_TOLERANCE = 1e-6
#: Icosphere refinement stops here (10 * 4**7 + 2 = 163842 vertices per sphere).
_MAX_ICOSPHERE_SUBDIVISIONS = 7


@dataclass(frozen=True)
class PadLayout:
    """Taxels of one pad body.

    Attributes:
        body: name of the pad body whose frame the layout is in.
        positions_in_body: (N, 3) m, taxel positions in the body frame.
        normals_in_body: (N, 3) outward unit normals in the body frame.
        geom_ids: (N,) simulator id of the geom each taxel lies on.
        resolution_m: the spacing the layout was made for, m (> 0).
    """

    body: str
    positions_in_body: np.ndarray
    normals_in_body: np.ndarray
    geom_ids: np.ndarray
    resolution_m: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.resolution_m) and self.resolution_m > 0):
            raise ConfigError(
                f'resolution_m must be a finite number > 0, got {self.resolution_m}')
        positions = as_array(self.positions_in_body, (-1, 3), 'positions_in_body')
        count = positions.shape[0]
        if count == 0:
            raise ConfigError(f'pad {self.body!r} has no taxels; a layout needs at least one')
        normals = as_array(self.normals_in_body, (count, 3), 'normals_in_body')
        if not (np.all(np.isfinite(positions)) and np.all(np.isfinite(normals))):
            raise ConfigError('taxel positions and normals must be finite')
        lengths = np.linalg.norm(normals, axis=1)
        if np.any(np.abs(lengths - 1.0) > _UNIT_TOLERANCE):
            raise ConfigError(
                f'normals must have unit length (within {_UNIT_TOLERANCE}), '
                f'got lengths from {lengths.min()} to {lengths.max()}')
        geom_ids = np.array(self.geom_ids, dtype=np.int64).reshape(-1)
        if geom_ids.shape != (count,):
            raise ConfigError(f'geom_ids must have shape ({count},), got {geom_ids.shape}')
        geom_ids.setflags(write=False)
        object.__setattr__(self, 'positions_in_body', positions)
        object.__setattr__(self, 'normals_in_body', normals)
        object.__setattr__(self, 'geom_ids', geom_ids)
        object.__setattr__(self, 'resolution_m', float(self.resolution_m))

    def __len__(self) -> int:
        return int(self.positions_in_body.shape[0])


# -- primitives, in the geom frame ---------------------------------------------------------

def _half_up(value: npt.ArrayLike) -> np.ndarray:
    """Round half up (not to even), so counts follow the plain rule ``floor(x + 1/2)``."""
    # The epsilon keeps exact ratios such as 0.1 / 0.01 = 9.999... on the intended side.
    return np.floor(np.asarray(value, dtype=float) + 0.5 + _RATIO_EPSILON).astype(np.int64)


def _segments(length_m: float, resolution_m: float) -> int:
    """Return the number of equal segments of ``length_m`` nearest ``resolution_m`` (>= 1)."""
    return max(1, int(_half_up(length_m / resolution_m)))


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
    counts = np.maximum(1, _half_up(2.0 * np.pi * radii_m / spacing_m))
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
    rings = max(0, int(_half_up(quarter_m / resolution_m - 0.5)))
    step_rad = 0.5 * np.pi / (rings + 0.5)
    polar = np.arange(rings + 1) * step_rad
    sin_p, cos_p = np.sin(polar), np.cos(polar)
    points, normals = _rings(radius_m * sin_p, centre_z_m + sign * radius_m * cos_p,
                             radius_m * step_rad, sin_p, sign * cos_p)
    return points, normals


def _side(radius_m: float, half_length_m: float,
          resolution_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Return rings over a cylinder's side, at the centres of equal cells along z."""
    heights = _cell_centres(half_length_m, _segments(2.0 * half_length_m, resolution_m))
    ones = np.ones(heights.size)
    return _rings(radius_m * ones, heights, resolution_m, ones, 0.0 * ones)


def _cap(radius_m: float, resolution_m: float, z_m: float,
         sign: float) -> tuple[np.ndarray, np.ndarray]:
    """Return concentric rings on a disc: a centre point, then rings one spacing apart.

    The spacing is r / (n + 1/2), so the outer ring is half a spacing in from the rim.
    """
    rings = max(0, int(_half_up(radius_m / resolution_m - 0.5)))
    spacing = radius_m / (rings + 0.5)
    radii = np.arange(rings + 1) * spacing
    zeros = np.zeros(radii.size)
    return _rings(radii, z_m + zeros, spacing, zeros, sign + zeros)


def _largest_extent_m(kind: str, size: np.ndarray) -> float:
    """Return the largest full extent of a surface, m."""
    if kind in ('box', 'ellipsoid'):
        return 2.0 * float(np.max(size))
    if kind == 'sphere':
        return 2.0 * float(size[0])
    if kind == 'capsule':
        return 2.0 * float(size[0] + size[1])
    return 2.0 * float(max(size[0], size[1]))


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
    if _largest_extent_m(kind, size) < resolution_m:
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
    counts = [_segments(2.0 * h, resolution_m) for h in half_extents]
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


# -- layouts -------------------------------------------------------------------------------

def _pose(shape: GeomShape) -> tuple[np.ndarray, np.ndarray]:
    """Return the rotation (3, 3) and translation (3,) of a geom in its body."""
    return quat_to_matrix(shape.quaternion_in_body), shape.position_in_body


def _check_shapes(shapes: Iterable[GeomShape], pipe_geoms: Iterable[str],
                  meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]],
                  mode: str) -> tuple[tuple[GeomShape, ...], frozenset[str]]:
    """Validate the inputs of ``pad_layout``."""
    if mode not in LAYOUT_MODES:
        raise ConfigError(f'layout mode {mode!r} is not one of {", ".join(LAYOUT_MODES)}')
    shapes = tuple(shapes)
    if not shapes:
        raise ConfigError('a pad layout needs at least one geom')
    bodies = sorted({shape.body for shape in shapes})
    if len(bodies) != 1:
        raise ConfigError(f'a pad layout covers one body; got geoms of {", ".join(bodies)}')
    pipes = frozenset(pipe_geoms)
    tube_names = sorted(s.name for s in shapes if s.kind in ('cylinder', 'capsule') and s.name)
    unknown = sorted(pipes - set(tube_names))
    if unknown:
        raise ConfigError(
            f'pipe geoms {", ".join(map(repr, unknown))} are not named cylinders or capsules '
            f'of the pad; valid: {", ".join(tube_names) or "(none)"}')
    coverable = ('box', 'sphere', 'ellipsoid', 'cylinder', 'capsule')
    for shape in shapes:
        if shape.kind == 'mesh':
            if mode != 'mesh' or shape.geom_id not in meshes:
                raise ConfigError(
                    f'mesh geom {shape.name or shape.geom_id!r} needs mode "mesh" and its '
                    'triangles in meshes (sim.contacts.geom_meshes gives them)')
        elif shape.kind not in coverable:
            raise ConfigError(
                f'geom {shape.name or shape.geom_id!r} is a {shape.kind}; sensing geoms '
                f'must be one of {", ".join(coverable + ("mesh",))}')
    return shapes, pipes


def pad_layout(
    shapes: Iterable[GeomShape],
    resolution_m: float,
    mode: str = 'primitives',
    pipe_geoms: Iterable[str] = (),
    meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]] | None = None,
) -> PadLayout:
    """Lay taxels over the geoms of one pad body.

    Args:
        shapes: the body's sensing geoms (all of one body), e.g. from
            ``sim.contacts.geom_shapes(model, [pad])``.
        resolution_m: wanted taxel spacing, m (> 0).
        mode: ``'primitives'`` or ``'mesh'`` (see the module docstring).
        pipe_geoms: names of cylinder or capsule geoms to cover as open
            pipes (side only).
        meshes: triangles of mesh geoms, ``{geom_id: (vertices_in_geom (V, 3),
            faces (F, 3))}``; mesh geoms need mode ``'mesh'``.

    Returns:
        The layout in the body frame, taxels ordered geom by geom.

    Raises:
        ConfigError: bad mode, resolution, shapes of several bodies, planes or
            height fields, unknown pipe geoms, mesh geoms without triangles,
            or every taxel hidden.
    """
    meshes = {} if meshes is None else dict(meshes)
    if isinstance(resolution_m, bool) or not (
            isinstance(resolution_m, (int, float)) and math.isfinite(resolution_m)
            and resolution_m > 0):
        raise ConfigError(f'resolution_m must be a finite number > 0, got {resolution_m}')
    shapes, pipes = _check_shapes(shapes, pipe_geoms, meshes, mode)
    if mode == 'mesh':
        return _mesh_layout(shapes, float(resolution_m), pipes, meshes)
    positions, normals, geom_ids = [], [], []
    for shape in shapes:
        kind = 'pipe' if shape.name in pipes else shape.kind
        local_points, local_normals = surface_points(kind, shape.size, resolution_m)
        rotation, translation = _pose(shape)
        positions.append(local_points @ rotation.T + translation)
        normals.append(local_normals @ rotation.T)
        geom_ids.append(np.full(local_points.shape[0], shape.geom_id))
    return PadLayout(shapes[0].body, np.concatenate(positions), np.concatenate(normals),
                     np.concatenate(geom_ids), float(resolution_m))


# -- mesh mode -----------------------------------------------------------------------------

def _revolved(profile: np.ndarray, radius_m: float, resolution_m: float) -> trimesh.Trimesh:
    """Return the trimesh surface of revolution about z of an (r, z) profile."""
    from trimesh.creation import revolve
    sections = max(3, int(_half_up(2.0 * np.pi * radius_m / resolution_m)))
    return revolve(profile, sections=sections)


def _polyline(corners: list[tuple[float, float]], resolution_m: float) -> np.ndarray:
    """Return straight segments through ``corners``, split at about ``resolution_m``."""
    pieces = []
    for start, end in zip(corners[:-1], corners[1:]):
        count = _segments(math.dist(start, end), resolution_m)
        t = np.arange(count)[:, None] / count
        pieces.append(np.asarray(start) + t * (np.asarray(end) - np.asarray(start)))
    pieces.append(np.asarray([corners[-1]]))
    return np.concatenate(pieces)


def _arc(radius_m: float, centre_z_m: float, sign: float, resolution_m: float) -> np.ndarray:
    """(r, z) profile of a hemisphere from its equator to its pole."""
    count = _segments(0.5 * np.pi * radius_m, resolution_m)
    polar = np.linspace(0.5 * np.pi, 0.0, count + 1)
    return np.stack([radius_m * np.sin(polar), centre_z_m + sign * radius_m * np.cos(polar)], 1)


def _box_mesh(half_extents: np.ndarray, resolution_m: float) -> trimesh.Trimesh:
    """Return a box trimesh whose faces are regular grids at about the resolution."""
    import trimesh
    counts = [_segments(2.0 * h, resolution_m) for h in half_extents]
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
    shapes, pipes = _check_shapes(shapes, pipe_geoms, meshes, 'mesh')
    parts, geom_ids = [], []
    for shape in shapes:
        kind = 'pipe' if shape.name in pipes else shape.kind
        if kind != 'mesh' and _largest_extent_m(kind, shape.size) < resolution_m:
            part = trimesh.Trimesh(np.zeros((1, 3)), np.zeros((0, 3), np.int64), process=False)
        else:
            part = _geom_mesh(shape, kind, resolution_m, meshes)
        rotation, translation = _pose(shape)
        transform = np.eye(4)
        transform[:3, :3] = rotation
        transform[:3, 3] = translation
        part.apply_transform(transform)
        parts.append(part)
        geom_ids.append(np.full(len(part.vertices), shape.geom_id))
    return trimesh.util.concatenate(parts), np.concatenate(geom_ids)


def _mesh_layout(shapes: tuple[GeomShape, ...], resolution_m: float, pipes: frozenset[str],
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
        normals[here] = _pose(shape)[0][:, 2]
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
        rotation, translation = _pose(shape)
        others = geom_ids != shape.geom_id
        local = (positions[others] - translation) @ rotation
        covered = _signed_inside_margin(shape, local, hulls) >= -tolerance_m
        active[np.flatnonzero(others)[covered]] = False
    if not np.any(active):
        raise ConfigError(f'every taxel of pad {shapes[0].body!r} is hidden inside its geoms')
    return PadLayout(shapes[0].body, positions[active], normals[active], geom_ids[active],
                     resolution_m)
