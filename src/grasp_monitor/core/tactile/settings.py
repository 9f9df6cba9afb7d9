"""A tactile array's settings: the one table its plugin, its node and the commands read."""

from __future__ import annotations

from grasp_monitor.core.noise import NOISE_SETTINGS
from grasp_monitor.core.settings import Setting
from grasp_monitor.core.tactile.config import LAYOUT_MODES, RESPONSE_FUNCTIONS, TOUCH_FUNCTIONS

#: Settings of one tactile array (pad), noise included.
TACTILE_SETTINGS = (
    Setting('resolution', 0.003, 'Taxel spacing, m; spread_linear reaches twice this.',
            1e-4, 1.0),
    Setting('layout', 'primitives', 'Taxels from analytic primitives, or from merged '
            'trimesh meshes with hidden taxels removed.', choices=LAYOUT_MODES),
    Setting('touch', 'force_vector', 'What each taxel reports: the normal force (normal: '
            'its size; normal_force: the vector) or the whole force (force_vector), in the '
            'pad frame, or the whole force in the world frame (force_vector_global), N.',
            choices=tuple(TOUCH_FUNCTIONS)),
    Setting('response', 'spread_linear', 'How a contact force is shared among taxels: all to '
            'the nearest, or spread_linear to those within twice the resolution.',
            choices=RESPONSE_FUNCTIONS),
) + NOISE_SETTINGS
#: Each setting by name.
BY_NAME = {setting.name: setting for setting in TACTILE_SETTINGS}
