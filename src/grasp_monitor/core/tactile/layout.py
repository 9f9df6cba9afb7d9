"""What every taxel layout shares: ``PadLayout``, the checks of its inputs, geom poses."""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Iterable, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile.config import LAYOUT_MODES
from grasp_monitor.core.values import as_array, GeomShape
import numpy as np
import numpy.typing as npt

#: Slack on count ratios, so round-off in length / resolution never flips a count.
_RATIO_EPSILON = 1e-9
#: How far from unit length a normal may be.
_UNIT_TOLERANCE = 1e-6


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


def half_up(value: npt.ArrayLike) -> np.ndarray:
    """Round half up (not to even), so counts follow the plain rule ``floor(x + 1/2)``."""
    # The epsilon keeps exact ratios such as 0.1 / 0.01 = 9.999... on the intended side.
    return np.floor(np.asarray(value, dtype=float) + 0.5 + _RATIO_EPSILON).astype(np.int64)


def segments(length_m: float, resolution_m: float) -> int:
    """Return the number of equal segments of ``length_m`` nearest ``resolution_m`` (>= 1)."""
    return max(1, int(half_up(length_m / resolution_m)))


def largest_extent_m(kind: str, size: np.ndarray) -> float:
    """Return the largest full extent of a surface, m."""
    if kind in ('box', 'ellipsoid'):
        return 2.0 * float(np.max(size))
    if kind == 'sphere':
        return 2.0 * float(size[0])
    if kind == 'capsule':
        return 2.0 * float(size[0] + size[1])
    return 2.0 * float(max(size[0], size[1]))


def geom_pose(shape: GeomShape) -> tuple[np.ndarray, np.ndarray]:
    """Return the rotation (3, 3) and translation (3,) of a geom in its body."""
    return quat_to_matrix(shape.quaternion_in_body), shape.position_in_body


def check_shapes(shapes: Iterable[GeomShape], pipe_geoms: Iterable[str],
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
