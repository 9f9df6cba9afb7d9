"""Tactile clouds (one point per taxel) and their rviz markers."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from geometry_msgs.msg import Point
from grasp_monitor.core.errors import InputError
from grasp_monitor.nodes.conversions.clock import time_from_msg, time_to_msg
import numpy as np
from sensor_msgs.msg import PointCloud2, PointField
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

#: Fields of a tactile cloud, in order: taxel position (m) and force (N), pad frame.
TACTILE_FIELDS = ('x', 'y', 'z', 'fx', 'fy', 'fz')
#: Fields a cloud of a pad with ``slip`` on has after those: each taxel's slip, m/s, pad frame.
SLIP_FIELDS = ('vx', 'vy', 'vz')
#: Sphere sizes of the tactile markers, from an unloaded taxel (0) to full scale.
MARKER_LEVELS = 8
#: Red, green and blue of the tactile marker colour map at 0, 1/2 and full scale.
_MARKER_COLOURS = ((0.2, 1.0, 0.9), (0.4, 0.9, 0.05), (1.0, 0.1, 0.05))


def tactile_cloud_to_msg(
    positions_in_pad: np.ndarray, forces_in_pad: np.ndarray, frame_id: str, time_s: float,
    slip_in_pad: np.ndarray | None = None,
) -> PointCloud2:
    """Build a tactile PointCloud2: float32 fields x y z (m) fx fy fz (N), one point per taxel.

    Args:
        positions_in_pad: (N, 3) taxel positions in the pad frame, m.
        forces_in_pad: (N, 3) force on each taxel in the pad frame, N; a scalar
            touch function gives (N, 1), published as fz with fx = fy = 0.
        frame_id: the pad body's frame.
        time_s: sample time, s.
        slip_in_pad: (N, 3) each taxel's slip in the pad frame, m/s, published as three
            more fields vx vy vz (None: none).
    """
    points = tactile_points(positions_in_pad, forces_in_pad, slip_in_pad)
    names = TACTILE_FIELDS + (SLIP_FIELDS if slip_in_pad is not None else ())
    msg = PointCloud2()
    msg.header.stamp = time_to_msg(time_s)
    msg.header.frame_id = frame_id
    msg.height, msg.width = 1, points.shape[0]
    # Fresh fields per message: a caller that edits one message must not edit the next.
    msg.fields = [PointField(name=name, offset=4 * i, datatype=PointField.FLOAT32, count=1)
                  for i, name in enumerate(names)]
    msg.is_bigendian = False
    msg.point_step = 4 * len(names)
    msg.row_step = msg.point_step * points.shape[0]
    msg.is_dense = True
    msg.data = points.tobytes()
    return msg


def tactile_points(positions_in_pad: np.ndarray, forces_in_pad: np.ndarray,
                   slip_in_pad: np.ndarray | None = None) -> np.ndarray:
    """Return the (N, 6), with slip (N, 9), little-endian float32 points of a tactile cloud."""
    forces = np.asarray(forces_in_pad, '<f4')
    if forces.ndim == 2 and forces.shape[1] == 1:
        forces = np.concatenate([np.zeros((forces.shape[0], 2), '<f4'), forces], axis=1)
    columns = [np.asarray(positions_in_pad, '<f4'), forces]
    if slip_in_pad is not None:
        columns.append(np.asarray(slip_in_pad, '<f4'))
    return np.concatenate(columns, axis=1)


@lru_cache(maxsize=32)
def _taxel_points(positions: bytes) -> tuple[Point, ...]:
    """Point messages of a pad's taxels (float64 x y z rows), made once per layout.

    A pad's taxels never move in its frame, and building 10^3 Points is most of a
    markers message's cost; messages may share them (publishing serialises).
    """
    return tuple(Point(x=x, y=y, z=z)
                 for x, y, z in np.frombuffer(positions).reshape(-1, 3).tolist())


def tactile_markers_to_msg(
    pads: Sequence[tuple[str, str, np.ndarray, np.ndarray, float]], time_s: float,
    full_scale_n: float,
) -> MarkerArray:
    """Build rviz markers of tactile pads: taxels as spheres coloured and sized by force.

    Per pad (namespace ``tactile/<pad>``, frame = the pad body), ``MARKER_LEVELS``
    sphere lists with ids 0 to ``MARKER_LEVELS - 1``: list k holds the taxels
    whose force magnitude ``|f|`` has ``ceil(|f| / full_scale_n x (MARKER_LEVELS - 1))
    = k`` (0: unloaded; beyond full scale: the last), drawn with diameter
    ``(0.5 + k / (MARKER_LEVELS - 1)) x spacing``. Each sphere's colour runs from
    blue (no force) through yellow (half scale) to red (full scale). A list with
    no taxel is sent as DELETE, so rviz drops what it showed before.

    Args:
        pads: per pad: name, frame id, taxel positions (N, 3) m in that frame,
            taxel values (N, 1) or (N, 3) N, and the taxel spacing, m.
        time_s: sample time, s.
        full_scale_n: force magnitude drawn largest and reddest, N (> 0).
    """
    msg = MarkerArray()
    stamp = time_to_msg(time_s)
    top = MARKER_LEVELS - 1
    for name, frame_id, positions, values, spacing_m in pads:
        values = np.asarray(values, float).reshape(len(positions), -1)
        magnitude = np.sqrt(np.einsum('ij,ij->i', values, values))
        ratio = np.minimum(magnitude / full_scale_n, 1.0)
        level = np.ceil(ratio * top).astype(np.int64)
        colours = np.stack([np.interp(ratio, (0.0, 0.5, 1.0), stops)
                            for stops in _MARKER_COLOURS], axis=1)
        points = _taxel_points(np.ascontiguousarray(positions, float).tobytes())
        for k in range(MARKER_LEVELS):
            members = np.flatnonzero(level == k)
            marker = Marker(ns=f'tactile/{name}', id=k, type=Marker.SPHERE_LIST,
                            action=Marker.ADD if members.size else Marker.DELETE)
            marker.header.stamp = stamp
            marker.header.frame_id = frame_id
            marker.pose.orientation.w = 1.0
            marker.scale.x = marker.scale.y = marker.scale.z = spacing_m * (0.5 + k / top)
            marker.color.a = 1.0
            marker.points = [points[i] for i in members.tolist()]
            marker.colors = [ColorRGBA(r=r, g=g, b=b, a=1.0)
                             for r, g, b in colours[members].tolist()]
            msg.markers.append(marker)
    return msg


def tactile_cloud_from_msg(msg: PointCloud2) -> tuple[np.ndarray, np.ndarray, float]:
    """Read a tactile PointCloud2 back: positions (N, 3) m, forces (N, 3) N, time s.

    A cloud with slip (fields vx vy vz after the forces) reads the same;
    ``tactile_slip_from_msg`` reads its slip, ``tactile_reading_from_msg`` both at once.

    Raises:
        InputError: the cloud does not have the float32 x y z fx fy fz [vx vy vz]
            layout, or holds NaN or infinite values.
    """
    return tactile_reading_from_msg(msg)[:3]


def tactile_slip_from_msg(msg: PointCloud2) -> np.ndarray | None:
    """Return a tactile cloud's slip (N, 3) m/s in the pad frame (None: the cloud has none).

    Raises:
        InputError: as ``tactile_cloud_from_msg``.
    """
    return tactile_reading_from_msg(msg)[3]


def tactile_reading_from_msg(
    msg: PointCloud2,
) -> tuple[np.ndarray, np.ndarray, float, np.ndarray | None]:
    """Read a tactile cloud once: positions, forces, time, and slip (None: none).

    The first three as ``tactile_cloud_from_msg`` returns them.

    Raises:
        InputError: as ``tactile_cloud_from_msg``.
    """
    points = _points(msg)
    slip = points[:, 6:9] if points.shape[1] == 9 else None
    return points[:, :3], points[:, 3:6], time_from_msg(msg.header.stamp), slip


def _points(msg: PointCloud2) -> np.ndarray:
    """Return a tactile cloud's (N, 6) or (N, 9) values, checked."""
    names = tuple(field.name for field in msg.fields)
    layouts = (TACTILE_FIELDS, TACTILE_FIELDS + SLIP_FIELDS)
    width = len(names)
    if names not in layouts or any(
            f.datatype != PointField.FLOAT32 or f.offset != 4 * i
            for i, f in enumerate(msg.fields)) or msg.point_step != 4 * width \
            or msg.is_bigendian:
        raise InputError(
            f'tactile cloud must have float32 fields {" ".join(TACTILE_FIELDS)} packed in '
            f'24 bytes, or with {" ".join(SLIP_FIELDS)} after them in 36, got '
            f'{" ".join(names)} in {msg.point_step}', 'wrong_layout')
    count = msg.width * msg.height
    if len(msg.data) != 4 * width * count:
        raise InputError(f'tactile cloud holds {len(msg.data)} bytes for {count} points',
                         'wrong_length')
    points = np.frombuffer(bytes(msg.data), dtype='<f4').reshape(count, width).astype(float)
    if not np.isfinite(points).all():
        raise InputError(f'tactile cloud holds {np.count_nonzero(~np.isfinite(points))} '
                         'non-finite values', 'not_finite')
    return points
