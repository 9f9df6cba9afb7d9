"""Messages read from the bytes a raw subscription takes, without building them.

``read_message`` (one ``Reader`` per type) walks a plan of the type's fields made once,
merging runs of numbers into one ``struct`` call and arrays into numpy views. The
encoding: ``cdr``.
"""

from __future__ import annotations

from functools import lru_cache
import importlib
import struct
from typing import Any

from grasp_monitor.core.errors import InputError
from grasp_monitor.nodes.conversions.cdr import ENCAPSULATION, struct_code
import numpy as np
from rosidl_parser.definition import (
    AbstractNestedType, AbstractSequence, AbstractString, AbstractWString, BasicType,
    NamespacedType)


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
            code = struct_code(slot)
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
                steps.append(('array', name, struct_code(inner), size_or_none))
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
        InputError: the bytes are not a message of this type ('malformed').
    """

    def __init__(self, msg_type: type) -> None:
        self.msg_type = msg_type
        self.plan = _plan(msg_type)

    def __call__(self, raw: bytes) -> Fields:
        """Return the message in ``raw`` (serialised, as a raw subscription takes it)."""
        if raw[:2] != ENCAPSULATION[:2]:
            raise InputError(f'a {self.msg_type.__name__} must be little-endian CDR, got '
                             f'encapsulation {raw[:2].hex()}', 'malformed')
        try:
            fields, end = _read(self.plan, raw, _ORIGIN)
        except (struct.error, UnicodeDecodeError, ValueError) as error:
            raise InputError(f'not a {self.msg_type.__name__}: {error}',
                             'malformed') from None
        if end > len(raw):
            raise InputError(f'a {self.msg_type.__name__} of {len(raw)} bytes needs {end}',
                             'malformed')
        return fields


@lru_cache(maxsize=None)
def reader(msg_type: type) -> Reader:
    """Return the ``Reader`` of ``msg_type`` (one per type and process)."""
    return Reader(msg_type)


def read_message(raw: bytes, msg_type: type) -> Fields:
    """Read a serialised ``msg_type`` (a raw subscription's message) into ``Fields``."""
    return reader(msg_type)(raw)
