"""CDR as rmw_fastrtps writes it: what ``cdr_template`` writes and ``cdr_reader`` reads.

Building a ROS message in Python and having rclpy convert it on ``publish`` costs more
than a tick's physics, and so does rclpy building one from the bytes it received.
Publishers therefore serialise a message once into a ``cdr_template.Template`` and
rewrite its numbers; raw subscriptions read the bytes with ``cdr_reader``. The bytes
are little endian, fields aligned to their size from the end of the 4-byte
encapsulation header; the tests check them against rclpy's ``serialize_message``.
"""

from __future__ import annotations

from rosidl_parser.definition import BasicType

#: CDR, little endian, no options.
ENCAPSULATION = b'\x00\x01\x00\x00'

#: struct code of each basic type.
CODES = {'boolean': '?', 'octet': 'B', 'char': 'B', 'uint8': 'B', 'int8': 'b',
         'uint16': 'H', 'int16': 'h', 'uint32': 'I', 'int32': 'i', 'uint64': 'Q',
         'int64': 'q', 'float': 'f', 'double': 'd'}


def struct_code(slot: BasicType) -> str:
    """Return the struct code of a basic type."""
    return CODES[slot.typename]
