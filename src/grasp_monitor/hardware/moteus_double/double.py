"""A test double of a CAN-FD bus with moteus controllers on it, under the real moteus library.

``TransportDouble`` is a ``moteus.TransportDevice``: wrap it in ``moteus.Transport`` and
hand that to ``moteus.Controller`` exactly as production code hands it an fdcanusb, so
every command is encoded by the library and every reply is parsed by it. The double
decodes the library's frames with its own reading of the moteus register protocol
(reference, appendix A) rather than with the library's parser, so a disagreement between
the two shows up as a failing test instead of cancelling out.

Each simulated controller runs the moteus position law of ``core/servo/law.py`` on a rotor
inertia with viscous friction, integrated in output revolutions as the firmware works;
winding temperature and bus voltage come from the core's ``ServoBank`` telemetry model.
Faults, the firmware's own command timeout, silent (unplugged) controllers and reply
latency can be injected, and a recorded motion replayed (``replay``: a controller
reports given positions and velocities, sample by sample). Every frame received is
decoded and recorded for assertions.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
import math
import threading
import time
from typing import Any, Callable, Iterable

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import servo_torque, ServoBank, ServoCommand, ServoConfig
from grasp_monitor.hardware.moteus_double.config import DoubleConfig
from grasp_monitor.hardware.moteus_double.protocol import (
    decode_frame, encode_reply, pad_to_can_fd, ProtocolError, REGISTERS, Subframe,
)
import moteus
import numpy as np

#: Controller modes (register 0x000) the double simulates.
MODE_STOPPED, MODE_FAULT, MODE_POSITION, MODE_TIMEOUT = 0, 1, 10, 11
# The six position-mode command registers and what an unwritten one means to the firmware.
_COMMAND_REGISTERS = ('command_position', 'command_velocity', 'command_feedforward_torque',
                      'command_kp_scale', 'command_kd_scale', 'command_maximum_torque')


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
        self._replayed = np.zeros(n, dtype=bool)
        self._last_command_s = np.zeros(n)
        self._command = {name: np.zeros(n) for name in _COMMAND_REGISTERS}
        self._law = ServoCommand.stop(n)
        self._law_registers = np.full((len(_COMMAND_REGISTERS), n), np.inf)
        self._time_s: float | None = None
        self._outstanding: list[tuple[Any, asyncio.Future[None]]] = []
        self.received: deque[ReceivedFrame] = deque(maxlen=max_records)
        self.frame_count = 0
        self.write_frame_count = 0
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
        free = ~self._replayed  # a replayed shaft stays where the recording puts it
        for _ in range(steps):
            self._torque = self._law_torque(active)
            accel = (self._torque - damping * self._velocity) / two_pi_inertia
            self._velocity[free] += h * accel[free]
            self._position[free] += h * self._velocity[free]
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

    def replay(self, servo_id: int, position_rev: float, velocity_rev_s: float) -> None:
        """Make ``servo_id`` report this output position and velocity (rev, rev/s).

        A recorded motion played back sample by sample (call again for the next one):
        the controller answers every query with these values, in the resolution asked
        for, until ``release``, whatever it is commanded; its law still gives the torque
        it would apply there.
        """
        with self._lock:
            slot = self._slot_of(servo_id)
            self._replayed[slot] = True
            self._position[slot], self._velocity[slot] = position_rev, velocity_rev_s

    def release(self, servo_id: int) -> None:
        """End ``servo_id``'s replay: it is simulated again from where the replay left it."""
        with self._lock:
            self._replayed[self._slot_of(servo_id)] = False

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
