"""Messages as the bytes rclpy publishes: serialised once, their numbers rewritten in place.

A stream whose messages keep one layout from tick to tick (the same names, frames and
sizes) is serialised once into a ``Template``; each tick writes its numbers into the
template's bytes through numpy views and publishes the bytes (``Publisher.publish``
takes serialised messages). The encoding: ``cdr``.
"""

from __future__ import annotations

import struct
from typing import Any

from grasp_monitor.nodes.conversions.cdr import ENCAPSULATION, struct_code
import numpy as np
from rosidl_parser.definition import (
    AbstractNestedType, AbstractSequence, AbstractString, AbstractWString, Array, BasicType,
    NamespacedType)


class _Writer:
    """Serialises one message, noting where each basic field and array lies."""

    def __init__(self) -> None:
        self.data = bytearray(ENCAPSULATION)
        self.fields: dict[str, tuple[int, str, int]] = {}  # path -> (offset, code, count)
        self.spans: list[tuple[int, int]] = []  # (offset, length) of every byte not padding

    def extend(self, data: bytes) -> None:
        self.spans.append((len(self.data), len(data)))
        self.data.extend(data)

    def align(self, size: int) -> None:
        self.data.extend(b'\x00' * (-(len(self.data) - len(ENCAPSULATION)) % size))

    def basic(self, path: str, code: str, values: list) -> None:
        if values:  # Fast CDR aligns no empty sequence (its size bound does: bytes at the end)
            self.align(struct.calcsize(code))
        self.fields[path] = (len(self.data), code, len(values))
        self.extend(struct.pack(f'<{len(values)}{code}', *values))

    def string(self, value: str) -> None:
        encoded = value.encode() + b'\x00'
        self.align(4)
        self.extend(struct.pack('<I', len(encoded)) + encoded)

    def count(self, n: int) -> None:
        self.align(4)
        self.extend(struct.pack('<I', n))

    def message(self, msg: Any, path: str = '') -> None:
        for (name, _), slot in zip(msg.get_fields_and_field_types().items(), msg.SLOT_TYPES):
            self.value(slot, getattr(msg, name), f'{path}{name}')

    def value(self, slot, value: Any, path: str) -> None:
        if isinstance(slot, BasicType):
            self.basic(path, struct_code(slot), [_plain(value, slot)])
        elif isinstance(slot, AbstractWString):
            raise TypeError(f'{path}: wide strings are not supported')
        elif isinstance(slot, AbstractString):
            self.string(value)
        elif isinstance(slot, NamespacedType):
            self.message(value, f'{path}.')
        elif isinstance(slot, AbstractNestedType):
            items = value if isinstance(value, (bytes, bytearray)) else list(value)
            if isinstance(slot, AbstractSequence):
                self.count(len(items))
            elif isinstance(slot, Array) and len(items) != slot.size:
                raise ValueError(f'{path}: {len(items)} items, the array holds {slot.size}')
            inner = slot.value_type
            if isinstance(inner, BasicType) and struct_code(inner) == 'B':  # bytes: as they are
                self.fields[path] = (len(self.data), 'B', len(items))
                self.extend(bytes(value))
            elif isinstance(inner, BasicType):
                self.basic(path, struct_code(inner), [_plain(v, inner) for v in items])
            else:
                for i, item in enumerate(items):
                    self.value(inner, item, f'{path}[{i}]')
        else:
            raise TypeError(f'{path}: unsupported slot type {type(slot).__name__}')


def _plain(value: Any, slot: BasicType) -> Any:
    """Return ``value`` as struct packs it (bytes of length 1 for octets become ints)."""
    if isinstance(value, (bytes, bytearray)):
        return value[0]
    if slot.typename in ('float', 'double'):
        return float(value)
    if slot.typename == 'boolean':
        return bool(value)
    return int(value)


class Template:
    """One message serialised, with numpy views onto its numbers for rewriting them.

    Attributes:
        fields: where each basic field or array of basic values lies: path -> (offset,
            struct code, count).
        spans: (offset, length) of every run of bytes that is not alignment padding.

    Args:
        msg: a message with the layout of every message to come: strings and sequence
            lengths stay as they are here; numbers are rewritten with ``view``.
    """

    def __init__(self, msg: Any) -> None:
        writer = _Writer()
        writer.message(msg)
        self.buffer = writer.data
        self.fields = writer.fields
        self.spans = writer.spans
        # every 8- and 4-byte number is aligned from the end of the header: one view each
        body = len(self.buffer) - len(ENCAPSULATION)
        self.doubles = np.frombuffer(self.buffer, '<f8', body // 8, len(ENCAPSULATION))
        self.int32s = np.frombuffer(self.buffer, '<i4', body // 4, len(ENCAPSULATION))

    def index(self, path: str, count: int = 1) -> np.ndarray:
        """Return the indices in ``doubles`` (a double) or ``int32s`` of the field at ``path``.

        ``path`` names a basic field as ``header.stamp.sec`` or ``transforms[2].header``…;
        ``count`` values from there on (e.g. x, y, z of a Point from ``x``).
        """
        offset, code, _ = self.fields[path]
        size = struct.calcsize(code)
        if size not in (4, 8):
            raise TypeError(f'{path}: {size}-byte values have no view')
        return (offset - len(ENCAPSULATION)) // size + np.arange(count)

    def view(self, path: str) -> np.ndarray:
        """Return a writable view of the basic field or array at ``path``, of its own type."""
        offset, code, n = self.fields[path]
        return np.frombuffer(self.buffer, np.dtype(code).newbyteorder('<'), n, offset)

    def serialized(self) -> bytes:
        """Return the message as it is now, ready for ``Publisher.publish``."""
        return bytes(self.buffer)
