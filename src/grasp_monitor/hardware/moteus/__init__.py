"""moteus controllers through the ``moteus`` library, and a test double of their bus.

``config``: the bank and its limits; ``observation``: what the controllers report;
``transport``: the CAN-FD transport; ``servos``: ``MoteusServos``, the regulated loop the
``moteus_servos`` node wraps. ``protocol``, ``double_config`` and ``double``: the
``TransportDouble`` that simulates controllers under the real library, for tests.
"""

from grasp_monitor.hardware.moteus.config import (
    apply_limits, MoteusConfig, PI3HAT_BUSES, TRANSPORTS,
)
from grasp_monitor.hardware.moteus.double import (
    MODE_FAULT, MODE_POSITION, MODE_STOPPED, MODE_TIMEOUT, ReceivedFrame, ServoState,
    TransportDouble,
)
from grasp_monitor.hardware.moteus.double_config import DoubleConfig
from grasp_monitor.hardware.moteus.observation import (
    FAULT_DESCRIPTIONS, LIMIT_DESCRIPTIONS, LoopStats, MoteusObservation, ServoFault,
)
from grasp_monitor.hardware.moteus.protocol import (
    decode_frame, decode_value, encode_reply, encode_value, F32, INT16, INT32, INT8,
    pad_to_can_fd, ProtocolError, REGISTERS, RESOLUTION_NAMES, Subframe,
)
from grasp_monitor.hardware.moteus.servos import MoteusServos, RAD_PER_REV
from grasp_monitor.hardware.moteus.transport import make_transport, routed_transport

__all__ = [
    # the backend
    'apply_limits', 'FAULT_DESCRIPTIONS', 'LIMIT_DESCRIPTIONS', 'LoopStats', 'make_transport',
    'MoteusConfig', 'MoteusObservation', 'MoteusServos', 'PI3HAT_BUSES', 'RAD_PER_REV',
    'routed_transport', 'ServoFault', 'TRANSPORTS',
    # the protocol and the test double
    'decode_frame', 'decode_value', 'DoubleConfig', 'encode_reply', 'encode_value', 'F32',
    'INT16', 'INT32', 'INT8', 'MODE_FAULT', 'MODE_POSITION', 'MODE_STOPPED', 'MODE_TIMEOUT',
    'pad_to_can_fd', 'ProtocolError', 'ReceivedFrame', 'REGISTERS', 'RESOLUTION_NAMES',
    'ServoState', 'Subframe', 'TransportDouble',
]
