"""The ``mujoco_sim`` node: a MuJoCo scenario exposed as servos and sensors."""

from __future__ import annotations

from collections import Counter
import dataclasses
import math
import threading

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.realism import joint_model, realism_configs
from grasp_monitor.core.values import JointStates
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.conversions import serialized
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.inputs import accept_servo_command, lost_counts, refusal_counts, subscribe
from grasp_monitor.nodes.interfaces import diagnostics, publishes, service, subscribes
from grasp_monitor.nodes.mujoco_sim_parameters import PARAMETERS, scene_settings, servo_options
from grasp_monitor.nodes.params import choice_checker, declare
from grasp_monitor.nodes.qos import (
    LATCHED_QOS, sensor_qos, SERVICE_QOS, TF_QOS, TF_STATIC_QOS, VERDICTS_QOS)
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.lockstep import Lockstep
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.scenes.parameters import SCENARIO_PARAMETERS
from grasp_monitor.sim.urdf import scene_urdf
from nav_msgs.msg import Odometry
from rclpy._rclpy_pybind11 import RCLError
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import SetBool, Trigger
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray


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

    Parameters: see ``mujoco_sim_parameters.PARAMETERS`` (scenario, physics.*, force_test.*,
    publish_rate, clock_rate, real_time_factor, command_timeout, lockstep, controller,
    markers_rate, markers_scale, tactile, qos.*; realism.preset, realism.seed,
    realism.joints.*: ``joint_states`` as encoders report them, ``core.realism``, a
    dropped frame not published; ideal by default). ``sim_process`` hosts the
    ``tactile_sensor`` (``tactile``) and ``grasp_controller`` (``controller``) nodes on the
    same runner and executor.
    In lockstep (the default) a tick waits for its inputs: see ``sim.lockstep.Lockstep``.
    Publishes: ``/clock``, ``joint_states``, ``ground_truth/<body>`` (objects and pads),
    ``contacts`` (PointCloud2: the pads' contacts, every tick), ``contacts/bodies``
    (String: body names by id, once) and ``contacts/markers`` (MarkerArray: rviz arrows,
    at markers_rate), ``/robot_description`` (String: the scene's URDF, once),
    ``/tf`` (moving bodies, every tick) and ``/tf_static`` (welded bodies, once),
    ``/diagnostics`` (1 Hz: rate, refused commands, watchdog, servo telemetry).
    Subscribes: ``servo_commands`` (JointState), ``servo_commands/full`` (Float64MultiArray).
    Services: ``~/reset`` (Trigger), ``~/pause`` (SetBool), ``~/external_force/start``
    and ``~/external_force/stop`` (Trigger: the force test on ``force_test.body``).
    """

    def __init__(self, *, start: bool = True, **kwargs) -> None:
        super().__init__('mujoco_sim', **kwargs)
        p = declare(self, PARAMETERS)
        self.add_on_set_parameters_callback(choice_checker(PARAMETERS))
        scene = build_scene(p['scenario'], scene_settings(p),
                            **{k: p[k] for k in SCENARIO_PARAMETERS[p['scenario']]})
        self.sim = Simulator(scene, **servo_options(p))
        self.force_test = ExternalForceTest(
            p['force_test.profile'], p['force_test.amplitude_per_kg'],
            p['force_test.angular_frequency'], p['force_test.offset'],
            redraw_every_steps=p['force_test.redraw_steps'], seed=p['force_test.seed'])
        self.force_body = p['force_test.body'] or scene.objects[0]
        if p['force_test.start_time'] > 0.0:
            self.sim.schedule_force_test(self.force_test, self.force_body,
                                         p['force_test.start_time'])
        self.lockstep = Lockstep(lambda: self.sim.time_s, 0.5 * self.sim.timestep_s,
                                 p['lockstep'], self.get_logger().warning)
        self.runner = SimRunner(self.sim, RunConfig(p['publish_rate'], p['real_time_factor'],
                                                    p['pause_at']),
                                on_tick=self._publish,
                                gate=self._inputs_in if p['lockstep'] else None)
        self.verdicts_topic = f'{p["monitor"]}/verdicts' if p['monitor'] else ''
        self.host_controller = p['controller']
        self.tactile = p['tactile'] and bool(scene.pads)
        tick_rate_hz = 1.0 / (self.runner.steps_per_tick * self.sim.timestep_s)
        self.clock_every = max(1, round(tick_rate_hz / p['clock_rate'])) if p['clock_rate'] else 1
        # what real encoders report (None: ideal, the joints as they are)
        self.encoders = joint_model(realism_configs(p)[1], len(scene.joints),
                                    1.0 / tick_rate_hz, p['realism.seed'])
        self.encoders_s = -math.inf  # the last frame's time: a reset starts them over
        self.refused: Counter[str] = Counter()
        self.command_stamp_s = -math.inf  # of the last servo_commands applied, s
        qos = sensor_qos(p['qos.best_effort'], p['qos.depth'])
        # As deep as the sensor streams: a reader that falls behind (a recorder) loses no tick.
        # every tick's messages go out as bytes rewritten in place: see conversions.cdr_template
        self.clock_bytes, self.joint_bytes = serialized.ClockBytes(), serialized.JointStateBytes()
        self.odometry_bytes, self.tf_bytes = serialized.OdometryBytes(), serialized.TfBytes()
        self.contacts_bytes = serialized.ContactsBytes()
        self.clock_pub = self.create_publisher(Clock, '/clock', max(10, p['qos.depth']))
        self.joint_pub = self.create_publisher(JointState, 'joint_states', qos)
        self.body_pubs = [self.create_publisher(Odometry, f'ground_truth/{body}', qos)
                          for body in self.sim.tracked_bodies]
        self.contacts_pub = self.create_publisher(PointCloud2, 'contacts', qos)
        self.bodies_pub = self.create_publisher(String, 'contacts/bodies', LATCHED_QOS)
        self.bodies_pub.publish(
            conversions.body_names_to_msg(self.sim.body_names()))
        self.tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS)
        self.tf_static_pub = self.create_publisher(TFMessage, '/tf_static', TF_STATIC_QOS)
        self.tf_static_pub.publish(conversions.tf_message(self.sim.static_frame_transforms()))
        # a reset brings back the same model: published once, for every late subscriber
        self.description_pub = self.create_publisher(String, '/robot_description', LATCHED_QOS)
        self.description_pub.publish(String(data=scene_urdf(scene, model=self.sim.model)))
        self.latest_contacts = None
        self.markers_scale = p['markers_scale']
        self.object_ids = [self.sim.body_names().index(body) for body in scene.objects]
        self.markers_pub = self.create_publisher(MarkerArray, 'contacts/markers', 10)
        if p['markers_rate'] > 0:
            self.create_timer(1.0 / p['markers_rate'], self._publish_markers)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        subscribe(self, JointState, 'servo_commands', self._on_command, qos)
        subscribe(self, Float64MultiArray, 'servo_commands/full',
                  self._on_full_command, qos)
        if self.verdicts_topic:
            subscribe(self, DiagnosticArray, self.verdicts_topic,
                      self._on_verdict, VERDICTS_QOS)
        self.create_service(Trigger, '~/reset', self._on_reset, qos_profile=SERVICE_QOS)
        self.create_service(SetBool, '~/pause', self._on_pause, qos_profile=SERVICE_QOS)
        self.create_service(Trigger, '~/external_force/start',
                            lambda q, r: self._on_force(True, q, r), qos_profile=SERVICE_QOS)
        self.create_service(Trigger, '~/external_force/stop',
                            lambda q, r: self._on_force(False, q, r), qos_profile=SERVICE_QOS)
        diagnostics_timer(self, self._publish_diagnostics)
        self.thread = threading.Thread(target=self._run, daemon=True)
        if start:
            self.thread.start()

    def start(self) -> None:
        """Start stepping (a node made with ``start=False``, once the nodes it hosts are in)."""
        if not self.thread.is_alive():
            self.thread.start()

    def _publish(self, sim: Simulator) -> None:
        if self.runner.on_grid(self.clock_every):
            self.clock_pub.publish(self.clock_bytes(sim.time_s))
        states = self._encoded(sim.joint_states())
        if states is not None:
            self.joint_pub.publish(self.joint_bytes(states))
        for publisher, data in zip(self.body_pubs, self.odometry_bytes(sim.body_arrays())):
            publisher.publish(data)
        self.tf_pub.publish(self.tf_bytes(sim.frame_transforms()))
        self.latest_contacts = sim.pad_contacts()
        self.contacts_pub.publish(self.contacts_bytes(self.latest_contacts))

    def _encoded(self, states: JointStates) -> JointStates | None:
        """Return the joint states as the encoders report them (None: the frame is lost)."""
        if self.encoders is None:
            return states
        if states.time_s < self.encoders_s:  # a reset: the same encoders from time 0
            self.encoders.reset()
        self.encoders_s = states.time_s
        position, velocity, kept = self.encoders.apply(states.position[None],
                                                       states.velocity[None])
        return dataclasses.replace(states, position=position[0], velocity=velocity[0]) \
            if kept[0] else None

    def _publish_markers(self) -> None:
        contacts = self.latest_contacts
        if contacts is not None:
            self.markers_pub.publish(conversions.contact_markers_to_msg(
                contacts, self.markers_scale, self.object_ids))

    def _set_command(self, command, stamp_s: float | None = None) -> None:
        with self.runner.lock:
            self.sim.set_command(command, stamp_s)

    def _accept(self, make_command, stamp_s: float | None = None) -> bool:
        return accept_servo_command(self, self.refused, make_command,
                                    lambda command: self._set_command(command, stamp_s))

    def _on_command(self, msg: JointState) -> None:
        """Apply a valid command; only an applied one answers the clock (lockstep)."""
        stamp_s = conversions.time_from_msg(msg.header.stamp)
        last_s = self.command_stamp_s
        on_timeline = last_s <= self.sim.time_s + self.lockstep.tolerance_s
        # older than the last command applied on this timeline: it would undo a newer one
        if 0.0 < stamp_s < last_s - self.lockstep.tolerance_s and on_timeline:
            self.refused['old_stamp'] += 1
            self.get_logger().warning(
                f'refused servo command stamped {stamp_s:.6f} s: before the last one '
                f'applied, {last_s:.6f} s', throttle_duration_sec=1.0)
            return
        if self._accept(lambda: conversions.servo_command_from_joint_state(
                msg, self.sim.servo_config, self.sim.command), stamp_s):
            if stamp_s > 0.0:
                self.command_stamp_s = max(last_s, stamp_s) if on_timeline else stamp_s
            self.lockstep.command_in(stamp_s)

    def _on_verdict(self, msg: DiagnosticArray) -> None:
        """Start or stop the force test at the verdict's sample; note the next one due."""
        verdict = conversions.verdict_from_msg(msg)
        if verdict is not None:
            self.lockstep.verdict_in(*verdict, force=self._force)

    def _inputs_in(self) -> bool:
        """Lockstep gate: wait until the tick's inputs are in from its peers."""
        topics = {'servo_commands': 'servo_commands', 'verdicts': self.verdicts_topic}
        return self.lockstep.wait(
            lambda: not self.runner.pacer.stopped and not self.runner.paused,
            lambda missing: bool(self.count_publishers(self.resolve_topic_name(
                topics[missing]))),
            lambda now_s: self.clock_pub.publish(conversions.clock_to_msg(now_s)))

    def _on_full_command(self, msg: Float64MultiArray) -> None:
        self._accept(lambda: conversions.servo_command_from_multiarray(
            msg, len(self.sim.joints)))

    def _on_reset(self, request: Trigger.Request, response: Trigger.Response):
        self.runner.reset()
        self.lockstep.reset()
        self.command_stamp_s = -math.inf
        response.success, response.message = True, f'reset {self.sim.scene.name}'
        return response

    def _on_pause(self, request: SetBool.Request, response: SetBool.Response):
        self.runner.set_paused(request.data)
        response.success = True
        response.message = 'paused' if request.data else 'running'
        return response

    def _force(self, start: bool) -> str:
        """Start or stop the force test; a start while it pulls keeps it.

        The monitor's verdict and its service call both ask for one start.
        """
        with self.runner.lock:
            if start and not self.sim.force_test_active:
                self.sim.start_force_test(self.force_test, self.force_body)
            elif not start:
                self.sim.stop_force_test()
        return f'pulling {self.force_body}' if start else 'released'

    def _on_force(self, start: bool, request: Trigger.Request, response: Trigger.Response):
        response.success, response.message = True, self._force(start)
        return response

    def _publish_diagnostics(self) -> None:
        with self.runner.lock:
            level, message, values = self.sim.status()
        values.update({'ticks': self.runner.ticks, 'paused': self.runner.paused}
                      | self.lockstep.diagnostics()
                      | refusal_counts(self.refused, 'refused_commands') | lost_counts(self))
        msg = DiagnosticArray()
        # on its own simulated time, whatever use_sim_time says: the time it reports on
        msg.header.stamp = conversions.time_to_msg(self.sim.time_s)
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: simulation', level, message, values,
            self.sim.scene.name)]
        self.diag_pub.publish(msg)

    def _run(self) -> None:
        with self.runner.lock:  # the first tick's time, for peers to answer
            self.clock_pub.publish(conversions.clock_to_msg(self.sim.time_s))
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
