"""Servos: the moteus law over a bank of joints, and the backend interface nodes use.

``fields``: a command's columns; ``config``: ``ServoConfig``; ``command``:
``ServoCommand``; ``law``: ``servo_torque``; ``motor_noise``: ``MotorNoise``; ``bank``:
``ServoBank`` (watchdog and telemetry) and ``ServoObservation``; ``settings``: the
servos' settings table;
``backend``: ``ServoBackend``, what the simulated and the moteus servos offer.
"""

from grasp_monitor.core.servo.backend import ServoBackend
from grasp_monitor.core.servo.bank import ServoBank, ServoObservation
from grasp_monitor.core.servo.command import ServoCommand
from grasp_monitor.core.servo.config import ServoConfig
from grasp_monitor.core.servo.fields import COMMAND_DEFAULTS, COMMAND_FIELDS, COMMAND_LIMIT
from grasp_monitor.core.servo.law import servo_torque
from grasp_monitor.core.servo.motor_noise import MotorNoise
from grasp_monitor.core.servo.settings import (
    COMMAND_TIMEOUT, MOTOR_NOISE_SETTINGS, SERVO_SETTINGS, WATCHDOG_ACTION, WATCHDOG_ACTIONS)

__all__ = [
    'COMMAND_DEFAULTS', 'COMMAND_FIELDS', 'COMMAND_LIMIT', 'COMMAND_TIMEOUT',
    'MOTOR_NOISE_SETTINGS', 'MotorNoise', 'SERVO_SETTINGS', 'servo_torque', 'ServoBackend',
    'ServoBank', 'ServoCommand', 'ServoConfig', 'ServoObservation', 'WATCHDOG_ACTION',
    'WATCHDOG_ACTIONS',
]
