"""A test double of a CAN-FD bus with moteus controllers on it, under the real moteus library.

``TransportDouble`` is a ``moteus.TransportDevice``: wrap it in ``moteus.Transport`` and
hand that to ``moteus.Controller`` exactly as production code hands it an fdcanusb, so
every command is encoded by the library and every reply is parsed by it. The double
decodes the library's frames with its own reading of the moteus register protocol
(reference, appendix A) rather than with the library's parser, so a disagreement between
the two shows up as a failing test instead of cancelling out.

Each simulated controller runs the moteus position law of ``core/servo.py`` on a rotor
inertia with viscous friction, integrated in output revolutions as the firmware works;
winding temperature and bus voltage come from the core's ``ServoBank`` telemetry model.
Faults, the firmware's own command timeout, silent (unplugged) controllers and reply
latency can be injected. Every frame received is decoded and recorded for assertions.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
import math
import struct
import threading
import time
from typing import Any, Callable, Iterable, Sequence

from grasp_monitor.core.errors import ConfigError, GraspMonitorError
from grasp_monitor.core.servo import servo_torque, ServoBank, ServoCommand, ServoConfig
import moteus
import numpy as np
import numpy.typing as npt

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

#: Controller modes (register 0x000) the double simulates.
MODE_STOPPED, MODE_FAULT, MODE_POSITION, MODE_TIMEOUT = 0, 1, 10, 11
# The six position-mode command registers and what an unwritten one means to the firmware.
_COMMAND_REGISTERS = ('command_position', 'command_velocity', 'command_feedforward_torque',
                      'command_kp_scale', 'command_kd_scale', 'command_maximum_torque')
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


def _per_servo(value: npt.ArrayLike, n: int, name: str) -> np.ndarray:
    try:
        return np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    except ValueError:
        raise ConfigError(f'{name} must be one value or one per servo ({n})') from None


@dataclass(frozen=True)
class DoubleConfig:
    """The simulated controllers on the bus.

    Attributes:
        ids: CAN ids in [1, 126], unique.
        kp_nm_per_rev: (N,) position gain at kp_scale = 1, N·m/rev (the firmware's
            ``servo.pid_position.kp`` units).
        kd_nm_s_per_rev: (N,) velocity gain at kd_scale = 1, N·m·s/rev.
        rotor_inertia_kg_m2: (N,) inertia seen at the output shaft, kg·m².
        viscous_damping_nm_s_per_rad: (N,) friction torque per rad/s.
        system_maximum_torque_nm: torque limit of a command that does not set one, N·m.
        firmware_timeout_s: a controller in position mode that receives no command for
            this long enters the timeout mode (11), as ``servo.default_timeout_s``
            does; 0 disables it.
        initial_position_rev: (N,) output position at start, rev.
        max_step_s: longest integration step, s.
    """

    ids: tuple[int, ...]
    kp_nm_per_rev: npt.ArrayLike = 4.0
    kd_nm_s_per_rev: npt.ArrayLike = 0.1
    rotor_inertia_kg_m2: npt.ArrayLike = 2e-4
    viscous_damping_nm_s_per_rad: npt.ArrayLike = 0.002
    system_maximum_torque_nm: float = 5.0
    firmware_timeout_s: float = 0.1
    initial_position_rev: npt.ArrayLike = 0.0
    max_step_s: float = 0.001

    def __post_init__(self) -> None:
        ids = tuple(self.ids)
        if not ids or any(not isinstance(i, int) or not 1 <= i <= 126 for i in ids) \
                or len(set(ids)) != len(ids):
            raise ConfigError(f'ids must be unique CAN ids in [1, 126], got {list(ids)}')
        object.__setattr__(self, 'ids', ids)
        for name in ('kp_nm_per_rev', 'kd_nm_s_per_rev', 'viscous_damping_nm_s_per_rad',
                     'rotor_inertia_kg_m2', 'initial_position_rev'):
            values = _per_servo(getattr(self, name), len(ids), name)
            if not np.all(np.isfinite(values)):
                raise ConfigError(f'{name} must be finite, got {values.tolist()}')
            if name != 'initial_position_rev' and np.any(values < 0):
                raise ConfigError(f'{name} must be >= 0, got {values.tolist()}')
            values.setflags(write=False)
            object.__setattr__(self, name, values)
        if np.any(self.rotor_inertia_kg_m2 <= 0):  # type: ignore[operator]
            raise ConfigError('rotor_inertia_kg_m2 must be > 0, got '
                              f'{self.rotor_inertia_kg_m2.tolist()}')  # type: ignore[union-attr]
        if not self.system_maximum_torque_nm >= 0:
            raise ConfigError(
                f'system_maximum_torque_nm must be >= 0, got {self.system_maximum_torque_nm}')
        if not self.firmware_timeout_s >= 0:
            raise ConfigError(
                f'firmware_timeout_s must be >= 0 (0 disables), got {self.firmware_timeout_s}')
        if not 0 < self.max_step_s <= 0.01:
            raise ConfigError(f'max_step_s must be in (0, 0.01], got {self.max_step_s}')


@dataclass(frozen=True)
class ReceivedFrame:
    """A frame the double received, decoded.

    Attributes:
        time_s: the double's clock on reception, s.
        destination: CAN id addressed.
        source: CAN id of the sender.
        reply_required: whether the sender asked for a reply (bit 15 of the id).
        writes: register write subframes, values in physical units.
        reads: register read requests.
    """

    time_s: float
    destination: int
    source: int
    reply_required: bool
    writes: tuple[Subframe, ...]
    reads: tuple[Subframe, ...]

    def written(self) -> dict[str, float]:
        """Return the written values by register name (rev, rev/s, N·m, ...)."""
        return {s.name: s.value for s in self.writes}  # type: ignore[misc]


@dataclass(frozen=True)
class ServoState:
    """A snapshot of one simulated controller (output shaft, firmware units)."""

    mode: int
    fault: int
    position_rev: float
    velocity_rev_s: float
    torque_nm: float
    temperature_c: float
    voltage_v: float
    command: dict[str, float]


class TransportDouble(moteus.TransportDevice):
    """Simulated moteus controllers behind the ``moteus.TransportDevice`` interface.

    Use it as ``moteus.Transport(TransportDouble(config))``. Thread-safe: the injection
    methods and the records may be used from another thread than the event loop's.

    Args:
        config: the simulated controllers.
        latency_s: delay before each reply is delivered, s.
        clock: time source for the simulation, s (default ``time.monotonic``).
        max_records: received frames kept for assertions (oldest dropped first).
    """

    def __init__(self, config: DoubleConfig, latency_s: float = 0.0,
                 clock: Callable[[], float] = time.monotonic,
                 max_records: int = 20000) -> None:
        super().__init__()
        if not latency_s >= 0:
            raise ConfigError(f'latency_s must be >= 0, got {latency_s}')
        self.config = config
        self.latency_s = latency_s
        self._clock = clock
        self._lock = threading.Lock()
        self._slot = {servo_id: i for i, servo_id in enumerate(config.ids)}
        n = len(config.ids)
        self._bank = ServoBank(ServoConfig(
            tuple(f'id{i}' for i in config.ids), config.kp_nm_per_rev,
            config.kd_nm_s_per_rev, config.system_maximum_torque_nm, command_timeout_s=0.0))
        self._position = np.array(config.initial_position_rev, dtype=float)
        self._velocity = np.zeros(n)
        self._torque = np.zeros(n)
        self._mode = np.zeros(n, dtype=int)
        self._fault = np.zeros(n, dtype=int)
        self._pending_fault = np.zeros(n, dtype=int)
        self._limit_code = np.zeros(n, dtype=int)
        self._silent = np.zeros(n, dtype=bool)
        self._last_command_s = np.zeros(n)
        self._command = {name: np.zeros(n) for name in _COMMAND_REGISTERS}
        self._law = ServoCommand.stop(n)
        self._law_registers = np.full((len(_COMMAND_REGISTERS), n), np.inf)
        self._time_s: float | None = None
        self._outstanding: list[tuple[Any, asyncio.Future[None]]] = []
        self.received: deque[ReceivedFrame] = deque(maxlen=max_records)
        self.frame_count = 0
        self.write_frame_count = 0
        self.reply_count = 0
        self.closed = False

    # --- what the moteus library calls -------------------------------------------------

    def empty_bus_tx_safe(self) -> bool:
        """Report that frames may be sent with nothing attached (the double never blocks)."""
        return True

    def close(self) -> None:
        """Mark the bus closed; later frames are refused."""
        self.closed = True

    async def send_frame(self, frame: moteus.Frame) -> None:
        """Receive one frame from the library; replies follow after ``latency_s``."""
        loop = asyncio.get_running_loop()
        for reply in self._receive(frame):
            if self.latency_s > 0:
                loop.call_later(self.latency_s, self._deliver, reply)
            else:
                loop.call_soon(self._deliver, reply)

    async def transaction(self, requests: list[Any], **kwargs: Any) -> None:
        """Send each request's frame and wait for one matching reply per filtered request.

        Like a socketcan bus, this waits as long as it takes: a controller that never
        answers blocks the transaction, and the caller's timeout must end it.
        """
        loop = asyncio.get_running_loop()
        waiting = [(request, loop.create_future()) for request in requests
                   if request.frame_filter is not None]
        self._outstanding.extend(waiting)
        try:
            for request in requests:
                if request.frame is not None:
                    await self.send_frame(request.frame)
            if waiting:
                await asyncio.gather(*(future for _, future in waiting))
        finally:
            self._outstanding = [w for w in self._outstanding if w not in waiting]

    def _deliver(self, frame: moteus.Frame) -> None:
        for request, future in self._outstanding:
            if not future.done() and request.frame_filter(frame):
                request.responses.append(frame)
                future.set_result(None)
                return
        # Nobody waits for it: it goes where unsolicited frames go (Transport.read).
        asyncio.ensure_future(self._handle_received_frame(frame))

    # --- the simulated controllers --------------------------------------------------------

    def _receive(self, frame: moteus.Frame) -> list[moteus.Frame]:
        if self.closed:
            raise ProtocolError('frame sent on a closed transport double')
        arbitration_id = frame.arbitration_id
        destination, source = arbitration_id & 0x7f, (arbitration_id >> 8) & 0x7f
        reply_required = bool(arbitration_id & 0x8000)
        prefix = (arbitration_id >> 16) & 0x1fff
        subframes = decode_frame(bytes(frame.data))
        with self._lock:
            now = self._clock()
            self._advance(now)
            record = ReceivedFrame(
                now, destination, source, reply_required,
                tuple(s for s in subframes if s.kind == 'write'),
                tuple(s for s in subframes if s.kind == 'read'))
            self.received.append(record)
            self.frame_count += 1
            self.write_frame_count += bool(record.writes)
            slot = self._slot.get(destination)
            if slot is None:
                return []
            self._apply_writes(slot, record.writes, now)
            # The firmware's loop runs many times before it answers: report the new torque.
            self._torque = self._law_torque(self._mode == MODE_POSITION)
            if not reply_required or self._silent[slot]:
                return []
            data = pad_to_can_fd(encode_reply(
                [(s.register, s.resolution, self._read(slot, s.register))
                 for s in record.reads]))
            self.reply_count += 1
        reply_id = (prefix << 16) | (destination << 8) | source
        return [moteus.Frame(arbitration_id=reply_id, data=data, dlc=len(data),
                             is_extended_id=reply_id > 0x7ff, is_fd=True,
                             bitrate_switch=True, channel=self)]

    def _apply_writes(self, slot: int, writes: Iterable[Subframe], now: float) -> None:
        values = {s.name: s.value for s in writes}
        mode = values.pop('mode', None)
        if mode == MODE_STOPPED:
            self._mode[slot], self._fault[slot], self._pending_fault[slot] = MODE_STOPPED, 0, 0
        elif mode == MODE_POSITION and self._mode[slot] not in (MODE_FAULT, MODE_TIMEOUT):
            # A new position command starts from the firmware's defaults.
            self._mode[slot] = MODE_POSITION
            for name, default in zip(_COMMAND_REGISTERS, (
                    math.nan, 0.0, 0.0, 1.0, 1.0, self.config.system_maximum_torque_nm)):
                self._command[name][slot] = default
        elif mode is not None and mode != MODE_POSITION:
            # Other modes are accepted but not simulated: they apply no torque.
            self._mode[slot] = int(mode)
        if mode == MODE_POSITION or (mode is None and self._mode[slot] == MODE_POSITION):
            self._last_command_s[slot] = now
        for name, value in values.items():
            if name in self._command:
                self._command[name][slot] = value
        if self._pending_fault[slot] and self._mode[slot] == MODE_POSITION:
            self._mode[slot], self._fault[slot] = MODE_FAULT, self._pending_fault[slot]
            self._pending_fault[slot] = 0
        # Rebuild the law only when a register changed: most frames repeat the last command.
        registers = np.array([self._command[name] for name in _COMMAND_REGISTERS])
        if not np.array_equal(registers, self._law_registers, equal_nan=True):
            self._law_registers = registers
            self._law = self._law_from_registers()

    def _law_from_registers(self) -> ServoCommand:
        """Read the command registers as the law does: unset means the firmware default."""
        c = self._command
        position = np.where(np.isfinite(c['command_position']), c['command_position'], np.nan)
        maximum = np.nan_to_num(c['command_maximum_torque'],
                                nan=self.config.system_maximum_torque_nm)
        return ServoCommand(
            position, np.nan_to_num(c['command_velocity'], nan=0.0),
            np.nan_to_num(c['command_feedforward_torque'], nan=0.0),
            np.clip(np.nan_to_num(c['command_kp_scale'], nan=1.0), 0.0, 1.0),
            np.clip(np.nan_to_num(c['command_kd_scale'], nan=1.0), 0.0, 1.0),
            np.clip(maximum, 0.0, self.config.system_maximum_torque_nm))

    def _advance(self, now: float) -> None:
        """Integrate every controller from the last frame's time to ``now``."""
        if self._time_s is None:
            self._time_s = now
            return
        elapsed = min(now - self._time_s, 1.0)
        self._time_s = now
        if elapsed <= 0:
            return
        timeout = self.config.firmware_timeout_s
        if timeout > 0:
            expired = (self._mode == MODE_POSITION) & (now - self._last_command_s > timeout)
            self._mode[expired] = MODE_TIMEOUT
        cfg = self.config
        active = self._mode == MODE_POSITION
        steps = max(1, math.ceil(elapsed / cfg.max_step_s))
        h = elapsed / steps
        two_pi_inertia = 2 * math.pi * cfg.rotor_inertia_kg_m2  # type: ignore[operator]
        damping = 2 * math.pi * cfg.viscous_damping_nm_s_per_rad  # type: ignore[operator]
        for _ in range(steps):
            self._torque = self._law_torque(active)
            self._velocity += h * (self._torque - damping * self._velocity) / two_pi_inertia
            self._position += h * self._velocity
        self._bank.set_torque(self._torque)
        self._bank.update_telemetry(2 * math.pi * self._velocity, elapsed)

    def _law_torque(self, active: np.ndarray) -> np.ndarray:
        cfg = self.config
        law = servo_torque(cfg.kp_nm_per_rev, cfg.kd_nm_s_per_rev,  # type: ignore[arg-type]
                           self._law, self._position, self._velocity)
        return np.where(active, law, 0.0)

    def _read(self, slot: int, register: int) -> float | None:
        name = REGISTERS.get(register, ('', None))[0]
        fault = self._fault[slot]
        if self._mode[slot] == MODE_POSITION and self._limit_code[slot]:
            fault = self._limit_code[slot]
        value = {
            'mode': self._mode[slot],
            'position': self._position[slot],
            'velocity': self._velocity[slot],
            'torque': self._torque[slot],
            'voltage': self._bank.voltage_v,
            'temperature': self._bank.temperature_c[slot],
            'fault': fault,
        }.get(name)
        if value is None and name in self._command:
            value = self._command[name][slot]
        return None if value is None else float(value)

    # --- for tests ------------------------------------------------------------------------

    def _slot_of(self, servo_id: int) -> int:
        try:
            return self._slot[servo_id]
        except KeyError:
            raise ConfigError(f'no simulated servo with id {servo_id}; ids: '
                              f'{", ".join(map(str, self.config.ids))}') from None

    def inject_fault(self, servo_id: int, code: int) -> None:
        """Make ``servo_id`` fault with ``code`` at its next position command."""
        with self._lock:
            self._pending_fault[self._slot_of(servo_id)] = code

    def set_limit_code(self, servo_id: int, code: int) -> None:
        """Report ``code`` (96..103, an output limit) in the fault register in position mode."""
        with self._lock:
            self._limit_code[self._slot_of(servo_id)] = code

    def set_silent(self, servo_id: int, silent: bool = True) -> None:
        """Stop (or resume) replies from ``servo_id``, as an unplugged controller would."""
        with self._lock:
            self._silent[self._slot_of(servo_id)] = silent

    def set_state(self, servo_id: int, position_rev: float, velocity_rev_s: float = 0.0) -> None:
        """Place the output shaft of ``servo_id`` (rev, rev/s)."""
        with self._lock:
            slot = self._slot_of(servo_id)
            self._position[slot], self._velocity[slot] = position_rev, velocity_rev_s

    def state(self, servo_id: int) -> ServoState:
        """Return a snapshot of ``servo_id``."""
        with self._lock:
            slot = self._slot_of(servo_id)
            return ServoState(
                int(self._mode[slot]), int(self._fault[slot]), float(self._position[slot]),
                float(self._velocity[slot]), float(self._torque[slot]),
                float(self._bank.temperature_c[slot]), float(self._bank.voltage_v),
                {name: float(self._command[name][slot]) for name in _COMMAND_REGISTERS})

    def frames(self, servo_id: int | None = None) -> list[ReceivedFrame]:
        """List the recorded frames, oldest first; only those to ``servo_id`` if given."""
        with self._lock:
            return [f for f in self.received if servo_id is None or f.destination == servo_id]

    def writes(self, servo_id: int | None = None) -> list[Subframe]:
        """Return every recorded register write (to ``servo_id`` only, if given)."""
        return [w for f in self.frames(servo_id) for w in f.writes]
