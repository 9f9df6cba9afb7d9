"""The ``grasp_monitor`` node: service-triggered grasp, slip and timeout monitors."""

from __future__ import annotations

import sys

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.monitor import EventLog, GraspMonitor, MonitorInputs
from grasp_monitor.core.monitor.stamp_grid import stamp_counts
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.grasp_monitor_parameters import (
    inputs_config, monitor_config, PARAMETERS)
from grasp_monitor.nodes.input_refusals import log_refused_stamps
from grasp_monitor.nodes.input_watch import InputWatch
from grasp_monitor.nodes.interfaces import calls, diagnostics, publishes, service, subscribes
from grasp_monitor.nodes.lost_inputs import follow_sources
from grasp_monitor.nodes.monitor_output import MonitorOutput
from grasp_monitor.nodes.monitor_services import TrialServices
from grasp_monitor.nodes.monitor_subscriptions import input_topics, MonitorSubscriptions
from grasp_monitor.nodes.monitor_verdicts import MonitorVerdicts
from grasp_monitor.nodes.pad_inputs import PAD_INPUTS
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node

INTERFACES = (
    publishes('grasp_monitor/events', 'diagnostic_msgs/msg/DiagnosticStatus', 'events',
              'one per event: name = event, values = time, trial, step, details'),
    publishes('grasp_monitor/verdicts', 'diagnostic_msgs/msg/DiagnosticArray', 'verdicts',
              'one per sample, stamped with it: message = what it asks of `simulator` '
              '(CONTINUE, ACTIVATE or STOP), next_s = the next sample; a lockstep '
              'simulator waits for it'),
    publishes('grasp_monitor/holding', 'std_msgs/msg/Bool', 'latched',
              'the object is held: true at grasp, false at slip_out and trial_end (and at '
              'start)'),
    publishes('grasp_monitor/markers', 'visualization_msgs/msg/MarkerArray', 'latched',
              "the trial's events as text (type, time) above the object (its latest "
              'ground truth, frame world), else above the first pad (its frame)'),
    diagnostics('monitor status: stale or fresh input, pad forces, basis (contacts or '
                'taxels (estimate)); each input stream OK or STALE (1 Hz of wall time)'),
    *PAD_INPUTS,
    subscribes('ground_truth/<object>', 'nav_msgs/msg/Odometry', 'sensor',
               "the object's speed", when='object'),
    subscribes('joint_states', 'sensor_msgs/msg/JointState', 'sensor',
               'speeds of `finger_joints`'),
    subscribes('/tf', 'tf2_msgs/msg/TFMessage', 'tf',
               "body poses: the pads' distances from `base_frame`", when='base_frame'),
    subscribes('/tf_static', 'tf2_msgs/msg/TFMessage', 'tf_static',
               'fixed body poses, as /tf', when='base_frame'),
    service('grasp_monitor/start', 'std_srvs/srv/Trigger', 'start a trial; message: its id'),
    service('grasp_monitor/stop', 'std_srvs/srv/Trigger',
            "stop the trial; message: JSON summary of the trial's events"),
    service('grasp_monitor/<event>/enable', 'std_srvs/srv/SetBool', 'each of `events`'),
    service('grasp_monitor/tare', 'std_srvs/srv/Trigger',
            "learn the pads' zero again from their next `tare_time` of readings (taxels)"),
    calls('<simulator>/external_force/start', 'std_srvs/srv/Trigger', 'on a grasp',
          when='simulator'),
    calls('<simulator>/external_force/stop', 'std_srvs/srv/Trigger', 'at the end of a trial',
          when='simulator'),
)


class GraspMonitorNode(Node):
    """Run the grasp events on tactile, ground-truth and joint inputs, trial by trial.

    Samples are taken on the grid of stamps ``k / rate`` from the inputs stamped up to
    each, once every input has reached it, or as stale once the clock passed it by
    ``max_sample_age``: the events depend on the messages' stamps, not on when they came.
    Every record is appended to ``event_log`` and flushed before it is published.
    Parameters: ``grasp_monitor_parameters.PARAMETERS``; topics and services: ``INTERFACES``.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('grasp_monitor', **kwargs)
        p = declare(self, PARAMETERS)
        self.inputs = MonitorInputs(inputs_config(p))
        self.topics = input_topics(p)
        self.period_s = 1.0 / p.rate
        topics = tuple(self.topics[name] for name in self.inputs.names())
        self.watch = InputWatch(self, topics, self.period_s)
        self.refused = self.watch.refused
        log_refused_stamps(self, self.inputs.grid, topics)
        # /tf has many publishers by design: a new one there is no restart
        follow_sources(self, self.inputs.grid, tuple(t if t != '/tf' else '' for t in topics))
        # ids go on from the log's last trial, so the log reads as one history
        last_trial, read = EventLog.last_trial_id(p.event_log)
        self.get_logger().info(f'{read}; the next trial is {last_trial + 1}')
        self.monitor = GraspMonitor(monitor_config(p), last_trial_id=last_trial)
        self.output = MonitorOutput(self, p.event_log, p.pads[0] if p.pads else 'world')
        group = MutuallyExclusiveCallbackGroup()  # the monitor is not thread-safe
        self.verdicts = MonitorVerdicts(self, p.simulator, self.period_s)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.readers = MonitorSubscriptions(self, p, self.inputs, self.watch, self.output,
                                            group, self._evaluate)
        self.trial_services = TrialServices(self, self.monitor, self.inputs, self.output,
                                            self.verdicts, self._waiting_for, group)
        # samples are due as inputs arrive; the timer only finds those the clock left behind
        self.create_timer(self.period_s, lambda: self._evaluate(self._now_s()),
                          callback_group=group)
        diagnostics_timer(self, self._publish_diagnostics, group)

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _evaluate(self, now_s: float | None = None) -> None:
        """Run the monitor on every sample owed; with ``now_s``, declare late ones stale."""
        for sample in self.inputs.due(now_s):
            update = self.monitor.update(sample)
            self.output.emit(update.records)
            self.verdicts.send(sample.time_s, sample.stale, update.command)

    def _publish_diagnostics(self) -> None:
        values = self.monitor.diagnostics() | self.inputs.diagnostics() | self.watch.counts()
        values.update(stamp_counts(self.inputs.grid), waiting_for=self._waiting_for())
        # silent on wall time: a paused or dead simulator stops the clock the sample reads
        silent = self.watch.silent()
        stale = bool(silent) or self.inputs.sample(self._now_s()).stale
        self.diag_pub.publish(self.watch.array([conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: monitor', 'STALE' if stale else 'OK',
            ('stale input: ' + ', '.join(silent) if silent else 'stale input') if stale
            else 'fresh input', values)]))

    def _waiting_for(self) -> str:
        return ', '.join(self.topics[name] for name in self.inputs.missing())

    def destroy_node(self) -> None:
        """Close the event log."""
        self.output.log.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(GraspMonitorNode, args)


if __name__ == '__main__':
    sys.exit(main())
