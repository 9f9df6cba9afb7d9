"""The energy metric of the physics-engine grasp benchmark and its tracker over a trial.

``rigid_body``: the metric of bodies (numpy, the statement tests compare with);
``block_scoring``: the tracker's compiled kernel; ``tracker``: ``EnergyTracker``
with its configuration (``config``) and results (``samples``).
"""

from grasp_monitor.core.energy.block_scoring import compile_block_scoring
from grasp_monitor.core.energy.config import (
    DEFAULT_THRESHOLD_J, DESIRED_VELOCITIES, EnergyTrackerConfig)
from grasp_monitor.core.energy.rigid_body import energy, inertia_in_world, to_omega
from grasp_monitor.core.energy.samples import EnergyBlock, EnergySample
from grasp_monitor.core.energy.tracker import EnergyTracker

__all__ = [
    'compile_block_scoring', 'DEFAULT_THRESHOLD_J', 'DESIRED_VELOCITIES', 'energy', 'EnergyBlock',
    'EnergySample',
    'EnergyTracker', 'EnergyTrackerConfig', 'inertia_in_world', 'to_omega',
]
