"""Contact clouds (one point per contact), their rviz arrows, and the body names by id."""

from __future__ import annotations

from typing import Sequence

from geometry_msgs.msg import Point
from grasp_monitor.core.errors import InputError
from grasp_monitor.core.pad_contacts import PadContacts
from grasp_monitor.nodes.conversions.clock import time_from_msg, time_to_msg
import numpy as np
from sensor_msgs.msg import PointCloud2, PointField
from std_msgs.msg import ColorRGBA, String
from visualization_msgs.msg import Marker, MarkerArray

#: Fields of a contacts cloud, in order: float64 point (m), normal, force (N), world
#: frame; then int32 body ids: body1 (the pad) exerts the force on body2.
CONTACT_FIELDS = ('x', 'y', 'z', 'nx', 'ny', 'nz', 'fx', 'fy', 'fz', 'body1', 'body2')
_CONTACT_DTYPE = np.dtype([(name, '<f8') for name in CONTACT_FIELDS[:9]]
                          + [(name, '<i4') for name in CONTACT_FIELDS[9:]])


def contact_points(contacts: PadContacts) -> np.ndarray:
    """Return the points of a contacts cloud: one ``CONTACT_FIELDS`` record per contact."""
    points = np.empty(len(contacts), _CONTACT_DTYPE)
    for i, name in enumerate(CONTACT_FIELDS[:9]):
        array = (contacts.position_in_world, contacts.normal_in_world,
                 contacts.force_in_world)[i // 3]
        points[name] = array[:, i % 3]
    points['body1'], points['body2'] = contacts.body1, contacts.body2
    return points


def pad_contacts_to_msg(contacts: PadContacts, frame_id: str = 'world') -> PointCloud2:
    """Build a contacts PointCloud2 (``CONTACT_FIELDS``), one point per contact."""
    points = contact_points(contacts)
    msg = PointCloud2()
    msg.header.stamp = time_to_msg(contacts.time_s)
    msg.header.frame_id = frame_id
    msg.height, msg.width = 1, len(contacts)
    msg.fields = [PointField(name=name, offset=_CONTACT_DTYPE.fields[name][1],
                             datatype=PointField.FLOAT64 if i < 9 else PointField.INT32,
                             count=1) for i, name in enumerate(CONTACT_FIELDS)]
    msg.is_bigendian = False
    msg.point_step = _CONTACT_DTYPE.itemsize
    msg.row_step = msg.point_step * len(contacts)
    msg.is_dense = True
    msg.data = points.tobytes()
    return msg


#: Arrow shaft and head diameters and head length of the contact markers, m.
ARROW_SIZES_M = (0.002, 0.005, 0.006)
#: Colours of a pad's arrows on a grasped object, and on anything else (the table).
_ON_OBJECT = ColorRGBA(r=1.0, g=0.15, b=0.05, a=1.0)
_ON_OTHER = ColorRGBA(r=0.6, g=0.6, b=0.6, a=0.8)


def contact_markers_to_msg(contacts: PadContacts, scale_m_per_n: float,
                           object_ids: Sequence[int] = (),
                           frame_id: str = 'world') -> MarkerArray:
    """Build rviz arrows of the pads' contacts: one per contact, from the same data as the cloud.

    First a DELETEALL (rviz drops the arrows of the last message), then per contact
    an ARROW (namespace ``contacts``, id = its row) from the contact point along the
    force the pad exerts on the other body, ``scale_m_per_n`` m per N long: red on a
    body of ``object_ids``, grey on any other.
    """
    stamp = time_to_msg(contacts.time_s)
    clear = Marker(action=Marker.DELETEALL, ns='contacts')
    clear.header.stamp, clear.header.frame_id = stamp, frame_id
    msg = MarkerArray(markers=[clear])
    ends = contacts.position_in_world + scale_m_per_n * contacts.force_in_world
    on_object = np.isin(contacts.body2, np.asarray(object_ids, np.int64))
    shaft, head, head_length = ARROW_SIZES_M
    for row, (start, end, grasped) in enumerate(zip(
            contacts.position_in_world.tolist(), ends.tolist(), on_object.tolist())):
        arrow = Marker(ns='contacts', id=row, type=Marker.ARROW, action=Marker.ADD,
                       points=[Point(x=start[0], y=start[1], z=start[2]),
                               Point(x=end[0], y=end[1], z=end[2])],
                       color=_ON_OBJECT if grasped else _ON_OTHER)
        arrow.header.stamp, arrow.header.frame_id = stamp, frame_id
        arrow.pose.orientation.w = 1.0
        arrow.scale.x, arrow.scale.y, arrow.scale.z = shaft, head, head_length
        msg.markers.append(arrow)
    return msg


def pad_contacts_from_msg(msg: PointCloud2) -> PadContacts:
    """Read a contacts PointCloud2 back.

    Raises:
        InputError: not the ``CONTACT_FIELDS`` layout, or non-finite values.
    """
    layout = [(f.name, f.offset, f.datatype) for f in msg.fields]
    expected = [(name, _CONTACT_DTYPE.fields[name][1],
                 PointField.FLOAT64 if i < 9 else PointField.INT32)
                for i, name in enumerate(CONTACT_FIELDS)]
    if layout != expected or msg.point_step != _CONTACT_DTYPE.itemsize or msg.is_bigendian:
        raise InputError(
            f'contacts cloud must have fields {" ".join(CONTACT_FIELDS)} (float64, then '
            f'int32) packed in {_CONTACT_DTYPE.itemsize} bytes, got '
            f'{" ".join(name for name, _, _ in layout)} in {msg.point_step}', 'wrong_layout')
    count = msg.width * msg.height
    if len(msg.data) != _CONTACT_DTYPE.itemsize * count:
        raise InputError(f'contacts cloud holds {len(msg.data)} bytes for {count} points',
                         'wrong_length')
    data = bytes(msg.data)
    points = np.frombuffer(data, dtype=_CONTACT_DTYPE)
    # the nine float64 fields lead each point: one view instead of nine columns
    values = np.frombuffer(data, '<f8').reshape(count, _CONTACT_DTYPE.itemsize // 8)[:, :9]
    if not np.isfinite(values).all():
        raise InputError(f'contacts cloud holds {np.count_nonzero(~np.isfinite(values))} '
                         'non-finite values', 'not_finite')
    return PadContacts(values[:, 0:3], values[:, 3:6], values[:, 6:9], points['body1'],
                       points['body2'], time_from_msg(msg.header.stamp))


def body_names_to_msg(names: Sequence[str]) -> String:
    """Build the table of body names by id: one name a line, line i = body id i."""
    return String(data='\n'.join(names))


def body_names_from_msg(msg: String) -> tuple[str, ...]:
    """Read the table of body names by id back."""
    return tuple(msg.data.split('\n'))
