"""grasp_monitor: watch a robot hand grasp things, in simulation and on hardware."""

__version__ = '0.1.0'
