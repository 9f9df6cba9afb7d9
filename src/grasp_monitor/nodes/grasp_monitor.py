"""The ``grasp_monitor`` node: service-triggered grasp, slip and timeout monitors."""

from __future__ import annotations

from collections import Counter
import json
import sys

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.frames import FrameTree
from grasp_monitor.core.monitor import Command, EventLog, GraspMonitor, MonitorInputs
from grasp_monitor.core.monitor.stamp_grid import stamp_counts
from grasp_monitor.core.pad_contacts import ObjectContacts
from grasp_monitor.core.streams import StreamWatch
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics import diagnostics_timer, stream_statuses, wall_now_s
from grasp_monitor.nodes.grasp_monitor_parameters import (
    inputs_config, monitor_config, PARAMETERS)
from grasp_monitor.nodes.inputs import (
    follow_sources, log_refused_stamps, lost_counts, PAD_INPUTS, read_input, refusal_counts,
    subscribe, subscribe_pads)
from grasp_monitor.nodes.interfaces import calls, diagnostics, publishes, service, subscribes
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import (
    EVENTS_QOS, LATCHED_QOS, sensor_qos, SERVICE_QOS, TF_QOS, TF_STATIC_LISTENER_QOS,
    VERDICTS_QOS)
from nav_msgs.msg import Odometry
import numpy as np
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import JointState, PointCloud2
from std_srvs.srv import SetBool, Trigger
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray

#: Level of each record kind on grasp_monitor/events (others are OK).
EVENT_LEVELS = {'contact_timeout': 'WARN', 'slip_out': 'WARN', 'grasp_timeout': 'WARN',
                'flying_apart': 'ERROR', 'sensor_stale': 'STALE'}

INTERFACES = (
    publishes('grasp_monitor/events', 'diagnostic_msgs/msg/DiagnosticStatus', 'events',
              'one per event: name = event, values = time, trial, step, details'),
    publishes('grasp_monitor/verdicts', 'diagnostic_msgs/msg/DiagnosticArray', 'verdicts',
              'one per sample, stamped with it: message = what it asks of `simulator` '
              '(CONTINUE, ACTIVATE or STOP), next_s = the next sample; a lockstep '
              'simulator waits for it'),
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

    Parameters: see ``grasp_monitor_parameters.PARAMETERS``.
    Publishes: ``grasp_monitor/events`` (DiagnosticStatus per event, reliable,
    transient local, depth 100), ``grasp_monitor/markers`` (MarkerArray: the trial's
    events as text above the object, latched), ``/diagnostics`` (monitor status, 1 Hz).
    Subscribes: ``<contacts>`` (PointCloud2) and ``<contacts>/bodies`` (String), or
    without them ``tactile/<pad>`` (PointCloud2), ``ground_truth/<object>`` (Odometry),
    ``joint_states`` (JointState), ``/tf`` and ``/tf_static`` (TFMessage: the pads'
    distances from ``base_frame``, composed with ``core.frames.FrameTree``).
    Services: ``grasp_monitor/start`` (Trigger: trial id; tares the pads),
    ``grasp_monitor/stop`` (Trigger: JSON summary of the trial's events),
    ``grasp_monitor/tare`` (Trigger), ``grasp_monitor/<event>/enable`` (SetBool).
    Every record is appended to ``event_log`` and flushed before it is published.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('grasp_monitor', **kwargs)
        p = declare(self, PARAMETERS)
        self.inputs = MonitorInputs(inputs_config(p))
        self.contacts = ObjectContacts(p.object, p.pads) if p.contacts else None
        self.topics = {pad: f'tactile/{pad}' for pad in p.pads} | {
            'contacts': p.contacts, 'object': f'ground_truth/{p.object}',
            'finger_joints': 'joint_states', 'distances': '/tf'}
        self.base_frame = p.base_frame
        # each input is due at least once a sample; silent 10 samples (>= 0.5 s): STALE
        self.streams = StreamWatch(dict.fromkeys(
            [self.topics[name] for name in self.inputs.names()], 1.0 / p.rate))
        log_refused_stamps(self, self.inputs.grid,
                           tuple(self.topics[name] for name in self.inputs.names()))
        # /tf has many publishers by design: a new one there is no restart
        follow_sources(self, self.inputs.grid, tuple(
            self.topics[name] if name != 'distances' else '' for name in self.inputs.names()))
        self.frames = FrameTree()
        # ids go on from the log's last trial, so the log reads as one history
        last_trial, read = EventLog.last_trial_id(p.event_log)
        self.get_logger().info(f'{read}; the next trial is {last_trial + 1}')
        self.monitor = GraspMonitor(monitor_config(p), last_trial_id=last_trial)
        self.log = EventLog(p.event_log)
        self.trial_records: list[dict[str, str]] = []
        # where the events are written: above the object once its pose is known
        self.event_anchor = (p.pads[0] if p.pads else 'world', np.zeros(3))
        self.refused: Counter[str] = Counter()
        group = MutuallyExclusiveCallbackGroup()  # the monitor is not thread-safe
        qos = sensor_qos(p.qos_best_effort, p.qos_depth)
        self.events_pub = self.create_publisher(DiagnosticStatus, 'grasp_monitor/events',
                                                EVENTS_QOS)
        self.markers_pub = self.create_publisher(MarkerArray, 'grasp_monitor/markers',
                                                 LATCHED_QOS)
        self.verdict_pub = self.create_publisher(DiagnosticArray, 'grasp_monitor/verdicts',
                                                 VERDICTS_QOS)
        self.period_s = 1.0 / p.rate
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        subscribe_pads(self, self.refused, p.contacts, self.contacts, p.pads, qos, group,
                       self._contacts_in, self._on_pad)
        if p.object:
            subscribe(self, Odometry, f'ground_truth/{p.object}', self._on_object,
                      qos, callback_group=group, raw=True)
        subscribe(self, JointState, 'joint_states', self._on_joints, qos,
                  callback_group=group, raw=True)
        if self.base_frame:
            for topic, tf_qos in (('/tf', TF_QOS), ('/tf_static', TF_STATIC_LISTENER_QOS)):
                subscribe(self, TFMessage, topic,
                          lambda m, s=topic == '/tf_static': self._on_tf(m, s),
                          tf_qos, callback_group=group)
        self.force_clients = {
            start: self.create_client(Trigger, f'{p.simulator}/external_force/{start}')
            for start in ('start', 'stop')} if p.simulator else {}
        self.create_service(Trigger, 'grasp_monitor/start', self._on_start, callback_group=group,
                            qos_profile=SERVICE_QOS)
        self.create_service(Trigger, 'grasp_monitor/stop', self._on_stop, callback_group=group,
                            qos_profile=SERVICE_QOS)
        self.create_service(Trigger, 'grasp_monitor/tare', self._on_tare, callback_group=group,
                            qos_profile=SERVICE_QOS)
        for name in self.monitor.events.names:
            self.create_service(SetBool, f'grasp_monitor/{name}/enable',
                                lambda q, r, name=name: self._on_enable(name, q, r),
                                callback_group=group, qos_profile=SERVICE_QOS)
        # samples are due as inputs arrive; the timer only finds those the clock left behind
        self.create_timer(1.0 / p.rate, lambda: self._evaluate(self._now_s()),
                          callback_group=group)
        diagnostics_timer(self, self._publish_diagnostics, group)

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _on_pad(self, pad: str, msg: PointCloud2) -> None:
        cloud = read_input(self, self.refused, f'tactile/{pad}',
                           lambda: conversions.tactile_reading_from_msg(msg))
        if cloud is not None:
            self.streams.heard(f'tactile/{pad}', wall_now_s())
            positions, forces, time_s, slip = cloud
            self.inputs.update_pad(pad, forces, time_s, positions,
                                   slip if self.inputs.config.slip_signals else None)
            self._evaluate()

    def _contacts_in(self, contacts) -> None:
        self.streams.heard(self.topics['contacts'], wall_now_s())
        self.inputs.update_object_contacts(self.contacts, contacts)
        self._evaluate()

    def _on_object(self, raw: bytes) -> None:
        msg = read_input(self, self.refused, 'ground_truth',
                         lambda: conversions.read_message(raw, Odometry))
        body = msg and read_input(self, self.refused, 'ground_truth',
                                  lambda: conversions.body_state_from_odometry(msg))
        if body is not None:
            self.streams.heard(self.topics['object'], wall_now_s())
            self.event_anchor = (msg.header.frame_id or 'world', body.position_in_world)
            self.inputs.update_object(body.linear_velocity_in_world, body.time_s)
            self._evaluate()

    def _on_joints(self, raw: bytes) -> None:
        joints = read_input(self, self.refused, 'joint_states',
                            lambda: conversions.joint_velocities_from_msg(
                                conversions.read_message(raw, JointState)))
        if joints is not None:
            self.streams.heard('joint_states', wall_now_s())
            self.inputs.update_joints(*joints)
            self._evaluate()

    def _on_tf(self, msg: TFMessage, static: bool) -> None:
        transforms = read_input(self, self.refused, '/tf_static' if static else '/tf',
                                lambda: conversions.frame_transforms_from_msg(msg))
        if transforms is not None:
            if not static:
                self.streams.heard('/tf', wall_now_s())
            self.frames.update(transforms, static)
            if not static and self.inputs.update_frames(self.frames, self.base_frame):
                self._evaluate()

    def _emit(self, records) -> None:
        self.log.append(records)  # flushed first: a killed node loses nothing published
        for record in records:
            values = record.as_strings()
            self.trial_records.append(values)
            self.events_pub.publish(conversions.diagnostic_status(
                record.kind, EVENT_LEVELS.get(record.kind, 'OK'), record.command.value,
                values, self.get_name()))
        if records:  # the whole trial each time: the latched last one shows it all
            self.markers_pub.publish(conversions.event_markers_to_msg(
                self.trial_records, [EVENT_LEVELS.get(r['type'], 'OK')
                                     for r in self.trial_records],
                *self.event_anchor, float(self.trial_records[-1]['time_s'])))

    def _evaluate(self, now_s: float | None = None) -> None:
        """Run the monitor on every sample owed; with ``now_s``, declare late ones stale."""
        for sample in self.inputs.due(now_s):
            update = self.monitor.update(sample)
            self._emit(update.records)
            # what it asks of its simulator: nothing without one (`simulator` "")
            asked = update.command if self.force_clients else Command.CONTINUE
            self.verdict_pub.publish(conversions.verdict_to_msg(
                sample.time_s, asked.value, sample.time_s + self.period_s,
                sample.stale, self.get_name()))
            if update.command is Command.ACTIVATE and 'start' in self.force_clients:
                self.force_clients['start'].call_async(Trigger.Request())
            elif update.command is Command.STOP and 'stop' in self.force_clients:
                self.force_clients['stop'].call_async(Trigger.Request())

    def _on_tare(self, request: Trigger.Request, response: Trigger.Response):
        self.inputs.tare()
        response.success = True
        response.message = f'taring over the next {self.inputs.config.tare_time} s of readings'
        return response

    def _on_start(self, request: Trigger.Request, response: Trigger.Response):
        self.trial_records = []
        self._emit(self.monitor.start_trial())
        self.inputs.tare()  # each trial from the pads' zero as they are now
        response.success, response.message = True, str(self.monitor.trial_id)
        if self.inputs.missing():
            self.get_logger().info(f'trial {response.message} opens at the first sample; no '
                                   f'input yet from {self._waiting_for()}')
        return response

    def _on_stop(self, request: Trigger.Request, response: Trigger.Response):
        self._emit(self.monitor.stop_trial('stop service'))
        if 'stop' in self.force_clients:
            self.force_clients['stop'].call_async(Trigger.Request())
        response.success = True
        response.message = json.dumps({'events': self.trial_records})
        return response

    def _on_enable(self, name: str, request: SetBool.Request, response: SetBool.Response):
        try:
            self.monitor.set_enabled(name, request.data)
            response.success, response.message = True, f'{name} enabled: {request.data}'
        except GraspMonitorError as error:
            response.success, response.message = False, str(error)
        return response

    def _publish_diagnostics(self) -> None:
        values = self.monitor.diagnostics() | self.inputs.diagnostics()
        values.update(refusal_counts(self.refused, 'refused_inputs') | lost_counts(self)
                      | stamp_counts(self.inputs.grid), waiting_for=self._waiting_for())
        # silent on wall time: a paused or dead simulator stops the clock the sample reads
        silent = [s.name for s in self.streams.statuses(wall_now_s()) if s.stale]
        stale = bool(silent) or self.inputs.sample(self._now_s()).stale
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: monitor', 'STALE' if stale else 'OK',
            ('stale input: ' + ', '.join(silent) if silent else 'stale input') if stale
            else 'fresh input', values)] + stream_statuses(self, self.streams)
        self.diag_pub.publish(msg)

    def _waiting_for(self) -> str:
        return ', '.join(self.topics[name] for name in self.inputs.missing())

    def destroy_node(self) -> None:
        """Close the event log."""
        self.log.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(GraspMonitorNode, args)


if __name__ == '__main__':
    sys.exit(main())
