"""The ``recorder`` node: every topic of the graph, as it travelled, into an MCAP file."""

from __future__ import annotations

import datetime
import sys

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.interfaces import diagnostics, subscribes
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import message_class, qos_profile
from grasp_monitor.nodes.recorder_parameters import PARAMETERS
from grasp_monitor.nodes.topic_names import resolved
from grasp_monitor.recording import (
    HoldingWriter, MAX_HELD, McapRecordingWriter, offered_qos, TopicSelection)
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy


INTERFACES = (
    diagnostics('messages per topic, topics skipped, messages held until the first /clock '
                '(1 Hz of wall time)'),
    subscribes('*', '*', 'offered', 'each selected topic, raw, as its publishers appear'),
)


class RecorderNode(Node):
    """Record topics to an MCAP file (``ros2`` profile, CDR as received, ``ros2msg`` schemas).

    Every selected topic is subscribed to raw, with the reliability and durability its
    publishers offer (re-discovered every ``discovery_period``). Log time is the receive
    time on the node clock (simulated time under ``use_sim_time``: see ``HoldingWriter``);
    publish time the message's header stamp (or the stamp it starts with), else the log
    time.
    The file is finished (summary, indexes, footer) when the node is destroyed.
    Parameters: ``recorder_parameters.PARAMETERS``; topics: ``INTERFACES``.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('recorder', **kwargs)
        p = declare(self, PARAMETERS)
        self.selection = TopicSelection(resolved(self, p.topics),
                                        resolved(self, p.exclude))
        self.depth = p.depth
        path = p.path or datetime.datetime.now(datetime.timezone.utc).strftime(
            'recording_%Y%m%d_%H%M%S.mcap')
        self.writer = McapRecordingWriter(path, p.compression)
        self.output = HoldingWriter(self.writer, self._now_ns)
        self.skipped: dict[str, str] = {}
        self.group = MutuallyExclusiveCallbackGroup()
        self.subscriptions_by_topic: dict[str, object] = {}
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        # wall-time timers: a paused simulation stops /clock, not discovery or diagnostics
        steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.create_timer(p.discovery_period, self._discover, callback_group=self.group,
                          clock=steady)
        diagnostics_timer(self, self._publish_diagnostics, self.group)
        self.get_logger().info(f'recording to {self.writer.path}')
        self._discover()

    def _skip(self, topic: str, reason: str) -> None:
        if self.skipped.get(topic) != reason:
            self.skipped[topic] = reason
            self.get_logger().warning(f'not recording {topic}: {reason}')

    def _discover(self) -> None:
        self.output.flush()
        for topic, types in self.get_topic_names_and_types():
            if topic in self.subscriptions_by_topic or not self.selection.wants(topic):
                continue
            if len(types) != 1:
                self._skip(topic, f'several types: {", ".join(types)}')
                continue
            publishers = self.get_publishers_info_by_topic(topic)
            if not publishers:
                continue  # only subscribers so far: nothing to record
            qos = offered_qos(
                [i.qos_profile.reliability == ReliabilityPolicy.RELIABLE for i in publishers],
                [i.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
                 for i in publishers], self.depth)  # discovery does not carry depths
            try:
                msg_type = message_class(types[0])
                self.output.add_topic(topic, types[0], qos)
            except ConfigError as error:
                self._skip(topic, str(error))
                continue
            self.skipped.pop(topic, None)
            self.subscriptions_by_topic[topic] = self.create_subscription(
                msg_type, topic, lambda data, topic=topic: self._write(topic, data),
                qos_profile(qos, qos.depth), callback_group=self.group, raw=True)
            self.get_logger().info(f'recording {topic} ({types[0]})')

    def _now_ns(self) -> int | None:
        """Return the node clock's time, ns; None on simulated time before any /clock."""
        clock = self.get_clock()
        now_ns = clock.now().nanoseconds
        return None if now_ns == 0 and clock.ros_time_is_active else now_ns

    def _write(self, topic: str, data: bytes) -> None:
        if not self.output.write(topic, data):
            self.get_logger().warning(f'no /clock yet: {MAX_HELD} messages held, dropping more',
                                      throttle_duration_sec=5.0)

    def _publish_diagnostics(self) -> None:
        values = self.output.diagnostics()
        values.update({f'skipped.{topic}': why for topic, why in sorted(self.skipped.items())})
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: recording',
            'WARN' if self.skipped else 'OK',
            f'{values["messages"]} messages on {values["topics"]} topics', values)]
        self.diag_pub.publish(msg)

    def close(self) -> None:
        """Finish the file; later messages are dropped."""
        held = self.output.close()
        if held:
            self.get_logger().warning(f'no /clock came: {held} messages written at time 0')

    def destroy_node(self) -> None:
        """Finish the file before the node goes."""
        self.close()
        self.get_logger().info(
            f'wrote {sum(self.writer.counts.values())} messages to {self.writer.path}')
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Run the node until SIGINT or SIGTERM, then finish the file and exit 0."""
    return run_node(RecorderNode, args)


if __name__ == '__main__':
    sys.exit(main())
