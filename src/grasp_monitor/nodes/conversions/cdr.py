"""Messages as the bytes rclpy publishes: serialised once, their numbers rewritten in place.

Building a ROS message in Python and having rclpy convert it on ``publish`` costs more
than a tick's physics. A stream whose messages keep one layout from tick to tick (the
same names, frames and sizes) is serialised once into a ``Template``; each tick writes
its numbers into the template's bytes through numpy views and publishes the bytes
(``Publisher.publish`` takes serialised messages). The bytes are CDR as rmw_fastrtps
writes it: little endian, fields aligned to their size from the end of the 4-byte
encapsulation header; the tests check them against rclpy's ``serialize_message``.
"""

from __future__ import annotations

from functools import lru_cache
import importlib
import struct
from typing import Any

from grasp_monitor.core.errors import CommandError
import numpy as np
from rosidl_parser.definition import (
    AbstractNestedType, AbstractSequence, AbstractString, AbstractWString, Array, BasicType,
    NamespacedType)

#: CDR, little endian, no options.
ENCAPSULATION = b'\x00\x01\x00\x00'

#: struct code of each basic type.
_CODES = {'boolean': '?', 'octet': 'B', 'char': 'B', 'uint8': 'B', 'int8': 'b',
          'uint16': 'H', 'int16': 'h', 'uint32': 'I', 'int32': 'i', 'uint64': 'Q',
          'int64': 'q', 'float': 'f', 'double': 'd'}


def _code(slot: BasicType) -> str:
    return _CODES[slot.typename]


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
            self.basic(path, _code(slot), [_plain(value, slot)])
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
            if isinstance(inner, BasicType) and _code(inner) == 'B':  # bytes: as they are
                self.fields[path] = (len(self.data), 'B', len(items))
                self.extend(bytes(value))
            elif isinstance(inner, BasicType):
                self.basic(path, _code(inner), [_plain(v, inner) for v in items])
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


class Fields:
    """A message read from its bytes: its fields as attributes, as the message has them.

    Numbers are Python numbers, strings ``str``, arrays and sequences of numbers read-only
    numpy arrays (bytes for ``uint8[]``), nested messages ``Fields`` again: what the
    conversions read of a message, at a small part of the cost of building it.
    """

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


def _plan(msg_type: type) -> list[tuple]:
    """Return the reading plan of ``msg_type``: one step per field, runs of numbers merged."""
    steps: list[tuple] = []
    for (name, _), slot in zip(msg_type.get_fields_and_field_types().items(),
                               msg_type.SLOT_TYPES):
        if isinstance(slot, BasicType):
            code = _code(slot)
            size = struct.calcsize(code)
            last = steps[-1] if steps else None
            if last and last[0] == 'numbers' and last[3] == size:
                steps[-1] = ('numbers', last[1] + (name,), last[2] + code, size,
                             last[4] + (slot.typename == 'boolean',))
            else:
                steps.append(('numbers', (name,), code, size, (slot.typename == 'boolean',)))
        elif isinstance(slot, AbstractWString):
            raise TypeError(f'{name}: wide strings are not supported')
        elif isinstance(slot, AbstractString):
            steps.append(('string', name))
        elif isinstance(slot, NamespacedType):
            steps.append(('message', name, _plan(_message_class(slot))))
        elif isinstance(slot, AbstractNestedType):
            size_or_none = None if isinstance(slot, AbstractSequence) else slot.size
            inner = slot.value_type
            if isinstance(inner, BasicType):
                steps.append(('array', name, _code(inner), size_or_none))
            elif isinstance(inner, AbstractString):
                steps.append(('strings', name, size_or_none))
            else:
                steps.append(('messages', name, _plan(_message_class(inner)), size_or_none))
        else:
            raise TypeError(f'{name}: unsupported slot type {type(slot).__name__}')
    return steps


def _message_class(slot: NamespacedType) -> type:
    return getattr(importlib.import_module('.'.join(slot.namespaces)), slot.name)


_U32 = struct.Struct('<I')
_ORIGIN = len(ENCAPSULATION)


def _read(plan: list[tuple], raw: bytes, offset: int) -> tuple[Fields, int]:
    fields = Fields()
    values = fields.__dict__
    for step in plan:
        kind = step[0]
        if kind == 'numbers':
            _, names, code, size, flags = step
            offset += -(offset - _ORIGIN) % size
            numbers = struct.unpack_from('<' + code, raw, offset)
            offset += size * len(names)
            for name, number, boolean in zip(names, numbers, flags):
                values[name] = bool(number) if boolean else number
        elif kind == 'string':
            offset += -(offset - _ORIGIN) % 4
            (length,) = _U32.unpack_from(raw, offset)
            values[step[1]] = raw[offset + 4:offset + 3 + length].decode()
            offset += 4 + length
        elif kind == 'message':
            values[step[1]], offset = _read(step[2], raw, offset)
        else:
            count = step[-1]
            if count is None:
                offset += -(offset - _ORIGIN) % 4
                (count,) = _U32.unpack_from(raw, offset)
                offset += 4
            if kind == 'array':
                code = step[2]
                size = struct.calcsize(code)
                if code == 'B':
                    values[step[1]] = raw[offset:offset + count]
                else:
                    if count:
                        offset += -(offset - _ORIGIN) % size
                    values[step[1]] = np.frombuffer(raw, np.dtype(code).newbyteorder('<'),
                                                    count, offset)
                offset += size * count
            elif kind == 'strings':
                items = []
                for _ in range(count):
                    offset += -(offset - _ORIGIN) % 4
                    (length,) = _U32.unpack_from(raw, offset)
                    items.append(raw[offset + 4:offset + 3 + length].decode())
                    offset += 4 + length
                values[step[1]] = items
            else:
                values[step[1]], offset = _read_messages(step, count, raw, offset)
    return fields, offset


#: The latest sequence of messages read by each step, with its bytes: a stream's
#: fields (a PointCloud2's) are the same bytes every message, and read once.
_SEEN: dict[int, tuple[tuple[int, int], bytes, list[Fields]]] = {}


def _read_messages(step: tuple, count: int, raw: bytes,
                   offset: int) -> tuple[list[Fields], int]:
    seen = _SEEN.get(id(step))
    phase = (offset - _ORIGIN) % 8
    if seen is not None and seen[0] == (phase, count) and raw.startswith(seen[1], offset):
        # the same bytes at the same alignment: the same items (read only, shared)
        return seen[2], offset + len(seen[1])
    start = offset
    items = []
    for _ in range(count):
        item, offset = _read(step[2], raw, offset)
        items.append(item)
    _SEEN[id(step)] = ((phase, count), raw[start:offset], items)
    return items, offset


class Reader:
    """Reads the bytes of one message type (a raw subscription's) into ``Fields``.

    Args:
        msg_type: the message class, e.g. ``nav_msgs.msg.Odometry``.

    Raises (on call):
        CommandError: the bytes are not a message of this type ('wrong_layout').
    """

    def __init__(self, msg_type: type) -> None:
        self.msg_type = msg_type
        self.plan = _plan(msg_type)

    def __call__(self, raw: bytes) -> Fields:
        """Return the message in ``raw`` (serialised, as a raw subscription takes it)."""
        if raw[:2] != ENCAPSULATION[:2]:
            raise CommandError(f'a {self.msg_type.__name__} must be little-endian CDR, got '
                               f'encapsulation {raw[:2].hex()}', 'wrong_layout')
        try:
            fields, end = _read(self.plan, raw, _ORIGIN)
        except (struct.error, UnicodeDecodeError, ValueError) as error:
            raise CommandError(f'not a {self.msg_type.__name__}: {error}',
                               'wrong_layout') from None
        if end > len(raw):
            raise CommandError(f'a {self.msg_type.__name__} of {len(raw)} bytes needs {end}',
                               'wrong_layout')
        return fields


@lru_cache(maxsize=None)
def reader(msg_type: type) -> Reader:
    """Return the ``Reader`` of ``msg_type`` (one per type and process)."""
    return Reader(msg_type)


def read_message(raw: bytes, msg_type: type) -> Fields:
    """Read a serialised ``msg_type`` (a raw subscription's message) into ``Fields``."""
    return reader(msg_type)(raw)
