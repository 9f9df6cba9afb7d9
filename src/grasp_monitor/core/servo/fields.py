"""The columns of a servo command: their names, their defaults and the largest value."""

from __future__ import annotations

import math

#: Columns of a full command row, in the order of ``servo_commands/full``.
COMMAND_FIELDS = (
    'position', 'velocity', 'feedforward_torque', 'kp_scale', 'kd_scale', 'maximum_torque',
)
#: Largest magnitude a command value may have: MuJoCo's own bound on a control input
#: (mjMAXVAL). Beyond it no servo means anything, and a simulator would diverge.
COMMAND_LIMIT = 1e10
#: What a servo does with a field nobody set (upkie's defaults).
COMMAND_DEFAULTS = {
    'position': math.nan,
    'velocity': 0.0,
    'feedforward_torque': 0.0,
    'kp_scale': 1.0,
    'kd_scale': 1.0,
    'maximum_torque': 1.0,
}
