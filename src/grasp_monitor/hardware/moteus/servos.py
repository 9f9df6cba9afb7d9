"""moteus servos through the ``moteus`` library: one controller per joint, a regulated loop.

The backend takes the same ``ServoCommand`` as the simulator and sends it as moteus
position-mode commands; it reads back position, velocity, torque, temperature, voltage,
mode and fault code. It is ROS-free: the ``moteus_servos`` node wraps it.

Units: ours are radians (rad, rad/s); moteus speaks revolutions of the output shaft (rev,
rev/s); torques are N·m on both sides. ``kp_scale`` and ``kd_scale`` scale the gains
configured in each controller (``servo.pid_position.kp``/``kd``, N·m/rev): give the
simulator ``kp = kp_firmware / 2π`` (N·m/rad) for the two to follow the same law.

Safety, in the order it is applied:

- read-only mode sends queries only, never a register write (not even a stop);
- limits are applied in ``set_command``, before anything is sent: position targets are
  clamped into ``[position_min_rad, position_max_rad]``, ``feedforward_torque`` into
  ``±torque_limit_nm`` and ``maximum_torque`` to at most ``torque_limit_nm``. Clamping,
  not refusing: a command is already validated as a whole (``ServoCommand``), a target
  past a joint limit is a legitimate request (a gripper closing beyond contact) whose
  nearest safe form is the limit, and refusing would leave the previous command in force,
  which is the less predictable outcome. Clamped commands are counted in the stats;
- until the first command, after ``stop()`` and while a fault is latched, every
  controller gets a stop; once the watchdog trips (no command for ``command_timeout_s``),
  a stop or, with ``watchdog_action`` neutral, the neutral command (damped still);
- a fault (controller mode 1 with its code, the firmware's own timeout mode 11, or no
  reply for ``missed_cycles_to_fault`` cycles) is latched as a ``ServoFault`` and stops
  every servo until ``clear_faults()``: half a gripper under control is not a grasp;
- ``close()`` sends a final stop (unless read-only) and closes a transport it opened.

No ``watchdog_timeout`` is sent, so each controller's ``servo.default_timeout_s`` still
stops it if this host dies. The very first cycle only queries, so a fault present before
start is seen before a stop (which clears it in the firmware) is written. A cycle whose
replies do not all arrive in time is followed by one query per controller, so the silent
one is named and the others stay observed (that cycle overruns).
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from typing import Any, Callable

from grasp_monitor.core.errors import CommandError, GraspMonitorError, HardwareError
from grasp_monitor.core.servo import ServoCommand, ServoConfig, ServoObservation
from grasp_monitor.core.servo.backend import ServoBackend
from grasp_monitor.core.values import JointStates
from grasp_monitor.hardware.moteus.config import apply_limits, MoteusConfig
from grasp_monitor.hardware.moteus.observation import (
    FAULT_DESCRIPTIONS, LoopStats, MoteusObservation, ServoFault,
)
from grasp_monitor.hardware.moteus.transport import make_transport, query_resolution
import moteus
import numpy as np

_log = logging.getLogger(__name__)

RAD_PER_REV = 2.0 * math.pi


def _position_kwargs(command: ServoCommand) -> list[dict[str, float]]:
    """Return ``make_position`` keyword arguments of each servo of ``command`` (revolutions)."""
    return [{
        'position': float(command.position[i]) / RAD_PER_REV,
        'velocity': float(command.velocity[i]) / RAD_PER_REV,
        'feedforward_torque': float(command.feedforward_torque[i]),
        'kp_scale': float(command.kp_scale[i]),
        'kd_scale': float(command.kd_scale[i]),
        'maximum_torque': float(command.maximum_torque[i]),
    } for i in range(command.position.size)]


def _as_int(value: Any, default: int) -> int:
    return int(value) if value is not None and math.isfinite(value) else default


class MoteusServos(ServoBackend):
    """moteus controllers driven at a regulated rate from the latest ``ServoCommand``.

    Drive it either from asyncio (``await cycle()`` or ``await run(event)``, then
    ``await aclose()``) or from a thread: ``start()`` runs the loop in its own thread and
    event loop, ``close()`` stops the servos and ends it. ``set_command``, ``stop``,
    ``resume``, ``clear_faults``, ``observation``, ``faults`` and ``stats`` are
    thread-safe.

    Args:
        config: the bank.
        transport: anything modelling ``moteus.Transport`` (``cycle``, ``close``); None
            opens the one ``config`` names, in the loop's thread, on the first cycle.
        clock: time source for the watchdog and time stamps, s.
        stats_window: periods kept for the rate and jitter statistics.
    """

    def __init__(self, config: MoteusConfig, transport: Any | None = None,
                 clock: Callable[[], float] = time.monotonic, stats_window: int = 400) -> None:
        self.config = config
        self._transport = transport
        self._owns_transport = transport is None
        self._clock = clock
        self._lock = threading.Lock()
        n = len(config.joints)
        self._slot = {servo_id: i for i, servo_id in enumerate(config.ids)}
        self._controllers: list[Any] = []
        self._command: ServoCommand | None = None
        self._position_kwargs: list[dict[str, float]] = []
        self._command_time_s = 0.0
        self._stopped = False
        self._watchdog_tripped = False
        self._faults: dict[tuple[str, str], ServoFault] = {}
        self._missed = np.zeros(n, dtype=int)
        self._position = np.full(n, math.nan)
        self._velocity = np.full(n, math.nan)
        self._torque = np.full(n, math.nan)
        self._temperature = np.full(n, math.nan)
        self._voltage = np.full(n, math.nan)
        self._mode = np.full(n, -1, dtype=int)
        self._fault_code = np.zeros(n, dtype=int)
        self._observation: MoteusObservation | None = None
        self._periods = np.zeros(max(2, stats_window))
        self._last_start: float | None = None
        self._counts = dict.fromkeys(
            ('cycles', 'overruns', 'timeouts', 'transport_errors', 'missed_replies',
             'watchdog_trips', 'clamped_commands'), 0)
        self._last_error = ''
        self._last_log = -math.inf
        self._closed = False
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: asyncio.Event | None = None
        self._servo_config = config.servo_config()
        # What a tripped watchdog sends: none (a stop), or the neutral command.
        self._watchdog_kwargs = [] if config.watchdog_action == 'zero_torque' else \
            _position_kwargs(ServoCommand.neutral(config.torque_limit_nm))

    # --- commands and safety (any thread) ---------------------------------------------

    def set_command(self, command: ServoCommand,
                    stamp_s: float | None = None) -> ServoCommand:
        """Limit ``command`` (see the module docstring), make it current, feed the watchdog.

        ``stamp_s`` is ignored: the watchdog runs on this machine's monotonic clock, which
        no sender stamps with.

        Returns:
            The command as it will be sent (after the limits).

        Raises:
            CommandError: wrong number of servos, a target too large for the
                controllers' registers, or the backend is read-only.
        """
        joints = self.config.joints
        if self.config.read_only:
            raise CommandError('the moteus backend is read-only: commands are not sent',
                               'read_only')
        if command.position.size != len(joints):
            raise CommandError(f'command is for {command.position.size} servos, the bank has '
                               f'{len(joints)} ({", ".join(joints)})', 'wrong_length')
        limited, changed = apply_limits(command, self.config)
        kwargs = _position_kwargs(limited)
        with self._lock:
            self._command, self._position_kwargs = limited, kwargs
            self._command_time_s = self._clock()
            self._watchdog_tripped = False
            self._counts['clamped_commands'] += int(changed.any())
        return limited

    @property
    def command(self) -> ServoCommand | None:
        """The latest command after the limits (None before the first)."""
        with self._lock:
            return self._command

    def stop(self) -> None:
        """Stop every servo from the next cycle on, until ``resume()``; commands are kept."""
        with self._lock:
            self._stopped = True

    def resume(self) -> None:
        """Undo ``stop()``: the latest command is sent again if the watchdog allows."""
        with self._lock:
            self._stopped = False

    def clear_faults(self) -> None:
        """Forget latched faults; a fault still present is reported again."""
        with self._lock:
            self._faults.clear()
            self._missed[:] = 0

    @property
    def faults(self) -> tuple[ServoFault, ...]:
        """Latched faults, oldest first."""
        with self._lock:
            return tuple(self._faults.values())

    @property
    def observation(self) -> MoteusObservation | None:
        """Return the latest observation, or None before the first cycle."""
        with self._lock:
            return self._observation

    @property
    def servo_config(self) -> ServoConfig:
        """The bank as ``ServoCommand.from_named`` needs it (``MoteusConfig.servo_config``)."""
        return self._servo_config

    def joint_states(self) -> JointStates | None:
        """Return the latest observation's joint states, or None before the first cycle."""
        observation = self.observation
        return observation.joint_states() if observation is not None else None

    def servo_observation(self) -> ServoObservation | None:
        """Return the latest observation as the simulator's type, or None before the first."""
        observation = self.observation
        return observation.servo_observation() if observation is not None else None

    def stats(self) -> LoopStats:
        """Return the loop statistics."""
        with self._lock:
            count = min(self._counts['cycles'] - 1, self._periods.size)
            periods = self._periods[:max(count, 0)]
            mean = float(periods.mean()) if count > 0 else math.nan
            return LoopStats(
                self._counts['cycles'], 1.0 / mean if count > 0 and mean > 0 else math.nan,
                mean, float(periods.std()) if count > 0 else math.nan,
                float(periods.max()) if count > 0 else math.nan,
                self._counts['overruns'], self._counts['timeouts'],
                self._counts['transport_errors'], self._counts['missed_replies'],
                self._counts['watchdog_trips'], self._counts['clamped_commands'],
                self._last_error)

    # --- the loop (event-loop thread) ---------------------------------------------------

    def _open(self) -> None:
        if self._closed:
            raise HardwareError('the moteus backend is closed')
        if self._transport is None:
            self._transport = make_transport(self.config)
        if not self._controllers:
            resolution = query_resolution()
            self._controllers = [
                moteus.Controller(id=servo_id, transport=self._transport,
                                  query_resolution=resolution)
                for servo_id in self.config.ids]

    def _plan(self, now: float) -> tuple[list[Any], bool]:
        """Return the frames of this cycle, and whether they are position commands."""
        controllers = self._controllers
        if self.config.read_only or self._counts['cycles'] == 1:
            return [c.make_query() for c in controllers], False
        with self._lock:
            kwargs = self._position_kwargs
            timeout = self.config.command_timeout_s
            if kwargs and timeout > 0 and now - self._command_time_s > timeout \
                    and not self._watchdog_tripped:
                self._watchdog_tripped = True
                self._counts['watchdog_trips'] += 1
                _log.warning('no servo command for %.3f s: stopping the servos', timeout)
            hold = not kwargs or self._stopped or bool(self._faults)
            if self._watchdog_tripped and not hold:
                kwargs = self._watchdog_kwargs
                hold = not kwargs
        if hold:
            return [c.make_stop(query=True) for c in controllers], False
        return [c.make_position(query=True, **kw) for c, kw in zip(controllers, kwargs)], True

    async def _exchange(self, commands: list[Any]) -> list[Any]:
        """Cycle ``commands``; on a timeout, learn which controllers still answer."""
        try:
            return await self._cycle_within_timeout(commands)
        except asyncio.TimeoutError:
            with self._lock:
                self._counts['timeouts'] += 1
        # A timed-out cycle returns nothing, so ask each controller alone (a read, nothing
        # written twice), one after the other as the bus serialises them anyway: the silent
        # one is named and the others stay observed.
        results: list[Any] = []
        for controller in self._controllers:
            try:
                results += await self._cycle_within_timeout([controller.make_query()])
            except asyncio.TimeoutError:
                pass
        return results

    async def _cycle_within_timeout(self, commands: list[Any]) -> list[Any]:
        try:
            return await asyncio.wait_for(self._transport.cycle(commands),
                                          self.config.effective_reply_timeout_s)
        except asyncio.TimeoutError:
            raise
        except Exception as error:  # noqa: B902 - any transport failure is reported, not fatal
            with self._lock:
                self._counts['transport_errors'] += 1
                self._last_error = f'{type(error).__name__}: {error}'
            if time.monotonic() - self._last_log > 1.0:
                self._last_log = time.monotonic()
                _log.error('moteus transport failed: %s', self._last_error)
            return []

    async def cycle(self) -> MoteusObservation:
        """Exchange one round of frames with every controller and return the observation.

        Raises:
            HardwareError: the transport cannot be opened, or the backend is closed.
        """
        self._open()
        start = time.perf_counter()
        with self._lock:
            if self._last_start is not None:
                k = (self._counts['cycles'] - 1) % self._periods.size
                self._periods[k] = start - self._last_start
            self._last_start = start
            self._counts['cycles'] += 1
        now = self._clock()
        commands, commanding = self._plan(now)
        results = await self._exchange(commands)
        return self._update(results, now, commanding)

    def _update(self, results: list[Any], now: float, commanding: bool) -> MoteusObservation:
        fresh = np.zeros(len(self.config.joints), dtype=bool)
        register = moteus.Register
        for result in results:
            slot = self._slot.get(getattr(result, 'id', None))  # type: ignore[arg-type]
            if slot is None:
                continue
            values = result.values
            self._position[slot] = values.get(register.POSITION, math.nan) * RAD_PER_REV
            self._velocity[slot] = values.get(register.VELOCITY, math.nan) * RAD_PER_REV
            self._torque[slot] = values.get(register.TORQUE, math.nan)
            self._temperature[slot] = values.get(register.TEMPERATURE, math.nan)
            self._voltage[slot] = values.get(register.VOLTAGE, math.nan)
            self._mode[slot] = _as_int(values.get(register.MODE), -1)
            self._fault_code[slot] = _as_int(values.get(register.FAULT), 0)
            fresh[slot] = True
        with self._lock:
            self._missed = np.where(fresh, 0, self._missed + 1)
            self._counts['missed_replies'] += int((~fresh).sum())
            for slot in np.flatnonzero(fresh & (self._mode == int(moteus.Mode.FAULT))):
                code = int(self._fault_code[slot])
                self._latch(slot, 'fault', code, FAULT_DESCRIPTIONS.get(code, 'unknown fault'),
                            now)
            for slot in np.flatnonzero(fresh & (self._mode == int(moteus.Mode.TIMEOUT))):
                self._latch(slot, 'timeout', 0, 'the controller saw no command within its '
                            'servo.default_timeout_s', now)
            for slot in np.flatnonzero(self._missed >= self.config.missed_cycles_to_fault):
                self._latch(slot, 'no_reply', 0, f'no reply for {self._missed[slot]} cycles',
                            now)
            arrays = [a.copy() for a in (
                self._position, self._velocity, self._torque, self._temperature,
                self._voltage, self._mode, self._fault_code, fresh)]
            for array in arrays:
                array.setflags(write=False)
            observation = MoteusObservation(
                self.config.joints, now, *arrays, commanding, self._watchdog_tripped,
                self._stopped, tuple(self._faults.values()))
            self._observation = observation
        return observation

    def _latch(self, slot: int, kind: str, code: int, description: str, now: float) -> None:
        joint = self.config.joints[slot]
        if (joint, kind) not in self._faults:
            fault = ServoFault(joint, self.config.ids[slot], kind, code, description, now)
            self._faults[(joint, kind)] = fault
            _log.error('servo fault: %s', fault.message)

    async def run(self, until: asyncio.Event | None = None) -> None:
        """Cycle at ``rate_hz`` until ``until`` is set.

        Cycles start on a fixed grid of periods. A cycle that ends after the next was due
        counts as an overrun; the next starts at once, so the grid holds the mean rate,
        unless a whole period was lost: then the grid restarts from now rather than
        sending a burst of cycles to catch up.
        """
        loop = asyncio.get_running_loop()
        period = self.config.period_s
        due = loop.time()
        while until is None or not until.is_set():
            await self.cycle()
            due += period
            delay = due - loop.time()
            if delay < 0:
                with self._lock:
                    self._counts['overruns'] += 1
                if delay < -period:
                    due = loop.time()
                delay = 0.0
            await asyncio.sleep(delay)

    async def aclose(self) -> None:
        """Send a stop to every controller (unless read-only) and close an owned transport."""
        if self._closed:
            return
        self._closed = True
        transport = self._transport
        if transport is None:
            return
        if self._controllers and not self.config.read_only:
            try:
                await asyncio.wait_for(transport.cycle([c.make_stop() for c in self._controllers]),
                                       self.config.effective_reply_timeout_s)
            except Exception as error:  # noqa: B902 - shutting down: report and go on
                _log.error('could not send the final stop: %s: %s', type(error).__name__, error)
        if self._owns_transport and hasattr(transport, 'close'):
            transport.close()

    # --- the threaded runner -------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the loop thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout_s: float = 5.0) -> None:
        """Open the transport and run the loop in a thread of its own.

        Raises:
            HardwareError: the transport cannot be opened (the thread has ended).
            GraspMonitorError: already started or closed.
        """
        if self._thread is not None or self._closed:
            raise GraspMonitorError('the moteus backend runs once: it is already started '
                                    'or closed')
        ready = threading.Event()
        errors: list[BaseException] = []
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._serve(ready, errors)), name='moteus_servos',
            daemon=True)
        self._thread.start()
        if not ready.wait(timeout_s):
            raise HardwareError(f'the moteus loop did not start within {timeout_s} s')
        if errors:
            self._thread.join()
            raise errors[0]

    async def _serve(self, ready: threading.Event, errors: list[BaseException]) -> None:
        self._loop = asyncio.get_running_loop()
        self._closing = asyncio.Event()
        try:
            self._open()
        except Exception as error:  # noqa: B902 - handed to start() in the caller's thread
            errors.append(error)
            ready.set()
            return
        ready.set()
        try:
            await self.run(self._closing)
        except Exception:  # noqa: B902 - the loop must still stop the servos
            _log.exception('the moteus loop failed')
        finally:
            await self.aclose()

    def close(self, timeout_s: float = 2.0) -> None:
        """Stop the servos, end the loop thread and close the transport.

        Without a thread (asyncio use), this runs ``aclose()`` in a fresh event loop.
        """
        thread, loop, closing = self._thread, self._loop, self._closing
        if thread is not None:
            if thread.is_alive() and loop is not None and closing is not None:
                try:
                    loop.call_soon_threadsafe(closing.set)
                except RuntimeError:
                    pass  # the loop has already ended
            thread.join(timeout_s)
            if thread.is_alive():
                _log.error('the moteus loop did not end within %.1f s', timeout_s)
            return
        if not self._closed:
            asyncio.run(self.aclose())

    def __enter__(self) -> 'MoteusServos':
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
