"""The ``moteus_servos`` node: moteus controllers as the servos ``mujoco_sim`` simulates."""

from __future__ import annotations

from collections import Counter
import dataclasses
import math
import sys
import time
from typing import Any, Mapping

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.core.servo.settings import COMMAND_TIMEOUT, WATCHDOG_ACTION
from grasp_monitor.core.settings import Setting
from grasp_monitor.hardware.moteus import (
    LIMIT_DESCRIPTIONS, LoopStats, MoteusConfig, MoteusObservation, MoteusServos, TRANSPORTS)
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.inputs import accept_servo_command
from grasp_monitor.nodes.interfaces import diagnostics, publishes, service, subscribes
from grasp_monitor.nodes.params import choice_checker, COMMON, declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import LATCHED_QOS, sensor_qos, SERVICE_QOS
from grasp_monitor.sim.scenes import SCENARIOS
import moteus
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import Trigger

PARAMETERS = COMMON + (
    Setting('joints', ['lift', 'finger_left', 'finger_right'],
            'Joint names, in command and joint_states order.', read_only=True),
    Setting('ids', [1, 2, 3], "CAN id of each joint's controller, 1..126.", read_only=True),
    Setting('buses', [1], 'Bus of each controller, or one for all: 1-based index into '
            'fdcanusb_paths or socketcan_channels, or the pi3hat port 1..5.', read_only=True),
    Setting('transport', 'fdcanusb', 'CAN-FD adapter.', choices=TRANSPORTS, read_only=True),
    Setting('fdcanusb_paths', [''], 'Serial device of the fdcanusb on each bus '
            '([""] finds the one plugged in).', read_only=True),
    Setting('socketcan_channels', ['can0'], 'SocketCAN interface of each bus.',
            read_only=True),
    Setting('rate', 200.0, 'Servo loop rate, Hz.', 1.0, 2000.0, read_only=True),
    Setting('reply_timeout', 0.0, "Longest wait for a cycle's replies, s (0 = one period).",
            0.0, 1.0, read_only=True),
    Setting('missed_cycles_to_fault', 5, 'Cycles without a reply that fault a controller.',
            1, 100000, read_only=True),
    COMMAND_TIMEOUT,
    WATCHDOG_ACTION,
    Setting('position_min', [-math.inf], 'Lowest position target of each joint (or one '
            'for all), rad; targets are clamped.', read_only=True),
    Setting('position_max', [math.inf], 'Highest position target of each joint (or one '
            'for all), rad.', read_only=True),
    Setting('torque_limit', [1.0], 'Torque cap of each joint (or one for all), N*m: '
            'maximum_torque and |feedforward| are clamped to it.', read_only=True),
    Setting('read_only', False, 'Only query the controllers; never write a register.',
            read_only=True),
    Setting('publish_rate', 100.0, 'joint_states rate, Hz.', 1.0, 2000.0, read_only=True),
    Setting('robot_description_scenario', '', 'Publish the gripper of this scenario (its '
            'robot bodies, no objects) as URDF on /robot_description, its joints named as '
            'the scenario\'s servos ("" = none).', choices=('',) + SCENARIOS,
            read_only=True),
)
INTERFACES = (
    publishes('joint_states', 'sensor_msgs/msg/JointState', 'sensor',
              'rad, rad/s, N*m, each loop observation once, at most at `publish_rate`'),
    diagnostics('loop rate and jitter, refused commands, watchdog; per servo temperature, '
                'voltage, mode, fault code'),
    subscribes('servo_commands', 'sensor_msgs/msg/JointState', 'sensor', 'as `mujoco_sim`'),
    subscribes('servo_commands/full', 'std_msgs/msg/Float64MultiArray', 'sensor',
               'as `mujoco_sim`'),
    publishes('/robot_description', 'std_msgs/msg/String', 'latched',
              "URDF of `robot_description_scenario`'s gripper, once",
              when='robot_description_scenario'),
    service('~/stop', 'std_srvs/srv/Trigger', 'stop every servo until `~/resume`'),
    service('~/resume', 'std_srvs/srv/Trigger', 'clear latched faults, undo `~/stop`'),
)
#: Controller modes by number, as diagnostics name them.
MODE_NAMES = {int(mode): mode.name.lower() for mode in moteus.Mode}


class MoteusServosNode(Node):
    """Drive moteus controllers from servo commands and publish what they measure.

    Parameters: ``PARAMETERS`` (joints, ids, buses, transport, fdcanusb_paths,
    socketcan_channels, rate, reply_timeout, missed_cycles_to_fault, command_timeout,
    position_min, position_max, torque_limit, read_only, publish_rate,
    robot_description_scenario, qos.*).
    Publishes: ``joint_states`` (rad, rad/s, N*m; each loop observation once, at most at
    publish_rate; stamped when measured, or on a simulated clock when published),
    ``/diagnostics`` (1 Hz: the loop's achieved rate and jitter, refused commands by kind,
    watchdog; one status per servo with temperature, voltage, mode and fault code, ERROR
    while a fault is latched), ``/robot_description`` (String, once: the URDF of
    ``robot_description_scenario``'s gripper, when set).
    Subscribes: ``servo_commands`` (JointState), ``servo_commands/full``
    (Float64MultiArray), exactly as ``mujoco_sim``.
    Services: ``~/stop`` (Trigger: every servo stopped until ``~/resume``), ``~/resume``
    (Trigger: clear latched faults, undo ``~/stop``).
    Destroying the node stops the servos (unless read-only) and closes the transport.

    Args:
        transport: a ``moteus.Transport`` to use instead of the one the parameters name
            (tests pass one over ``TransportDouble``).
        kwargs: passed to ``Node``.
    """

    def __init__(self, transport: Any = None, **kwargs) -> None:
        super().__init__('moteus_servos', **kwargs)
        p = declare(self, PARAMETERS)
        self.add_on_set_parameters_callback(choice_checker(PARAMETERS))
        buses = p['buses'][0] if len(p['buses']) == 1 else tuple(p['buses'])
        self.config = MoteusConfig(
            tuple(p['joints']), tuple(p['ids']), buses, p['transport'],
            tuple(path for path in p['fdcanusb_paths'] if path), tuple(p['socketcan_channels']),
            p['rate'], p['command_timeout'], p['reply_timeout'], p['missed_cycles_to_fault'],
            p['position_min'], p['position_max'], p['torque_limit'], p['read_only'],
            p['watchdog_action'])
        self.servos = MoteusServos(self.config, transport=transport)
        self.refused: Counter[str] = Counter()
        self.published_s = math.nan
        qos = sensor_qos(p['qos.best_effort'], p['qos.depth'])
        self.joint_pub = self.create_publisher(JointState, 'joint_states', qos)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_subscription(JointState, 'servo_commands', self._on_command, qos)
        self.create_subscription(Float64MultiArray, 'servo_commands/full',
                                 self._on_full_command, qos)
        if p['robot_description_scenario']:
            self.description_pub = self.create_publisher(
                String, '/robot_description', LATCHED_QOS)
            self.description_pub.publish(String(data=self._description(
                p['robot_description_scenario'])))
        self.create_service(Trigger, '~/stop', self._on_stop, qos_profile=SERVICE_QOS)
        self.create_service(Trigger, '~/resume', self._on_resume, qos_profile=SERVICE_QOS)
        self.create_timer(1.0 / p['publish_rate'], self._publish)
        diagnostics_timer(self, self._publish_diagnostics)
        self.servos.start()

    def _description(self, scenario: str) -> str:
        """Return the URDF of a scenario's gripper; warn of joints it does not move."""
        from grasp_monitor.sim.scenes import build_scene
        from grasp_monitor.sim.urdf import scene_urdf
        scene = build_scene(scenario)
        missing = [joint for joint in self.config.joints if joint not in scene.joints]
        if missing:
            self.get_logger().warning(
                f'{scenario} has no joint {", ".join(missing)}: /robot_description will not '
                f'move with them (its joints: {", ".join(scene.joints)})')
        return scene_urdf(scene, gripper_only=True)

    def _accept(self, make_command) -> None:
        accept_servo_command(self, self.refused, make_command, self.servos.set_command)

    def _on_command(self, msg: JointState) -> None:
        self._accept(lambda: conversions.servo_command_from_joint_state(
            msg, self.servos.servo_config, self.servos.command))

    def _on_full_command(self, msg: Float64MultiArray) -> None:
        self._accept(lambda: conversions.servo_command_from_multiarray(
            msg, len(self.servos.joints)))

    def _on_stop(self, request: Trigger.Request, response: Trigger.Response):
        self.servos.stop()
        response.success = True
        response.message = ('read-only: the servos are never commanded' if self.config.read_only
                            else 'stopped: every servo holds a stop until ~/resume')
        return response

    def _on_resume(self, request: Trigger.Request, response: Trigger.Response):
        faults = self.servos.faults
        self.servos.clear_faults()
        self.servos.resume()
        cleared = '; '.join(fault.message for fault in faults)
        response.success = True
        response.message = 'resumed' + (f'; cleared {cleared}' if cleared else '')
        return response

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _publish(self) -> None:
        observation = self.servos.observation
        if observation is None or observation.time_s == self.published_s:
            return
        self.published_s = observation.time_s
        # The backend stamps on the monotonic clock; joint_states carry the node's clock,
        # less the observation's age. A simulated clock may be paused or run at any rate:
        # a wall-clock age means nothing on it (it could even stamp before the last tick).
        age_s = 0.0 if self.get_clock().ros_time_is_active else \
            time.monotonic() - observation.time_s
        stamp_s = self._now_s() - age_s
        self.joint_pub.publish(conversions.joint_state_to_msg(
            dataclasses.replace(observation.joint_states(), time_s=stamp_s)))

    def _publish_diagnostics(self) -> None:
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = servo_statuses(self.get_name(), self.config, self.servos.observation,
                                    self.servos.stats(), self.refused, self.servos.running)
        self.diag_pub.publish(msg)

    def destroy_node(self) -> None:
        """Stop the servos (unless read-only), end the loop and close the transport."""
        self.servos.close()
        super().destroy_node()


def servo_statuses(node: str, config: MoteusConfig, observation: MoteusObservation | None,
                   stats: LoopStats, refused: Mapping[str, int],
                   running: bool = True) -> list[DiagnosticStatus]:
    """Return the diagnostics of the loop, then of each servo (fault: ERROR with its code)."""
    faults = observation.faults if observation is not None else ()
    if not running:
        level, message = 'ERROR', 'the servo loop has ended' + (
            f': {stats.last_error}' if stats.last_error else '')
    elif faults:
        level, message = 'ERROR', 'servos stopped until ~/resume: ' + '; '.join(
            fault.message for fault in faults)
    elif observation is None:
        level, message = 'WARN', 'no cycle yet'
    elif observation.stopped or observation.watchdog_tripped:
        level, message = 'WARN', 'stopped by ~/stop' if observation.stopped else \
            f'watchdog: no command for {config.command_timeout_s} s, servos stopped'
    else:
        level, message = 'OK', 'read-only' if config.read_only else \
            'commanding' if observation.commanding else 'holding a stop until the first command'
    values = dataclasses.asdict(stats) | {
        'target_rate_hz': config.rate_hz, 'read_only': config.read_only,
        'stopped': bool(observation and observation.stopped),
        'watchdog_tripped': bool(observation and observation.watchdog_tripped),
        'refused_commands': sum(refused.values())}
    values.update({f'refused.{kind}': count for kind, count in refused.items()})
    statuses = [conversions.diagnostic_status(f'{node}: loop', level, message, values,
                                              config.transport)]
    for i, (joint, servo_id) in enumerate(zip(config.joints, config.ids)):
        hardware_id = f'moteus id {servo_id} on bus {config.buses[i]}'  # type: ignore[index]
        if observation is None:
            statuses.append(conversions.diagnostic_status(
                f'{node}: {joint}', 'STALE', 'no reply yet', {}, hardware_id))
            continue
        own = [fault for fault in faults if fault.joint == joint]
        mode, code = int(observation.mode[i]), int(observation.fault_code[i])
        name = MODE_NAMES.get(mode, f'mode {mode}')
        if own:
            level, message = 'ERROR', '; '.join(fault.message for fault in own)
            code = next((fault.code for fault in own if fault.code), code)
        elif not observation.fresh[i]:
            level, message = 'WARN', 'no reply this cycle'
        else:
            level, message = 'OK', name + (f', limited by {LIMIT_DESCRIPTIONS[code]}'
                                           if code in LIMIT_DESCRIPTIONS else '')
        statuses.append(conversions.diagnostic_status(f'{node}: {joint}', level, message, {
            'position_rad': observation.position[i], 'velocity_rad_s': observation.velocity[i],
            'torque_nm': observation.torque[i], 'temperature_c': observation.temperature_c[i],
            'voltage_v': observation.voltage_v[i], 'mode': mode, 'mode_name': name,
            'fault_code': code, 'fresh': bool(observation.fresh[i])}, hardware_id))
    return statuses


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(MoteusServosNode, args)


if __name__ == '__main__':
    sys.exit(main())
