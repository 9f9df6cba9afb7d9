"""The ``mujoco_sim`` node: a MuJoCo scenario exposed as servos and sensors."""

from __future__ import annotations

import threading

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.interfaces import diagnostics, publishes, service, subscribes
from grasp_monitor.nodes.mujoco_sim_parameters import node_settings, PARAMETERS
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.qos import SERVICE_QOS, VERDICTS_QOS
from grasp_monitor.nodes.servo_commands import ServoCommandInput
from grasp_monitor.nodes.sim_streams import SimStreams
from grasp_monitor.nodes.subscription import subscribe
from grasp_monitor.sim.live import LiveSimulation
from rclpy._rclpy_pybind11 import RCLError
from rclpy.node import Node
from std_srvs.srv import SetBool, Trigger


INTERFACES = (
    publishes('/clock', 'rosgraph_msgs/msg/Clock', 'default', 'simulated time, every tick'),
    publishes('joint_states', 'sensor_msgs/msg/JointState', 'sensor',
              'position, velocity, effort = applied torque or force, every tick'),
    publishes('ground_truth/<body>', 'nav_msgs/msg/Odometry', 'sensor',
              'each object and pad: pose in world, twist in the body frame, every tick'),
    publishes('/tf', 'tf2_msgs/msg/TFMessage', 'tf',
              'every moving body (a joint or mocap) in its parent body, frames = MuJoCo '
              'body names (`world` the root), every tick'),
    publishes('/tf_static', 'tf2_msgs/msg/TFMessage', 'tf_static',
              'every welded (jointless) body in its parent body, once'),
    publishes('contacts', 'sensor_msgs/msg/PointCloud2', 'sensor',
              'every contact of a pad, every tick, frame `world`: float64 x y z (point, m), '
              'nx ny nz (normal), fx fy fz (force, N) that body1 (the pad) exerts on body2; '
              'int32 body1 body2: MuJoCo body ids, named on contacts/bodies'),
    publishes('contacts/bodies', 'std_msgs/msg/String', 'latched',
              'the body names by id, one a line (line i = body i; 0 = world), once'),
    publishes('contacts/markers', 'visualization_msgs/msg/MarkerArray', 'default',
              'frame `world`: a DELETEALL, then an arrow per pad contact from its point along '
              'the force on the other body, `markers_scale` m/N long, red on an object, '
              'at `markers_rate`'),
    publishes('/robot_description', 'std_msgs/msg/String', 'latched',
              'URDF of the scene (as robot_state_publisher): a link per body named as its '
              '/tf frame, MJCF geometry, joints with limits; once'),
    diagnostics('refused commands by kind, watchdog, servo temperatures, bus voltage'),
    subscribes('servo_commands', 'sensor_msgs/msg/JointState', 'sensor',
               'position (required; NaN: no position control), velocity, effort = θ*, θ̇*, '
               'τ_ff of the named joints; in lockstep, stamped with the /clock it answers'),
    subscribes('servo_commands/full', 'std_msgs/msg/Float64MultiArray', 'sensor',
               'a row per joint: position, velocity, feedforward_torque, kp_scale, '
               'kd_scale, maximum_torque'),
    subscribes('<monitor>/verdicts', 'diagnostic_msgs/msg/DiagnosticArray', 'verdicts',
               "the monitor's verdict on each sample: starts and stops the force test at "
               'its stamp; in lockstep a tick waits for the verdict due before it',
               when='monitor'),
    service('~/reset', 'std_srvs/srv/Trigger', 'back to the start, servos stopped'),
    service('~/pause', 'std_srvs/srv/SetBool', 'pause (true) or resume (false)'),
    service('~/external_force/start', 'std_srvs/srv/Trigger',
            'start the external force test on `force_test.body`'),
    service('~/external_force/stop', 'std_srvs/srv/Trigger', 'end the external force test'),
)


class MujocoSimNode(Node):
    """Simulate a scenario in MuJoCo; its joints are moteus-like servos.

    Parameters: ``mujoco_sim_parameters.PARAMETERS``; topics and services: ``INTERFACES``.
    Stepping, lockstep, force test and encoders: ``sim.live.LiveSimulation``; commands:
    ``ServoCommandInput``. ``sim_process`` hosts ``tactile_sensor`` and ``grasp_controller``.
    """

    def __init__(self, *, start: bool = True, **kwargs) -> None:
        super().__init__('mujoco_sim', **kwargs)
        settings = node_settings(declare(self, PARAMETERS))
        self.sim = sim = settings.sim
        self.verdicts_topic = f'{settings.monitor}/verdicts' if settings.monitor else ''
        self.streams = SimStreams(self, sim, settings.qos, settings.markers_scale_m_per_n)
        self.live = LiveSimulation(
            sim, settings.live, self.streams.publish_tick, self.get_logger().warning,
            present=lambda missing: bool(self.count_publishers(self.resolve_topic_name(
                {'servo_commands': 'servo_commands', 'verdicts': self.verdicts_topic}[missing]))),
            resend=lambda now_s: self.streams.publish_clock(now_s))
        self.runner, self.lockstep = self.live.runner, self.live.lockstep
        self.host_controller, self.tactile = settings.controller, settings.tactile
        if settings.markers_rate_hz > 0:
            self.create_timer(1.0 / settings.markers_rate_hz, self.streams.publish_markers)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.commands = ServoCommandInput(
            self, sim, settings.qos, lock=self.runner.lock, admit=self.lockstep.admit_command,
            on_applied=self.lockstep.command_in)
        self.refused = self.commands.refused
        if self.verdicts_topic:
            subscribe(self, DiagnosticArray, self.verdicts_topic, self._on_verdict, VERDICTS_QOS)
        self.create_service(Trigger, '~/reset', self._on_reset, qos_profile=SERVICE_QOS)
        self.create_service(SetBool, '~/pause', self._on_pause, qos_profile=SERVICE_QOS)
        for name, on in (('start', True), ('stop', False)):
            self.create_service(Trigger, f'~/external_force/{name}', lambda q, r, on=on:
                                self._on_force(on, q, r), qos_profile=SERVICE_QOS)
        diagnostics_timer(self, self._publish_diagnostics)
        self.thread = threading.Thread(target=self._run, daemon=True)
        if start:
            self.thread.start()

    def start(self) -> None:
        """Start stepping (a node made with ``start=False``, once the nodes it hosts are in)."""
        if not self.thread.is_alive():
            self.thread.start()

    def _on_verdict(self, msg: DiagnosticArray) -> None:
        verdict = conversions.verdict_from_msg(msg)
        if verdict is not None:
            self.live.verdict_in(*verdict)

    def _on_reset(self, request: Trigger.Request, response: Trigger.Response):
        self.live.reset()
        response.success, response.message = True, f'reset {self.sim.scene.name}'
        return response

    def _on_pause(self, request: SetBool.Request, response: SetBool.Response):
        self.runner.set_paused(request.data)
        response.success, response.message = True, 'paused' if request.data else 'running'
        return response

    def _on_force(self, start: bool, request: Trigger.Request, response: Trigger.Response):
        response.success, response.message = True, self.live.force(start)
        return response

    def _publish_diagnostics(self) -> None:
        level, message, values = self.live.status()
        values.update(self.commands.counts())
        msg = DiagnosticArray()
        # on its own simulated time, whatever use_sim_time says: the time it reports on
        msg.header.stamp = conversions.time_to_msg(self.sim.time_s)
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: simulation', level, message, values,
            self.sim.scene.name)]
        self.diag_pub.publish(msg)

    def _run(self) -> None:
        with self.runner.lock:  # the first tick's time, for peers to answer
            self.streams.publish_clock(self.sim.time_s)
        try:
            self.runner.run()
        except RCLError:
            # Ctrl-C shuts the context down under a tick's publish: the process is ending.
            if self.context.ok():
                raise

    def destroy_node(self) -> None:
        """Stop the stepping thread before the node goes."""
        self.runner.stop()
        if self.thread.is_alive():
            self.thread.join(timeout=5.0)
        super().destroy_node()
