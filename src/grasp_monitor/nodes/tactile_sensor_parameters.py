"""Declared parameters of the ``tactile_sensor`` node.

Per-pad settings are arrays aligned with ``pads`` (ROS parameters cannot be
nested, and these can be declared before the pads are known): an array of
one value sets every pad, otherwise it needs one value per pad. The realism
settings (``realism.preset``, ``realism.seed``, ``realism.tactile.*``) hold for
every pad, each drawing its own stream from the seed.
"""

from dataclasses import replace

from grasp_monitor.core.realism import TACTILE_REALISM_SETTINGS
from grasp_monitor.core.settings import Setting
from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
from grasp_monitor.core.tactile.settings import TACTILE_SETTINGS
from grasp_monitor.nodes.params import COMMON

#: The tactile array's settings, as arrays of one value per pad (or one for all).
PER_PAD_SETTINGS = tuple(setting.per_item('One value per pad, or one for all.')
                         for setting in TACTILE_SETTINGS)
#: Their names: the per-pad keyword arguments of ``sim.sensors.pad_specs``.
PER_PAD = tuple(setting.name for setting in PER_PAD_SETTINGS)

PARAMETERS = COMMON + (
    Setting('pads', ['finger_left', 'finger_right'],
            "Pads, each published on tactile/<pad>; default: the scene's pads.",
            read_only=True),
    Setting('bodies', [''], "Body of each pad ('' = the body named like the pad).",
            read_only=True),
    *(replace(setting, choices=PAD_FRAME_TOUCH_FUNCTIONS) if setting.name == 'touch'
      else setting for setting in PER_PAD_SETTINGS),
    Setting('publish_rate', 500.0,
            'tactile/<pad> rate, Hz: every k-th simulator tick, k = round(tick rate / rate).',
            1.0, 2000.0, read_only=True),
    Setting('markers_rate', 10.0, 'tactile/markers rate, Hz (0 = none).', 0.0, 100.0,
            read_only=True),
    Setting('markers_full_scale', 1.0, 'Taxel force drawn largest and reddest, N.', 1e-6,
            1e4, read_only=True),
) + TACTILE_REALISM_SETTINGS
