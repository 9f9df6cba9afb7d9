"""The ``grasp_metrics`` node: energy metric, grasp quality and criteria on ``/diagnostics``."""

from __future__ import annotations

from collections import Counter
import sys

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.metrics import TrialMetrics
from grasp_monitor.core.metrics.feed import MetricsFeed
from grasp_monitor.core.monitor import EventRecord
from grasp_monitor.core.pad_contacts import ObjectContacts
from grasp_monitor.core.quality import compile_kernel
from grasp_monitor.core.streams import StreamWatch
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics import diagnostics_timer, stream_statuses, wall_now_s
from grasp_monitor.nodes.grasp_metrics_parameters import metrics_config, PARAMETERS
from grasp_monitor.nodes.inputs import (
    follow_sources, log_refused_stamps, lost_counts, PAD_INPUTS, read_input, refusal_counts,
    subscribe, subscribe_pads)
from grasp_monitor.nodes.interfaces import diagnostics, publishes, subscribes
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import EVENTS_QOS, sensor_qos
from nav_msgs.msg import Odometry
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import PointCloud2


INTERFACES = (
    publishes('grasp_metrics/energy', 'geometry_msgs/msg/Vector3Stamped', 'deep',
              'energy metric, J, in `vector.x`, every sample in a trial, stamped with '
              "the sample's time"),
    publishes('grasp_metrics/epsilon', 'geometry_msgs/msg/Vector3Stamped', 'deep',
              'grasp quality, every sample: Ferrari–Canny epsilon L1 in `vector.x`, L∞ in '
              '`vector.y` (NaN: not the `epsilon.variant`), the contacts in `vector.z`, '
              "stamped with the sample's time"),
    publishes('grasp_metrics/reward', 'geometry_msgs/msg/Vector3Stamped', 'default',
              'weighted total of the criteria in `vector.x`, at each trial end, stamped '
              'when it is known (node clock)'),
    diagnostics('energy OK/WARN/ERROR against the thresholds; the grasp quality (epsilon, '
                'why 0); each criterion, the reward, their trial and its samples, their '
                'basis (contacts or taxels (estimate)); each input stream OK or STALE (1 Hz '
                'of wall time)'),
    subscribes('ground_truth/<body>', 'nav_msgs/msg/Odometry', 'sensor',
               '`object` and each of `pads`'),
    *PAD_INPUTS,
    subscribes('grasp_monitor/events', 'diagnostic_msgs/msg/DiagnosticStatus', 'events',
               'trial start and end, grasp'),
)


class GraspMetricsNode(Node):
    """Compute the energy and the grasp quality every sample, the criteria after each trial.

    Samples are taken on the grid of stamps ``k / rate``: see ``core.metrics.feed``.

    Parameters: see ``grasp_metrics_parameters.PARAMETERS``.
    Publishes: ``grasp_metrics/energy`` (Vector3Stamped: J in ``vector.x``, every sample
    in a trial, stamped with the sample's time), ``grasp_metrics/epsilon`` (Vector3Stamped:
    epsilon L1, L∞ and the contacts, every sample), ``grasp_metrics/reward`` (Vector3Stamped:
    weighted total in ``vector.x``, at each trial end, stamped with the node clock: the
    simulated time it became known under ``use_sim_time``), ``/diagnostics``
    (1 Hz: energy with OK/WARN/ERROR against the thresholds, the grasp quality, each
    criterion, the reward, their trial and its samples).
    Subscribes: ``ground_truth/<object>``, ``ground_truth/<pad>`` (Odometry),
    ``<contacts>`` (PointCloud2) and ``<contacts>/bodies`` (String), or without them
    ``tactile/<pad>`` (PointCloud2), ``grasp_monitor/events`` (trial start and end, grasp).
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('grasp_metrics', **kwargs)
        p = declare(self, PARAMETERS)
        self.config = metrics_config(p)
        # now, not at a trial's first contact: a compile there left the 1 kHz inputs to pile
        # up for seconds and be lost (the demo's criteria came from the wrong samples)
        compile_kernel(self.config.epsilon)
        self.metrics = TrialMetrics(self.config)
        self.contacts = ObjectContacts(p.object, p.pads) if p.contacts else None
        self.feed = MetricsFeed(self.metrics, self.contacts,
                                (p.energy_warn, p.energy_threshold))
        self.refused: Counter[str] = Counter()
        topics = tuple(p.contacts if name == 'contacts' else name if '/' in name
                       else f'ground_truth/{name}' for name in self.feed.names)
        log_refused_stamps(self, self.feed.grid, topics)
        follow_sources(self, self.feed.grid, topics)
        # each input is due at least once a sample; silent 10 samples (>= 0.5 s): STALE
        inputs = [f'ground_truth/{body}' for body in (p.object, *p.pads)] + (
            [p.contacts] if self.contacts is not None
            else [f'tactile/{pad}' for pad in p.pads])
        self.contacts_topic = p.contacts
        self.streams = StreamWatch(dict.fromkeys(inputs, 1.0 / p.rate))
        group = MutuallyExclusiveCallbackGroup()
        qos = sensor_qos(p.qos_best_effort, p.qos_depth)
        # Energies come in bursts when the metrics catch up: deep enough for a recorder.
        self.energy_pub = self.create_publisher(Vector3Stamped, 'grasp_metrics/energy',
                                                sensor_qos(False, 1000))
        self.epsilon_pub = self.create_publisher(Vector3Stamped, 'grasp_metrics/epsilon',
                                                 sensor_qos(False, 1000))
        self.reward_pub = self.create_publisher(Vector3Stamped, 'grasp_metrics/reward', 10)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        for body in (p.object, *p.pads):
            subscribe(self, Odometry, f'ground_truth/{body}',
                      lambda m, b=body: self._on_body(b, m), qos,
                      callback_group=group, raw=True)
        subscribe_pads(self, self.refused, p.contacts, self.contacts, p.pads, qos, group,
                       self._contacts_in, self._on_pad)
        subscribe(self, DiagnosticStatus, 'grasp_monitor/events', self._on_event,
                  EVENTS_QOS, callback_group=group)
        diagnostics_timer(self, self._publish_diagnostics, group)

    def _on_body(self, body: str, raw: bytes) -> None:
        state = read_input(self, self.refused, f'ground_truth/{body}',
                           lambda: conversions.body_state_from_odometry(
                               conversions.read_message(raw, Odometry)))
        if state is not None:
            self.streams.heard(f'ground_truth/{body}', wall_now_s())
            self.feed.add_body(body, state)
            self._sample()

    def _on_pad(self, pad: str, msg: PointCloud2) -> None:
        cloud = read_input(self, self.refused, f'tactile/{pad}',
                           lambda: conversions.tactile_cloud_from_msg(msg))
        if cloud is not None:
            self.streams.heard(f'tactile/{pad}', wall_now_s())
            self.feed.add_taxels(pad, *cloud)
            self._sample()

    def _contacts_in(self, contacts) -> None:
        self.streams.heard(self.contacts_topic, wall_now_s())
        self.feed.add_contacts(contacts)
        self._sample()

    def latest(self, name: str):
        """Return the latest reading of an input (a body or tactile/<pad>), None before one."""
        return self.feed.latest(name)

    def _on_event(self, msg: DiagnosticStatus) -> None:
        record = read_input(self, self.refused, 'grasp_monitor/events',
                            lambda: EventRecord.from_strings({kv.key: kv.value
                                                              for kv in msg.values}))
        if record is not None:
            self._publish(*self.feed.add_record(record))

    def _sample(self) -> None:
        for point in self.feed.due():
            try:
                self._publish(*self.feed.take(point))
                quality = self.feed.quality(point.time_s)
                if quality is not None:
                    self.epsilon_pub.publish(conversions.stamped_vector_to_msg(
                        (quality.l1, quality.linf, quality.contacts),
                        conversions.time_to_msg(point.time_s)))
            except GraspMonitorError as error:  # bad readings: wait for the next trial
                self.get_logger().warning(f'metrics sample dropped: {error}',
                                          throttle_duration_sec=1.0)

    def _publish(self, energies, reports) -> None:
        for energy in energies:
            self.energy_pub.publish(conversions.stamped_value_to_msg(
                energy.max_energy_j, conversions.time_to_msg(energy.time_s)))
        for report in reports:
            self.reward_pub.publish(conversions.stamped_value_to_msg(
                report.total, self.get_clock().now().to_msg()))
        if reports:  # now: a paused simulator stops the 1 Hz timer on simulated time
            self._publish_diagnostics()

    def _publish_diagnostics(self) -> None:
        name = self.get_fully_qualified_name()
        level, message, values = self.feed.energy_status()
        # an energy of readings that stopped coming is no news that the grasp holds
        silent = [s.name for s in self.streams.statuses(wall_now_s()) if s.stale]
        if silent and level == 'OK':
            level, message = 'STALE', 'stale input: ' + ', '.join(silent)
        statuses = [conversions.diagnostic_status(
            f'{name}: energy', level, message,
            values | refusal_counts(self.refused, 'refused_inputs') | lost_counts(self)),
            conversions.diagnostic_status(f'{name}: grasp quality', *self.feed.quality_status())]
        criteria = self.feed.criteria_status()
        if criteria is not None:
            statuses.append(conversions.diagnostic_status(f'{name}: criteria', 'OK', *criteria))
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = statuses + stream_statuses(self, self.streams)
        self.diag_pub.publish(msg)


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(GraspMetricsNode, args)


if __name__ == '__main__':
    sys.exit(main())
