"""The MuJoCo backend: ``Simulator``, the one owner of ``MjModel`` and ``MjData``.

Its pieces: names resolved to ids once (``names``), servo commands as actuator
parameters (``servo_actuators``), the force test's external force
(``external_force``) and the body tree as frames (``frame_tree``).
"""

from grasp_monitor.sim.backend.simulator import Simulator

__all__ = ['Simulator']
