"""The servos' settings: the one table the servo plugin, the servo nodes and the configs read."""

from __future__ import annotations

import math

from grasp_monitor.core.noise import NOISE_TYPES
from grasp_monitor.core.settings import Setting

#: What the watchdog commands once commands stop (``ServoConfig.watchdog_action``).
WATCHDOG_ACTIONS = ('zero_torque', 'neutral')

#: The watchdog every servo bank has, simulated or moteus.
COMMAND_TIMEOUT = Setting(
    'command_timeout', 0.25, 'Servo watchdog: no command for this long stops the servos, s; '
    '0 disables it.', 0.0, 60.0, read_only=True)
#: What the watchdog does, simulated or moteus.
WATCHDOG_ACTION = Setting(
    'watchdog_action', WATCHDOG_ACTIONS[0], 'What the watchdog commands: zero_torque, or '
    'neutral (no position term, velocity 0, kp/kd scales 1, the default maximum_torque): '
    'the servos damped still.', choices=WATCHDOG_ACTIONS, read_only=True)
#: Noise on the simulated servos' torque commands.
MOTOR_NOISE_SETTINGS = (
    Setting('motor_noise_type', 'none', "Noise added to every servo's feedforward torque, "
            'redrawn every control tick; the torque stays within maximum_torque.',
            choices=NOISE_TYPES, read_only=True),
    Setting('motor_noise_range', 0.0, 'Gaussian standard deviation or uniform half-width of '
            'the motor noise, N*m (N).', 0.0, 1e6, read_only=True),
    Setting('motor_noise_seed', 0, 'Seed of the motor noise; the same seed gives the same '
            'noise at the same ticks (-1 draws a fresh one).', -1, 2 ** 63 - 1,
            read_only=True),
)

#: Settings of a bank of simulated servos (the ``servo`` motor plugin).
SERVO_SETTINGS = (
    Setting('kp', 300.0, 'Position gain at kp_scale 1, N*m/rad (N/m on a slide joint).',
            0.0, math.inf),
    Setting('kd', 10.0, 'Velocity gain at kd_scale 1, N*m*s/rad (N*s/m).', 0.0, math.inf),
    Setting('maximum_torque', 1.0, 'Torque limit of a command that sets none, N*m (N).',
            0.0, math.inf),
    COMMAND_TIMEOUT,
    WATCHDOG_ACTION,
) + MOTOR_NOISE_SETTINGS
