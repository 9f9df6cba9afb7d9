"""The monitor's events as rviz text markers above the object."""

from __future__ import annotations

from typing import Mapping, Sequence

from grasp_monitor.nodes.conversions.clock import time_to_msg
import numpy as np
from visualization_msgs.msg import Marker, MarkerArray

#: Marker namespace of the events.
EVENT_NAMESPACE = 'grasp_monitor/events'
#: Text height, m; lines this far apart, the lowest this far above the anchor.
TEXT_HEIGHT_M = 0.02
LINE_SPACING_M = 0.025
ABOVE_M = 0.06
#: Text colour (r, g, b) of each event level; others white.
_COLOURS = {'WARN': (1.0, 0.8, 0.1), 'ERROR': (1.0, 0.2, 0.2), 'STALE': (0.6, 0.6, 0.6)}


def event_text(record: Mapping[str, str]) -> str:
    """Return an event's label: its type and simulated time, s (3 decimals)."""
    return f'{record["type"]} {float(record["time_s"]):.3f} s'


def event_markers_to_msg(
    records: Sequence[Mapping[str, str]], levels: Sequence[str], frame_id: str,
    anchor: np.ndarray, time_s: float,
) -> MarkerArray:
    """Build the trial's events as TEXT_VIEW_FACING markers stacked above ``anchor``.

    The first marker deletes every earlier one (of a previous trial); then one text
    per event, oldest on top, the newest nearest the anchor. The whole trial travels in
    each message, so the last one alone (latched) shows it to a late viewer.

    Args:
        records: the trial's events as ``EventRecord.as_strings`` gives them.
        levels: each event's DiagnosticStatus level name (colour).
        frame_id: the anchor's frame (``world`` for the object's ground truth, else a pad).
        anchor: (3,) the point the texts stand above, m, in ``frame_id``.
        time_s: the markers' stamp, s.
    """
    stamp = time_to_msg(time_s)
    clear = Marker(ns=EVENT_NAMESPACE, action=Marker.DELETEALL)
    clear.header.stamp, clear.header.frame_id = stamp, frame_id
    msg = MarkerArray(markers=[clear])
    x, y, z = (float(v) for v in anchor)
    for i, (record, level) in enumerate(zip(records, levels)):
        marker = Marker(ns=EVENT_NAMESPACE, id=i, type=Marker.TEXT_VIEW_FACING,
                        action=Marker.ADD, text=event_text(record))
        marker.header.stamp, marker.header.frame_id = stamp, frame_id
        marker.pose.position.x, marker.pose.position.y = x, y
        marker.pose.position.z = z + ABOVE_M + LINE_SPACING_M * (len(records) - 1 - i)
        marker.pose.orientation.w = 1.0
        marker.scale.z = TEXT_HEIGHT_M
        marker.color.r, marker.color.g, marker.color.b = _COLOURS.get(level, (1.0, 1.0, 1.0))
        marker.color.a = 1.0
        msg.markers.append(marker)
    return msg
