"""``<monitor>/holding``: std_msgs/Bool, latched, true while the monitor says the object is held.

A node that sees the monitor's records (the monitor itself, or a node reading its
events) feeds their kinds to ``HoldingPublisher.update``; a late subscriber still gets
the current value (transient local).
"""

from __future__ import annotations

from grasp_monitor.core.monitor.holding import Holding
from grasp_monitor.nodes.qos import LATCHED_QOS
from rclpy.node import Node
from std_msgs.msg import Bool


class HoldingPublisher:
    """Publishes whether the object is held, each time it changes (false at start)."""

    def __init__(self, node: Node, topic: str = 'grasp_monitor/holding') -> None:
        self.state = Holding()
        self.publisher = node.create_publisher(Bool, topic, LATCHED_QOS)
        self.publisher.publish(Bool(data=False))

    def update(self, kind: str) -> None:
        """Take a monitor record's kind (or ``release``); publish the hold if it changed."""
        changed = self.state.update(kind)
        if changed is not None:
            self.publisher.publish(Bool(data=changed))
