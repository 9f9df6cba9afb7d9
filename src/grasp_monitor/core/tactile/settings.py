"""A tactile array's settings: the one table its plugin, its node and the commands read."""

from __future__ import annotations

from grasp_monitor.core.noise import NOISE_SETTINGS
from grasp_monitor.core.settings import Setting
from grasp_monitor.core.tactile.config import (
    CONTACT_POINTS, FORCE_FRAMES, LAYOUT_MODES, RESPONSE_FUNCTIONS, TOUCH_FUNCTIONS)

#: Settings of one tactile array (pad), noise included.
TACTILE_SETTINGS = (
    Setting('resolution', 0.003, 'Taxel spacing, m; spread_linear reaches twice this.',
            1e-4, 1.0),
    Setting('layout', 'primitives', 'Taxels from analytic primitives, or from merged '
            'trimesh meshes with hidden taxels removed.', choices=LAYOUT_MODES),
    Setting('touch', 'force_vector', 'What each taxel reports: the normal force (normal: '
            'its size; normal_force: the vector) or the whole force (force_vector), in the '
            'frame force_frame names, or the whole force in the world frame '
            '(force_vector_global), N.',
            choices=tuple(TOUCH_FUNCTIONS)),
    Setting('response', 'spread_linear', 'How a contact force is shared among taxels: all to '
            'the nearest, or spread_linear to those within twice the resolution.',
            choices=RESPONSE_FUNCTIONS),
    Setting('force_frame', FORCE_FRAMES[0], 'Frame of normal_force and force_vector values: '
            "the pad body's (that of the tactile cloud), or that of the geom each taxel lies "
            'on.', choices=FORCE_FRAMES),
    Setting('contact_point', CONTACT_POINTS[0], "Where a contact acts: MuJoCo's point midway "
            "between the surfaces, or that point moved onto the pad's surface.",
            choices=CONTACT_POINTS),
    Setting('slip', False, "Also compute each taxel's slip: the tangential velocity of the "
            'touching surface relative to the pad, in the pad frame, averaged over its '
            'contacts by normal force, m/s (simulation only; published as fields vx vy vz of '
            'each tactile cloud).'),
) + NOISE_SETTINGS
#: Each setting by name.
BY_NAME = {setting.name: setting for setting in TACTILE_SETTINGS}
