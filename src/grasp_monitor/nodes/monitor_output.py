"""Where the ``grasp_monitor`` node's records go: its log, its events and their markers."""

from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.core.monitor import EventLog
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.holding import HoldingPublisher
from grasp_monitor.nodes.qos import EVENTS_QOS, LATCHED_QOS
import numpy as np
from rclpy.node import Node
from visualization_msgs.msg import MarkerArray

#: Level of each record kind on grasp_monitor/events (others are OK).
EVENT_LEVELS = {'contact_timeout': 'WARN', 'slip_out': 'WARN', 'grasp_timeout': 'WARN',
                'flying_apart': 'ERROR', 'sensor_stale': 'STALE'}


class MonitorOutput:
    """Append records to the JSON-lines log (flushed), then publish them, trial by trial.

    Each record goes out on ``grasp_monitor/events``; the trial's records so far, as text
    above the object (``anchor``: its latest pose, else the first pad), on the latched
    ``grasp_monitor/markers``.
    """

    def __init__(self, node: Node, log_path: str, anchor_frame: str) -> None:
        self.node = node
        self.log = EventLog(log_path)
        #: the open trial's records, as their strings
        self.records: list[dict[str, str]] = []
        #: (frame, position in it) the events are written above
        self.anchor = (anchor_frame, np.zeros(3))
        self.events_pub = node.create_publisher(DiagnosticStatus, 'grasp_monitor/events',
                                                EVENTS_QOS)
        self.markers_pub = node.create_publisher(MarkerArray, 'grasp_monitor/markers',
                                                 LATCHED_QOS)
        self.holding = HoldingPublisher(node)

    def emit(self, records) -> None:
        """Log ``records`` (flushed first: a killed node loses nothing published), publish them."""
        self.log.append(records)
        for record in records:
            values = record.as_strings()
            self.holding.update(record.kind)
            self.records.append(values)
            self.events_pub.publish(conversions.diagnostic_status(
                record.kind, EVENT_LEVELS.get(record.kind, 'OK'), record.command.value,
                values, self.node.get_name()))
        if records:  # the whole trial each time: the latched last one shows it all
            self.markers_pub.publish(conversions.event_markers_to_msg(
                self.records, [EVENT_LEVELS.get(r['type'], 'OK') for r in self.records],
                *self.anchor, float(self.records[-1]['time_s'])))
