"""Named sensor presets: ``ideal`` (exact), ``typical`` and ``harsh``.

Every number is justified, with its public source, in docs/realism.md. The
joint presets are for prismatic fingers in metres; a revolute joint needs its
own (rad) values through the overrides.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from grasp_monitor.core.realism.joints import JointRealismConfig
from grasp_monitor.core.realism.tactile import TactileRealismConfig

#: The preset names, from exact to worst.
PRESET_NAMES = ('ideal', 'typical', 'harsh')

#: Tactile and joint configurations of each preset.
PRESETS: Mapping[str, tuple[TactileRealismConfig, JointRealismConfig]] = MappingProxyType({
    'ideal': (TactileRealismConfig(), JointRealismConfig()),
    'typical': (
        TactileRealismConfig(
            noise_n=0.002, offset_n=0.02, drift_n_per_s=0.002, gain_error=0.05,
            hysteresis=0.05, full_scale_n=0.5, bits=12, dead_fraction=0.005,
            stuck_fraction=0.005, crosstalk=0.03, drop_rate=0.01, latency_s=0.004),
        JointRealismConfig(
            resolution=2.5e-6, velocity_noise=0.015, backlash=1e-4, differentiate=True,
            latency_s=0.001, drop_rate=0.01)),
    'harsh': (
        TactileRealismConfig(
            noise_n=0.006, offset_n=0.06, drift_n_per_s=0.006, gain_error=0.15,
            hysteresis=0.15, full_scale_n=0.3, bits=10, dead_fraction=0.02,
            stuck_fraction=0.02, crosstalk=0.1, drop_rate=0.03, latency_s=0.010),
        JointRealismConfig(
            resolution=1e-5, velocity_noise=0.04, backlash=3e-4, differentiate=True,
            latency_s=0.004, drop_rate=0.03)),
})
