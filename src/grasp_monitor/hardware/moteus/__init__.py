"""moteus controllers through the ``moteus`` library.

``config``: the bank and its limits; ``observation``: what the controllers report;
``transport``: the CAN-FD transport; ``status``: the bank's health as diagnostics say it;
``servos``: ``MoteusServos``, the regulated loop the ``moteus_servos`` node wraps. The test
double of their bus is ``hardware.moteus_double``.
"""

from grasp_monitor.hardware.moteus.config import (
    apply_limits, MoteusConfig, PI3HAT_BUSES, TRANSPORTS,
)
from grasp_monitor.hardware.moteus.observation import (
    FAULT_DESCRIPTIONS, LIMIT_DESCRIPTIONS, LoopStats, MoteusObservation, ServoFault,
)
from grasp_monitor.hardware.moteus.servos import MoteusServos, RAD_PER_REV
from grasp_monitor.hardware.moteus.status import bank_statuses, MODE_NAMES, Status
from grasp_monitor.hardware.moteus.transport import make_transport, routed_transport

__all__ = [
    'apply_limits', 'bank_statuses', 'FAULT_DESCRIPTIONS', 'LIMIT_DESCRIPTIONS', 'LoopStats',
    'make_transport', 'MODE_NAMES', 'MoteusConfig', 'MoteusObservation', 'MoteusServos',
    'PI3HAT_BUSES', 'RAD_PER_REV', 'routed_transport', 'ServoFault', 'Status', 'TRANSPORTS',
]
