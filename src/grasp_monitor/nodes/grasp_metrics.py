"""The ``grasp_metrics`` node: energy metric, grasp quality and criteria on ``/diagnostics``."""

from __future__ import annotations

import sys

from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.metrics import TrialMetrics
from grasp_monitor.core.metrics.feed import MetricsFeed
from grasp_monitor.core.monitor import EventRecord
from grasp_monitor.core.pad_contacts import ObjectContacts
from grasp_monitor.core.quality import compile_kernel
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.grasp_metrics_parameters import metrics_config, PARAMETERS
from grasp_monitor.nodes.input_refusals import log_refused_stamps
from grasp_monitor.nodes.input_watch import InputWatch
from grasp_monitor.nodes.interfaces import diagnostics, publishes, subscribes
from grasp_monitor.nodes.lost_inputs import follow_sources
from grasp_monitor.nodes.metrics_output import MetricsOutput
from grasp_monitor.nodes.pad_inputs import PAD_INPUTS, subscribe_pads
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import EVENTS_QOS, sensor_qos
from grasp_monitor.nodes.subscription import subscribe
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
    Parameters: ``grasp_metrics_parameters.PARAMETERS``; topics: ``INTERFACES``.
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
        topics = tuple(p.contacts if name == 'contacts' else name if '/' in name
                       else f'ground_truth/{name}' for name in self.feed.names)
        log_refused_stamps(self, self.feed.grid, topics)
        follow_sources(self, self.feed.grid, topics)
        self.watch = InputWatch(self, [f'ground_truth/{body}' for body in (p.object, *p.pads)]
                                + ([p.contacts] if self.contacts is not None
                                   else [f'tactile/{pad}' for pad in p.pads]), 1.0 / p.rate)
        self.refused, self.contacts_topic = self.watch.refused, p.contacts
        group = MutuallyExclusiveCallbackGroup()
        qos = sensor_qos(p.qos_best_effort, p.qos_depth)
        self.output = MetricsOutput(self, self.feed, self.watch)
        for body in (p.object, *p.pads):
            subscribe(self, Odometry, f'ground_truth/{body}',
                      lambda m, b=body: self._on_body(b, m), qos,
                      callback_group=group, raw=True)
        subscribe_pads(self, self.refused, p.contacts, self.contacts, p.pads, qos, group,
                       self._contacts_in, self._on_pad)
        subscribe(self, DiagnosticStatus, 'grasp_monitor/events', self._on_event,
                  EVENTS_QOS, callback_group=group)
        diagnostics_timer(self, self.output.publish_diagnostics, group)

    def _on_body(self, body: str, raw: bytes) -> None:
        state = self.watch.read(f'ground_truth/{body}', lambda: conversions.
                                body_state_from_odometry(conversions.read_message(raw, Odometry)))
        if state is not None:
            self.feed.add_body(body, state)
            self._sample()

    def _on_pad(self, pad: str, msg: PointCloud2) -> None:
        cloud = self.watch.read(f'tactile/{pad}', lambda: conversions.tactile_cloud_from_msg(msg))
        if cloud is not None:
            self.feed.add_taxels(pad, *cloud)
            self._sample()

    def _contacts_in(self, contacts) -> None:
        self.watch.heard(self.contacts_topic)
        self.feed.add_contacts(contacts)
        self._sample()

    def latest(self, name: str):
        """Return the latest reading of an input (a body or tactile/<pad>), None before one."""
        return self.feed.latest(name)

    def _on_event(self, msg: DiagnosticStatus) -> None:
        record = self.watch.read('grasp_monitor/events', lambda: EventRecord.from_strings(
            {kv.key: kv.value for kv in msg.values}), stream='')
        if record is not None:
            self.output.publish(*self.feed.add_record(record))

    def _sample(self) -> None:
        for point in self.feed.due():
            try:
                self.output.publish(*self.feed.take(point))
                self.output.publish_quality(point.time_s)
            except GraspMonitorError as error:  # bad readings: wait for the next trial
                self.get_logger().warning(f'metrics sample dropped: {error}',
                                          throttle_duration_sec=1.0)


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(GraspMetricsNode, args)


if __name__ == '__main__':
    sys.exit(main())
