"""The moteus register protocol as the transport double reads it (reference, appendix A).

Written from the reference, not with the moteus library's parser, so that a disagreement
between the two shows up as a failing test instead of cancelling out.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import struct
from typing import Sequence

from grasp_monitor.core.errors import GraspMonitorError

#: Value types of the register protocol, as coded in bits 2-3 of a subframe opcode.
INT8, INT16, INT32, F32 = 0, 1, 2, 3
RESOLUTION_NAMES = ('int8', 'int16', 'int32', 'f32')
_PACK = tuple(struct.Struct(f) for f in ('<b', '<h', '<i', '<f'))
_INT_LIMITS = ((-128, 127), (-32768, 32767), (-2 ** 31, 2 ** 31 - 1))

# Subframe opcodes (upper nibble) of the multiplex protocol.
_WRITE, _READ, _REPLY, _ERROR, _NOP = 0x00, 0x10, 0x20, 0x30, 0x50
_READ_ERROR = 0x31
_UNKNOWN_REGISTER = 1

# Size of one LSB in the int8, int16 and int32 encodings, per kind of register.
_POSITION = (0.01, 0.0001, 0.00001)        # revolutions
_VELOCITY = (0.1, 0.00025, 0.00001)        # revolutions per second
_TORQUE = (0.5, 0.01, 0.001)               # N·m
_CURRENT = (1.0, 0.1, 0.001)               # A
_POWER = (10.0, 0.05, 0.0001)              # W
_VOLTAGE = (0.5, 0.1, 0.001)               # V
_TEMPERATURE = (1.0, 0.1, 0.001)           # °C
_RATIO = (1 / 127, 1 / 32767, 1 / 2147483647)
_TIME = (0.01, 0.001, 0.000001)            # s
_ACCEL = (0.05, 0.001, 0.00001)            # revolutions per second²
_INTEGER = None

#: The registers the double understands: number -> (name, LSB sizes or None for integers).
REGISTERS: dict[int, tuple[str, tuple[float, float, float] | None]] = {
    0x000: ('mode', _INTEGER),
    0x001: ('position', _POSITION),
    0x002: ('velocity', _VELOCITY),
    0x003: ('torque', _TORQUE),
    0x004: ('q_current', _CURRENT),
    0x005: ('d_current', _CURRENT),
    0x006: ('abs_position', _POSITION),
    0x007: ('power', _POWER),
    0x00a: ('motor_temperature', _TEMPERATURE),
    0x00b: ('trajectory_complete', _INTEGER),
    0x00c: ('home_state', _INTEGER),
    0x00d: ('voltage', _VOLTAGE),
    0x00e: ('temperature', _TEMPERATURE),
    0x00f: ('fault', _INTEGER),
    0x020: ('command_position', _POSITION),
    0x021: ('command_velocity', _VELOCITY),
    0x022: ('command_feedforward_torque', _TORQUE),
    0x023: ('command_kp_scale', _RATIO),
    0x024: ('command_kd_scale', _RATIO),
    0x025: ('command_maximum_torque', _TORQUE),
    0x026: ('command_stop_position', _POSITION),
    0x027: ('command_watchdog_timeout', _TIME),
    0x028: ('command_velocity_limit', _VELOCITY),
    0x029: ('command_accel_limit', _ACCEL),
    0x02a: ('command_fixed_voltage_override', _VOLTAGE),
    0x02b: ('command_ilimit_scale', _RATIO),
    0x02c: ('command_fixed_current_override', _CURRENT),
    0x02d: ('command_ignore_position_bounds', _INTEGER),
}

_CAN_FD_SIZES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64)


class ProtocolError(GraspMonitorError, ValueError):
    """A frame the double cannot decode; the message says where and why."""


def _read_varuint(data: bytes, offset: int) -> tuple[int, int]:
    value, shift = 0, 0
    for i in range(5):
        if offset + i >= len(data):
            raise ProtocolError(f'varuint runs past the end of the frame at byte {offset}')
        byte = data[offset + i]
        value |= (byte & 0x7f) << shift
        shift += 7
        if not byte & 0x80:
            return value, offset + i + 1
    raise ProtocolError(f'varuint longer than 5 bytes at byte {offset}')


def _varuint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7f, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def decode_value(register: int, resolution: int, raw: float) -> float:
    """Return a raw register value in physical units (rev, rev/s, N·m, V, °C, s, ...).

    The most negative integer of a scaled register means NaN ("unset").
    """
    scales = REGISTERS.get(register, ('', _INTEGER))[1]
    if resolution == F32:
        return float(raw)
    if scales is None:
        return float(raw)
    if raw == _INT_LIMITS[resolution][0]:
        return math.nan
    return raw * scales[resolution]


def encode_value(register: int, resolution: int, value: float) -> int | float:
    """Return the raw value a controller sends for ``value`` (rounded, saturated)."""
    if resolution == F32:
        return float(value)
    low, high = _INT_LIMITS[resolution]
    scales = REGISTERS[register][1]
    if not math.isfinite(value):
        return low if scales is not None else 0
    scaled = value if scales is None else value / scales[resolution]
    # The most negative integer is reserved for NaN, so saturate one above it.
    return int(min(max(round(scaled), low + 1), high))


@dataclass(frozen=True)
class Subframe:
    """One decoded register subframe.

    Attributes:
        kind: 'write', 'read' or 'reply'.
        register: register number.
        resolution: INT8, INT16, INT32 or F32.
        value: physical value for writes and replies (rev, rev/s, N·m, ...); None for reads.
    """

    kind: str
    register: int
    resolution: int
    value: float | None = None

    @property
    def name(self) -> str:
        """The register's name, or its number in hex when the double does not know it."""
        return REGISTERS.get(self.register, (f'0x{self.register:03x}', None))[0]


def decode_frame(data: bytes) -> list[Subframe]:
    """Decode the register subframes of a moteus frame (NOP padding is skipped).

    Raises:
        ProtocolError: truncated data or an opcode the double does not speak.
    """
    out: list[Subframe] = []
    offset = 0
    while offset < len(data):
        opcode = data[offset]
        offset += 1
        upper, resolution, count = opcode & 0xf0, (opcode >> 2) & 0x3, opcode & 0x3
        if opcode == _NOP:
            continue
        if upper not in (_WRITE, _READ, _REPLY):
            raise ProtocolError(f'unsupported subframe opcode 0x{opcode:02x} at byte {offset - 1}')
        if count == 0:
            count, offset = _read_varuint(data, offset)
        register, offset = _read_varuint(data, offset)
        kind = {_WRITE: 'write', _READ: 'read', _REPLY: 'reply'}[upper]
        for i in range(count):
            value = None
            if kind != 'read':
                size = _PACK[resolution].size
                if offset + size > len(data):
                    raise ProtocolError(f'register 0x{register + i:03x} runs past the frame end')
                raw = _PACK[resolution].unpack_from(data, offset)[0]
                offset += size
                value = decode_value(register + i, resolution, raw)
            out.append(Subframe(kind, register + i, resolution, value))
    return out


def encode_reply(values: Sequence[tuple[int, int, float | None]]) -> bytes:
    """Encode register replies, grouping consecutive registers of one resolution.

    Args:
        values: (register, resolution, physical value) in request order; a value of
            None answers with a read error for that register, as the firmware does for a
            register it does not have.
    """
    out = bytearray()
    i = 0
    while i < len(values):
        register, resolution, value = values[i]
        if value is None:
            out += bytes([_READ_ERROR]) + _varuint(register) + _varuint(_UNKNOWN_REGISTER)
            i += 1
            continue
        run = 1
        while (i + run < len(values) and values[i + run][1] == resolution
               and values[i + run][0] == register + run and values[i + run][2] is not None):
            run += 1
        opcode = _REPLY | (resolution << 2)
        out += bytes([opcode | run]) if run <= 3 else bytes([opcode]) + _varuint(run)
        out += _varuint(register)
        for reg, _, val in values[i:i + run]:
            out += _PACK[resolution].pack(encode_value(reg, resolution, float(val)))
        i += run
    return bytes(out)


def pad_to_can_fd(data: bytes) -> bytes:
    """Pad ``data`` with NOPs to the next CAN-FD frame length, as a real adapter does.

    Raises:
        ProtocolError: more than 64 bytes.
    """
    for size in _CAN_FD_SIZES:
        if size >= len(data):
            return data + bytes([_NOP]) * (size - len(data))
    raise ProtocolError(f'a CAN-FD frame carries at most 64 bytes, this one has {len(data)}')
