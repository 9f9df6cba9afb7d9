"""The ``moteus_servos`` node: moteus controllers as the servos ``mujoco_sim`` simulates."""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from typing import Any, Mapping

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.hardware.moteus import (
    bank_statuses, LoopStats, MoteusConfig, MoteusObservation, MoteusServos)
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.interfaces import diagnostics, publishes, service, subscribes
from grasp_monitor.nodes.moteus_servos_parameters import node_settings, PARAMETERS
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import LATCHED_QOS, SERVICE_QOS
from grasp_monitor.nodes.servo_commands import ServoCommandInput
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger

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


class MoteusServosNode(Node):
    """Drive moteus controllers from servo commands and publish what they measure.

    Parameters: ``moteus_servos_parameters.PARAMETERS``; topics and services:
    ``INTERFACES``. Commands come in as ``mujoco_sim``'s (``ServoCommandInput``);
    ``joint_states`` are stamped when measured, or on a simulated clock when published.
    Destroying the node stops the servos (unless read-only) and closes the transport.

    Args:
        transport: a ``moteus.Transport`` to use instead of the one the parameters name
            (tests pass one over ``TransportDouble``).
        kwargs: passed to ``Node``.
    """

    def __init__(self, transport: Any = None, **kwargs) -> None:
        super().__init__('moteus_servos', **kwargs)
        settings = node_settings(declare(self, PARAMETERS))
        self.config = settings.config
        self.servos = MoteusServos(self.config, transport=transport)
        self.published_s = math.nan
        self.joint_pub = self.create_publisher(JointState, 'joint_states', settings.qos)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.commands = ServoCommandInput(self, self.servos, settings.qos)
        self.refused = self.commands.refused
        if settings.robot_description_scenario:
            self.description_pub = self.create_publisher(
                String, '/robot_description', LATCHED_QOS)
            self.description_pub.publish(String(data=self._description(
                settings.robot_description_scenario)))
        self.create_service(Trigger, '~/stop', self._on_stop, qos_profile=SERVICE_QOS)
        self.create_service(Trigger, '~/resume', self._on_resume, qos_profile=SERVICE_QOS)
        self.create_timer(1.0 / settings.publish_rate_hz, self._publish)
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
                                    self.servos.stats(), self.commands.counts(),
                                    self.servos.running)
        self.diag_pub.publish(msg)

    def destroy_node(self) -> None:
        """Stop the servos (unless read-only), end the loop and close the transport."""
        self.servos.close()
        super().destroy_node()


def servo_statuses(node: str, config: MoteusConfig, observation: MoteusObservation | None,
                   stats: LoopStats, counts: Mapping[str, int],
                   running: bool = True) -> list[DiagnosticStatus]:
    """Return ``hardware.moteus.bank_statuses`` as messages, named after ``node``."""
    return [conversions.diagnostic_status(f'{node}: {status.name}', status.level,
                                          status.message, status.values, status.hardware_id)
            for status in bank_statuses(config, observation, stats, counts, running)]


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(MoteusServosNode, args)


if __name__ == '__main__':
    sys.exit(main())
