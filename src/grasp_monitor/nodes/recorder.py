"""The ``recorder`` node: every topic of the graph, as it travelled, into an MCAP file."""

from __future__ import annotations

import datetime
import sys
import threading

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.inputs import resolved
from grasp_monitor.nodes.interfaces import diagnostics, subscribes
from grasp_monitor.nodes.params import choice_checker, declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import message_class, qos_profile
from grasp_monitor.nodes.recorder_parameters import PARAMETERS
from grasp_monitor.recording import McapRecordingWriter, offered_qos, TopicSelection
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy


INTERFACES = (
    diagnostics('messages per topic, topics skipped, messages held until the first /clock '
                '(1 Hz of wall time)'),
    subscribes('*', '*', 'offered', 'each selected topic, raw, as its publishers appear'),
)
#: Messages held while a node on simulated time waits for its first /clock.
MAX_HELD = 100_000


class RecorderNode(Node):
    """Record topics to an MCAP file (``ros2`` profile, CDR as received, ``ros2msg`` schemas).

    Parameters: see ``recorder_parameters.PARAMETERS`` (path, topics, exclude, depth,
    compression, discovery_period).
    Subscribes: every selected topic, raw, with the reliability and durability its
    publishers offer (re-discovered every ``discovery_period``).
    Publishes: ``/diagnostics`` (1 Hz of wall time: messages per topic, topics skipped).
    Log time is the receive time on the node clock (simulated time under
    ``use_sim_time``); publish time the message's header stamp (or the stamp it starts
    with), else the log time. Under ``use_sim_time`` the messages received before the
    first ``/clock`` (transient-local ones, say) are held and written when it comes, at
    its time; any still held at the end are written at time 0.
    The file is finished (summary, indexes, footer) when the node is destroyed.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('recorder', **kwargs)
        p = declare(self, PARAMETERS)
        self.add_on_set_parameters_callback(choice_checker(PARAMETERS))
        self.selection = TopicSelection(resolved(self, p['topics']),
                                        resolved(self, p['exclude']))
        self.depth = p['depth']
        path = p['path'] or datetime.datetime.now(datetime.timezone.utc).strftime(
            'recording_%Y%m%d_%H%M%S.mcap')
        self.writer = McapRecordingWriter(path, p['compression'])
        self.lock = threading.Lock()  # the writer against the final close
        self.skipped: dict[str, str] = {}
        self.group = MutuallyExclusiveCallbackGroup()
        self.subscriptions_by_topic: dict[str, object] = {}
        self.held: list[tuple[str, bytes]] = []
        self.dropped_before_clock = 0
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        # wall-time timers: a paused simulation stops /clock, not discovery or diagnostics
        steady = Clock(clock_type=ClockType.STEADY_TIME)
        self.create_timer(p['discovery_period'], self._discover, callback_group=self.group,
                          clock=steady)
        self.create_timer(1.0, self._publish_diagnostics, callback_group=self.group,
                          clock=steady)
        self.get_logger().info(f'recording to {self.writer.path}')
        self._discover()

    def _skip(self, topic: str, reason: str) -> None:
        if self.skipped.get(topic) != reason:
            self.skipped[topic] = reason
            self.get_logger().warning(f'not recording {topic}: {reason}')

    def _discover(self) -> None:
        with self.lock:
            self._flush_held(self._now_ns())
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
                with self.lock:
                    self.writer.add_topic(topic, types[0], qos)
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

    def _flush_held(self, now_ns: int | None) -> None:
        """Write the held messages at ``now_ns`` (nothing while it is None); under the lock."""
        if now_ns is not None and self.held and not self.writer.closed:
            for topic, data in self.held:
                self.writer.write(topic, data, now_ns)
            self.held.clear()

    def _write(self, topic: str, data: bytes) -> None:
        with self.lock:
            if self.writer.closed:
                return
            now_ns = self._now_ns()
            if now_ns is None:
                if len(self.held) < MAX_HELD:
                    self.held.append((topic, data))
                else:
                    self.dropped_before_clock += 1
                    self.get_logger().warning(
                        f'no /clock yet: {MAX_HELD} messages held, dropping more',
                        throttle_duration_sec=5.0)
                return
            self._flush_held(now_ns)
            self.writer.write(topic, data, now_ns)

    def _publish_diagnostics(self) -> None:
        counts = dict(self.writer.counts)
        values: dict[str, object] = {'path': self.writer.path, 'topics': len(counts),
                                     'messages': sum(counts.values()),
                                     'held_before_clock': len(self.held),
                                     'dropped_before_clock': self.dropped_before_clock}
        values.update({f'messages.{topic}': n for topic, n in sorted(counts.items())})
        values.update({f'skipped.{topic}': why for topic, why in sorted(self.skipped.items())})
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: recording',
            'WARN' if self.skipped else 'OK',
            f'{values["messages"]} messages on {len(counts)} topics', values)]
        self.diag_pub.publish(msg)

    def close(self) -> None:
        """Finish the file; later messages are dropped."""
        with self.lock:
            if self.held:
                self.get_logger().warning(
                    f'no /clock came: {len(self.held)} messages written at time 0')
                self._flush_held(0)
            self.writer.close()

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
