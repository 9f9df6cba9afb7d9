"""The ``mujoco_sim`` node: a MuJoCo scenario exposed as servos and sensors."""

from __future__ import annotations

from collections import Counter
import threading

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor import conversions
from grasp_monitor.core.errors import CommandError
from grasp_monitor.nodes.common import run_node, sensor_qos
from grasp_monitor.nodes.params import choice_checker, COMMON, declare, ParamSpec
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.runner import RunConfig, SimRunner
from grasp_monitor.sim.scene import CONES, SOLVERS
from grasp_monitor.sim.scenes import build_scene, SCENARIOS
from grasp_monitor.sim.scenes.parameters import SCENARIO_PARAMETERS
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool, Trigger

PARAMETERS = COMMON + (
    ParamSpec('scenario', 'pick_lift', 'Scenario to simulate.', choices=SCENARIOS,
              read_only=True),
    ParamSpec('n_cubes', 3, 'multi_block: cubes in the row.', 1, 11, read_only=True),
    ParamSpec('object_kind', 'box', 'pick_lift: object shape.',
              choices=('box', 'cylinder', 'sphere'), read_only=True),
    ParamSpec('object_mass_kg', 0.2, 'pick_lift: object mass, kg.', 0.001, 100.0,
              read_only=True),
    ParamSpec('feedforward', 'inverse_dynamics', 'industrial_arm: arm torque feedforward.',
              choices=('none', 'gravity', 'inverse_dynamics'), read_only=True),
    ParamSpec('physics.timestep', 0.0, 'Physics step, s (0 = scenario default).', 0.0, 0.1,
              read_only=True),
    ParamSpec('physics.friction', 0.0, 'Grasp friction coefficient (0 = scenario default).',
              0.0, 1e9, read_only=True),
    ParamSpec('physics.cone', '', 'Friction cone ("" = scenario default).',
              choices=('',) + CONES, read_only=True),
    ParamSpec('physics.solver', '', 'Constraint solver ("" = scenario default).',
              choices=('',) + SOLVERS, read_only=True),
    ParamSpec('physics.iterations', 0, 'Solver iterations (0 = scenario default).', 0, 10000,
              read_only=True),
    ParamSpec('physics.noslip_iterations', 0, 'Noslip iterations.', 0, 10000, read_only=True),
    ParamSpec('physics.impratio', 0.0, 'Frictional/normal impedance ratio (0 = default).',
              0.0, 1000.0, read_only=True),
    ParamSpec('publish_rate', 500.0, 'joint_states, ground truth and /clock rate, Hz.',
              1.0, 2000.0, read_only=True),
    ParamSpec('real_time_factor', 1.0, 'Simulated s per wall s; 0 = as fast as possible.',
              0.0, 1000.0, read_only=True),
    ParamSpec('command_timeout', 0.25, 'Servo watchdog, s; 0 disables it.', 0.0, 60.0,
              read_only=True),
)
_SETTINGS = {'physics.timestep': 'timestep_s', 'physics.friction': 'friction',
             'physics.cone': 'cone', 'physics.solver': 'solver',
             'physics.iterations': 'iterations', 'physics.impratio': 'impratio'}


class MujocoSimNode(Node):
    """Simulate a scenario in MuJoCo; its joints are moteus-like servos.

    Parameters: see ``PARAMETERS`` (scenario, physics.*, publish_rate,
    real_time_factor, command_timeout, qos.*).
    Publishes: ``/clock``, ``joint_states``, ``ground_truth/<body>`` (objects and pads),
    ``/diagnostics`` (1 Hz: rate, refused commands, watchdog, servo telemetry).
    Subscribes: ``servo_commands`` (JointState), ``servo_commands/full`` (Float64MultiArray).
    Services: ``~/reset`` (Trigger), ``~/pause`` (SetBool).
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('mujoco_sim', **kwargs)
        p = declare(self, PARAMETERS)
        self.add_on_set_parameters_callback(choice_checker(PARAMETERS))
        settings = {key: p[name] for name, key in _SETTINGS.items() if p[name]}
        settings['noslip_iterations'] = p['physics.noslip_iterations']
        scene = build_scene(p['scenario'], settings,
                            **{k: p[k] for k in SCENARIO_PARAMETERS[p['scenario']]})
        self.sim = Simulator(scene, command_timeout_s=p['command_timeout'])
        self.runner = SimRunner(self.sim, RunConfig(p['publish_rate'], p['real_time_factor']),
                                on_tick=self._publish)
        self.refused: Counter[str] = Counter()
        qos = sensor_qos(p['qos.best_effort'], p['qos.depth'])
        self.clock_pub = self.create_publisher(Clock, '/clock', 10)
        self.joint_pub = self.create_publisher(JointState, 'joint_states', qos)
        self.body_pubs = [self.create_publisher(Odometry, f'ground_truth/{body}', qos)
                          for body in self.sim.tracked_bodies]
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_subscription(JointState, 'servo_commands', self._on_command, qos)
        self.create_subscription(Float64MultiArray, 'servo_commands/full',
                                 self._on_full_command, qos)
        self.create_service(Trigger, '~/reset', self._on_reset)
        self.create_service(SetBool, '~/pause', self._on_pause)
        self.create_timer(1.0, self._publish_diagnostics)
        self.thread = threading.Thread(target=self.runner.run, daemon=True)
        self.thread.start()

    def _publish(self, sim: Simulator) -> None:
        self.clock_pub.publish(conversions.clock_to_msg(sim.time_s))
        self.joint_pub.publish(conversions.joint_state_to_msg(sim.joint_states()))
        odometry = conversions.odometry_from_body_arrays(sim.body_arrays())
        for publisher, msg in zip(self.body_pubs, odometry):
            publisher.publish(msg)

    def _accept(self, make_command) -> None:
        try:
            with self.runner.lock:
                self.sim.set_command(make_command())
        except CommandError as error:
            self.refused[error.kind] += 1
            self.get_logger().warning(f'refused servo command: {error}',
                                      throttle_duration_sec=1.0)

    def _on_command(self, msg: JointState) -> None:
        self._accept(lambda: conversions.servo_command_from_joint_state(
            msg, self.sim.servos.config, self.sim.servos.received))

    def _on_full_command(self, msg: Float64MultiArray) -> None:
        self._accept(lambda: conversions.servo_command_from_multiarray(
            msg, len(self.sim.scene.joints)))

    def _on_reset(self, request: Trigger.Request, response: Trigger.Response):
        self.runner.reset()
        response.success, response.message = True, f'reset {self.sim.scene.name}'
        return response

    def _on_pause(self, request: SetBool.Request, response: SetBool.Response):
        self.runner.set_paused(request.data)
        response.success = True
        response.message = 'paused' if request.data else 'running'
        return response

    def _publish_diagnostics(self) -> None:
        with self.runner.lock:
            obs = self.sim.servo_observation()
            values = {'sim_time_s': f'{self.sim.time_s:.3f}', 'ticks': self.runner.ticks,
                      'paused': self.runner.paused,
                      'watchdog_trips': self.sim.servos.watchdog_trips,
                      'refused_commands': sum(self.refused.values()),
                      'voltage_v': f'{obs.voltage_v:.2f}'}
        values.update({f'refused.{k}': v for k, v in self.refused.items()})
        values.update({f'temperature_c.{j}': f'{t:.1f}'
                       for j, t in zip(self.sim.scene.joints, obs.temperature_c)})
        level = 'ERROR' if self.sim.diverged else 'WARN' if obs.watchdog_tripped else 'OK'
        message = {'ERROR': 'diverged', 'WARN': 'watchdog tripped', 'OK': 'running'}[level]
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [conversions.diagnostic_status(
            f'{self.get_name()}: simulation', level, message, values, self.sim.scene.name)]
        self.diag_pub.publish(msg)

    def destroy_node(self) -> None:
        """Stop the stepping thread before the node goes."""
        self.runner.stop()
        self.thread.join(timeout=5.0)
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(MujocoSimNode, args)
