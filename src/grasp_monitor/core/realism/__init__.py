"""What real sensors report: the realism model of tactile arrays and joint encoders.

``tactile``: ``TactileRealismConfig`` and ``TactileRealism`` (noise, offset,
drift, gain, hysteresis, saturation, quantisation, dead and stuck taxels,
crosstalk, drops, latency); ``joints``: ``JointRealismConfig`` and
``JointRealism`` (encoder quantum, backlash, differentiated velocity, jitter,
drops, latency); ``presets``: ``PRESETS`` (ideal, typical, harsh; justified in
docs/realism.md); ``settings``: ``REALISM_SETTINGS`` (and the subsets a tactile and a joint
states node declare), ``realism_configs`` and ``stream_seed`` (a pad's seed from
the one setting).
``kernel`` (the tactile effects in one compiled pass), ``play`` (the play
operator, for backlash), ``crosstalk`` (neighbours), ``stream`` (latency, drops) and
``checks`` are their parts.
"""

from grasp_monitor.core.realism.joints import JointRealism, JointRealismConfig
from grasp_monitor.core.realism.presets import PRESET_NAMES, PRESETS
from grasp_monitor.core.realism.settings import (
    joint_model, JOINT_REALISM_SETTINGS, realism_configs, REALISM_SETTINGS, stream_seed,
    tactile_models, TACTILE_REALISM_SETTINGS)
from grasp_monitor.core.realism.tactile import TactileRealism, TactileRealismConfig

__all__ = [
    'JointRealism', 'JointRealismConfig', 'PRESET_NAMES', 'PRESETS', 'REALISM_SETTINGS',
    'realism_configs', 'stream_seed', 'TactileRealism', 'TactileRealismConfig',
    'JOINT_REALISM_SETTINGS', 'joint_model', 'TACTILE_REALISM_SETTINGS', 'tactile_models',
]
