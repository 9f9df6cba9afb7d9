"""Declared parameters of the ``grasp_controller`` node, and what the node makes of them.

A parameter and the ``PickLiftScript`` field it fills share one name, the field's with its
unit suffix (``grip_force`` fills ``grip_force_n``, ``close_duration`` fills
``close_duration_s``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.core.settings import Setting
from grasp_monitor.nodes.params import COMMON
from grasp_monitor.nodes.qos import sensor_qos
from rclpy.qos import QoSProfile

PARAMETERS = COMMON + (
    Setting('rate', 100.0, 'Command rate, Hz.', 1.0, 1000.0, read_only=True),
    Setting('autostart', True, 'Start the script as soon as the node is up.',
            read_only=True),
    Setting('grip_force', 10.0, 'Closing force of each finger, N (0 = never close).',
            0.0, 20.0, read_only=True),
    Setting('approach_height', 0.1, 'Start height above the grasp, m.', 0.0, 0.5,
            read_only=True),
    Setting('lift_height', 0.2, 'How far to lift, m.', 0.0, 0.5, read_only=True),
    Setting('approach_duration', 1.0, 'Approach phase, s.', 0.01, 60.0, read_only=True),
    Setting('close_duration', 1.0, 'Close phase, s.', 0.01, 60.0, read_only=True),
    Setting('close_ramp', 0.5, 'Time for the grip force to rise from 0 at the start of the '
            'close, s (at most close_duration).', 0.0, 60.0, read_only=True),
    Setting('lift_duration', 1.5, 'Lift phase, s.', 0.01, 60.0, read_only=True),
    Setting('close_speed', 0.0, 'Close at this finger speed (a moving position target, the '
            'grip force its cap), m/s; 0 = under the grip force.', 0.0, 1.0, read_only=True),
    Setting('hosted', False, "In the simulator's process, commanding its ticks directly "
            '(set by the simulator with its `controller` parameter; no servo_commands).',
            read_only=True),
)


def pick_lift_script(p: Mapping[str, Any]) -> PickLiftScript:
    """Return the scripted pick of parameter values ``p`` (the node's, or a scenario's)."""
    return PickLiftScript(
        approach_height_m=p['approach_height'], lift_height_m=p['lift_height'],
        grip_force_n=p['grip_force'], approach_duration_s=p['approach_duration'],
        close_duration_s=p['close_duration'], close_ramp_s=p['close_ramp'],
        close_speed_m_per_s=p['close_speed'], lift_duration_s=p['lift_duration'])


@dataclass(frozen=True)
class GraspControllerSettings:
    """The ``grasp_controller`` node's parameters as it uses them.

    Attributes:
        script: the scripted pick.
        rate_hz: command rate, Hz.
        autostart: start the script when the node is up.
        hosted: in the simulator's process.
        qos: of ``servo_commands/full``.
    """

    script: PickLiftScript
    rate_hz: float
    autostart: bool
    hosted: bool
    qos: QoSProfile


def node_settings(p: Mapping[str, Any]) -> GraspControllerSettings:
    """Return what the node makes of its parameter values ``p``: they are read here only."""
    return GraspControllerSettings(
        script=pick_lift_script(p), rate_hz=p['rate'], autostart=p['autostart'],
        hosted=p['hosted'], qos=sensor_qos(p['qos.best_effort'], p['qos.depth']))
