"""A test double of a moteus CAN-FD bus, speaking the real library's protocol.

``protocol``: frames and registers as the ``moteus`` library encodes them; ``config``:
the simulated controllers; ``double``: ``TransportDouble``, a ``moteus.TransportDevice``
that answers the real library as controllers would. For tests, where no controller is.
"""

from grasp_monitor.hardware.moteus_double.config import DoubleConfig
from grasp_monitor.hardware.moteus_double.double import (
    MODE_FAULT, MODE_POSITION, MODE_STOPPED, MODE_TIMEOUT, ReceivedFrame, ServoState,
    TransportDouble)
from grasp_monitor.hardware.moteus_double.protocol import (
    decode_frame, decode_value, encode_reply, encode_value, F32, INT16, INT32, INT8,
    pad_to_can_fd, ProtocolError, REGISTERS, RESOLUTION_NAMES, Subframe)

__all__ = [
    'decode_frame', 'decode_value', 'DoubleConfig', 'encode_reply', 'encode_value', 'F32',
    'INT16', 'INT32', 'INT8', 'MODE_FAULT', 'MODE_POSITION', 'MODE_STOPPED', 'MODE_TIMEOUT',
    'pad_to_can_fd', 'ProtocolError', 'ReceivedFrame', 'REGISTERS', 'RESOLUTION_NAMES',
    'ServoState', 'Subframe', 'TransportDouble',
]
