"""Declared parameters of the ``moteus_servos`` node, and what the node makes of them.

A parameter and the ``MoteusConfig`` field it fills share one name, the field's with its
unit suffix (``rate`` fills ``rate_hz``, ``torque_limit`` fills ``torque_limit_nm``).
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any, Mapping

from grasp_monitor.core.servo.settings import COMMAND_TIMEOUT, WATCHDOG_ACTION
from grasp_monitor.core.settings import Setting
from grasp_monitor.hardware.moteus import MoteusConfig, TRANSPORTS
from grasp_monitor.nodes.params import COMMON
from grasp_monitor.nodes.qos import sensor_qos
from grasp_monitor.sim.scenes import SCENARIOS
from rclpy.qos import QoSProfile

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


def moteus_config(p: Mapping[str, Any]) -> MoteusConfig:
    """Return the bank of parameter values ``p`` (``[""]`` paths: find the fdcanusb)."""
    buses = p['buses']
    return MoteusConfig(
        joints=tuple(p['joints']), ids=tuple(p['ids']),
        buses=buses[0] if len(buses) == 1 else tuple(buses), transport=p['transport'],
        fdcanusb_paths=tuple(path for path in p['fdcanusb_paths'] if path),
        socketcan_channels=tuple(p['socketcan_channels']), rate_hz=p['rate'],
        command_timeout_s=p['command_timeout'], reply_timeout_s=p['reply_timeout'],
        missed_cycles_to_fault=p['missed_cycles_to_fault'],
        position_min_rad=p['position_min'], position_max_rad=p['position_max'],
        torque_limit_nm=p['torque_limit'], read_only=p['read_only'],
        watchdog_action=p['watchdog_action'])


@dataclass(frozen=True)
class MoteusServosSettings:
    """The ``moteus_servos`` node's parameters as it uses them.

    Attributes:
        config: the bank.
        qos: of ``joint_states`` and the servo commands.
        publish_rate_hz: ``joint_states`` rate, Hz.
        robot_description_scenario: the scenario whose gripper is the URDF ('' = none).
    """

    config: MoteusConfig
    qos: QoSProfile
    publish_rate_hz: float
    robot_description_scenario: str


def node_settings(p: Mapping[str, Any]) -> MoteusServosSettings:
    """Return what the node makes of its parameter values ``p``: they are read here only."""
    return MoteusServosSettings(moteus_config(p), sensor_qos(p['qos.best_effort'], p['qos.depth']),
                                p['publish_rate'], p['robot_description_scenario'])
