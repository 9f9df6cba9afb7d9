"""Where the ``grasp_metrics`` node's results go: energy, epsilon, reward, ``/diagnostics``."""

from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.core.metrics.feed import MetricsFeed
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.input_watch import InputWatch
from grasp_monitor.nodes.qos import sensor_qos
from rclpy.node import Node


class MetricsOutput:
    """Publish the feed's energies, grasp qualities and rewards, and the node's status."""

    def __init__(self, node: Node, feed: MetricsFeed, watch: InputWatch) -> None:
        self.node, self.feed, self.watch = node, feed, watch
        # Energies come in bursts when the metrics catch up: deep enough for a recorder.
        self.energy_pub = node.create_publisher(Vector3Stamped, 'grasp_metrics/energy',
                                                sensor_qos(False, 1000))
        self.epsilon_pub = node.create_publisher(Vector3Stamped, 'grasp_metrics/epsilon',
                                                 sensor_qos(False, 1000))
        self.reward_pub = node.create_publisher(Vector3Stamped, 'grasp_metrics/reward', 10)
        self.diag_pub = node.create_publisher(DiagnosticArray, '/diagnostics', 10)

    def publish(self, energies, reports) -> None:
        """Publish each energy (stamped with its sample), each trial's reward (stamped now)."""
        for energy in energies:
            self.energy_pub.publish(conversions.stamped_value_to_msg(
                energy.max_energy_j, conversions.time_to_msg(energy.time_s)))
        for report in reports:
            self.reward_pub.publish(conversions.stamped_value_to_msg(
                report.total, self.node.get_clock().now().to_msg()))
        if reports:  # now: a paused simulator stops the 1 Hz timer on simulated time
            self.publish_diagnostics()

    def publish_quality(self, time_s: float) -> None:
        """Publish the grasp quality of the sample at ``time_s`` (none: nothing)."""
        quality = self.feed.quality(time_s)
        if quality is not None:
            self.epsilon_pub.publish(conversions.stamped_vector_to_msg(
                (quality.l1, quality.linf, quality.contacts), conversions.time_to_msg(time_s)))

    def publish_diagnostics(self) -> None:
        """Publish the energy's, the grasp quality's and the criteria's status, and the inputs'."""
        name = self.node.get_fully_qualified_name()
        level, message, values = self.feed.energy_status()
        # an energy of readings that stopped coming is no news that the grasp holds
        silent = self.watch.silent()
        if silent and level == 'OK':
            level, message = 'STALE', 'stale input: ' + ', '.join(silent)
        statuses = [
            conversions.diagnostic_status(f'{name}: energy', level, message,
                                          values | self.watch.counts()),
            conversions.diagnostic_status(f'{name}: grasp quality', *self.feed.quality_status())]
        criteria = self.feed.criteria_status()
        if criteria is not None:
            statuses.append(conversions.diagnostic_status(f'{name}: criteria', 'OK', *criteria))
        self.diag_pub.publish(self.watch.array(statuses))
