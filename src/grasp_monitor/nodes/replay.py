"""The ``replay`` node: plays an MCAP recording on the topics it was recorded on."""

from __future__ import annotations

import sys
import threading

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.interfaces import diagnostics, publishes, service
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import message_class, qos_profile, SERVICE_QOS
from grasp_monitor.nodes.replay_parameters import PARAMETERS
from grasp_monitor.nodes.topic_names import resolved
from grasp_monitor.recording import PlaybackConfig, Player, TopicSelection
from rcl_interfaces.msg import SetParametersResult
from rclpy._rclpy_pybind11 import RCLError
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from std_srvs.srv import SetBool


INTERFACES = (
    publishes('*', '*', 'offered', 'each selected recorded topic, as recorded'),
    publishes('/clock', 'rosgraph_msgs/msg/Clock', 'default',
              "the recording's, else one made from its log times at `clock_rate`"),
    diagnostics('state, clock, messages played per topic (wall time)'),
    service('~/pause', 'std_srvs/srv/SetBool', 'pause (true) or resume (false)'),
)


class ReplayNode(Node):
    """Play a recording's messages as they were recorded (the CDR bytes), with its own clock.

    Every selected recorded topic goes out with the reliability and durability its
    publishers offered (and the recorded depth if transient local); ``/clock`` is the
    recorded one if there is one, else made from the log times at ``clock_rate`` (never
    both). At the end it says so (log, diagnostics) and stays up, or exits with
    ``exit_when_done``.
    Parameters: ``replay_parameters.PARAMETERS``; topics and services: ``INTERFACES``.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('replay', **kwargs)
        p = declare(self, PARAMETERS)
        if not p.path:
            raise ConfigError('path must name the MCAP file to play')
        self.config = PlaybackConfig(
            TopicSelection(resolved(self, p.topics), resolved(self, p.exclude)),
            p.rate, p.loop, self.resolve_topic_name('/clock'),
            int(round(1e9 / p.clock_rate))
            if p.clock_rate > 0 else 0)
        self.exit_when_done = p.exit_when_done
        self.player = Player(p.path, self.config, self._publish, self._publish_clock)
        self.player.set_paused(p.start_paused)
        self._set_pause_at(p.pause_at)
        self.add_on_set_parameters_callback(self._on_set)
        self.pubs = {}
        for topic, info in self.player.played.items():
            # transient local keeps what was offered for late joiners; others a deep
            # history, so a subscriber slowed by a loaded machine still gets every message
            depth = info.qos.depth if info.qos.transient_local else max(p.depth,
                                                                        info.qos.depth)
            self.pubs[topic] = self.create_publisher(
                message_class(info.type_name), topic, qos_profile(info.qos, depth))
        self.clock_pub = None if self.player.recorded_clock or not self.config.clock_period_ns \
            else self.create_publisher(Clock, '/clock', 10)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_service(SetBool, '~/pause', self._on_pause, qos_profile=SERVICE_QOS)
        diagnostics_timer(self, self._publish_diagnostics)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _publish(self, topic: str, data: bytes) -> None:
        self.pubs[topic].publish(data)

    def _publish_clock(self, time_ns: int) -> None:
        if self.clock_pub is not None:
            # from integer ns: seconds as a float lose nanoseconds on a robot's epoch clock
            self.clock_pub.publish(Clock(clock=Time(sec=time_ns // 1_000_000_000,
                                                    nanosec=time_ns % 1_000_000_000)))

    def _run(self) -> None:
        self.get_logger().info(f'playing {len(self.player.played)} topics of '
                               f'{self.player.path}')
        try:
            self.player.run()
        except RCLError:
            if self.context.ok():
                raise
            return  # shut down while publishing
        if self.player.state == 'done':
            self.get_logger().info(
                f'replay done: {sum(self.player.counts.values())} messages played')
            self._publish_diagnostics()
            if self.exit_when_done:
                self.context.try_shutdown()

    def _set_pause_at(self, time_s: float) -> None:
        self.player.pause_at(self.player.start_ns + int(round(time_s * 1e9))
                             if time_s >= 0 else None)

    def _on_set(self, parameters: list) -> SetParametersResult:
        for parameter in parameters:
            if parameter.name == 'pause_at':
                self._set_pause_at(parameter.value)
        return SetParametersResult(successful=True)

    def _on_pause(self, request: SetBool.Request, response: SetBool.Response):
        self.player.set_paused(request.data)
        response.success = True
        response.message = 'paused' if request.data else 'playing'
        return response

    def _publish_diagnostics(self) -> None:
        player = self.player
        clock_ns = player.clock_ns
        values: dict[str, object] = {
            'state': player.state, 'path': player.path,
            'clock_s': f'{clock_ns * 1e-9:.9f}' if clock_ns is not None else '',
            'messages': sum(player.counts.values()), 'late': player.late}
        values.update({f'messages.{topic}': n for topic, n in sorted(player.counts.items())})
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: replay', 'OK', player.state, values)]
        self.diag_pub.publish(msg)

    def destroy_node(self) -> None:
        """Stop playing before the node goes."""
        self.player.stop()
        self.thread.join(timeout=5.0)
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(ReplayNode, args)


if __name__ == '__main__':
    sys.exit(main())
