"""Taxel layouts: points and outward normals over a pad body's geoms (mimoTouch).

Two modes: ``'primitives'`` spreads points analytically over each geom's
surface at about the resolution, each on the true surface with its exact
outward normal (``primitives``); ``'mesh'`` takes the vertices of the geoms
tessellated and merged into one body mesh, hidden taxels removed (``mesh``).

A geom whose largest extent is below the resolution gets one taxel at its
centre; a centre has no surface normal, so by convention it takes the geom's
+z axis. Layouts are expressed in the pad *body* frame, using each geom's
pose in its body.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.tactile.layout import check_shapes, PadLayout
from grasp_monitor.core.tactile.mesh import mesh_layout
from grasp_monitor.core.tactile.primitives import primitives_layout
from grasp_monitor.core.values import GeomShape
import numpy.typing as npt


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
    shapes, pipes = check_shapes(shapes, pipe_geoms, meshes, mode)
    if mode == 'mesh':
        return mesh_layout(shapes, float(resolution_m), pipes, meshes)
    return primitives_layout(shapes, resolution_m, pipes)
