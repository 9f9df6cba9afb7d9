"""The servos' settings: the one table the servo plugin, the servo nodes and the configs read."""

from __future__ import annotations

import math

from grasp_monitor.core.settings import Setting

#: The watchdog every servo bank has, simulated or moteus.
COMMAND_TIMEOUT = Setting(
    'command_timeout', 0.25, 'Servo watchdog: no command for this long stops the servos, s; '
    '0 disables it.', 0.0, 60.0, read_only=True)

#: Settings of a bank of simulated servos (the ``servo`` motor plugin).
SERVO_SETTINGS = (
    Setting('kp', 300.0, 'Position gain at kp_scale 1, N*m/rad (N/m on a slide joint).',
            0.0, math.inf),
    Setting('kd', 10.0, 'Velocity gain at kd_scale 1, N*m*s/rad (N*s/m).', 0.0, math.inf),
    Setting('maximum_torque', 1.0, 'Torque limit of a command that sets none, N*m (N).',
            0.0, math.inf),
    COMMAND_TIMEOUT,
)
