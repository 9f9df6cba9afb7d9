"""What moteus controllers report: observations, latched faults, loop statistics."""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.servo import ServoObservation
from grasp_monitor.core.values import JointStates
import numpy as np

#: Fault codes a controller reports in mode 1 (moteus reference, register 0x00f).
FAULT_DESCRIPTIONS = {
    32: 'calibration fault', 33: 'motor driver fault', 34: 'over voltage',
    35: 'encoder fault', 36: 'motor not configured', 37: 'pwm cycle overrun',
    38: 'over temperature', 39: 'start outside limit', 40: 'under voltage',
    41: 'config changed', 42: 'theta invalid', 43: 'position invalid',
    44: 'driver enable fault', 45: 'stop position deprecated', 46: 'timing violation',
    47: 'bemf feedforward without acceleration limit', 48: 'invalid limits',
}
#: Codes in the fault register while in position mode that say what limits the output;
#: they are not faults (firmware 2025-07-21 and later).
LIMIT_DESCRIPTIONS = {
    96: 'max velocity', 97: 'max power', 98: 'back EMF (supply voltage)', 99: 'max current',
    100: 'board temperature', 101: 'motor temperature', 102: 'commanded maximum torque',
    103: 'position bounds',
}


@dataclass(frozen=True)
class ServoFault:
    """A fault of one controller, latched until ``clear_faults()``.

    Attributes:
        joint: joint name.
        servo_id: CAN id.
        kind: 'fault' (mode 1, see ``code``), 'timeout' (the firmware's command timeout,
            mode 11) or 'no_reply' (silent for ``missed_cycles_to_fault`` cycles).
        code: the fault register (0 when not applicable).
        description: what the code means.
        time_s: when it was first seen, s (the backend's clock).
    """

    joint: str
    servo_id: int
    kind: str
    code: int
    description: str
    time_s: float

    @property
    def message(self) -> str:
        """One line for logs and diagnostics."""
        code = f' {self.code}' if self.code else ''
        return f'{self.joint} (id {self.servo_id}): {self.kind}{code}, {self.description}'


@dataclass(frozen=True)
class MoteusObservation:
    """What the controllers reported in the latest cycle, in our units.

    Values of a controller that did not reply this cycle are its last ones (NaN before
    any reply); ``fresh`` says which replied.

    Attributes:
        joints: joint names.
        time_s: time of the cycle, s (the backend's clock).
        position: (N,) rad.
        velocity: (N,) rad/s.
        torque: (N,) N·m, as the controllers measure it.
        temperature_c: (N,) board temperature, °C.
        voltage_v: (N,) bus voltage at each controller, V.
        mode: (N,) controller mode (0 stopped, 1 fault, 10 position, 11 timeout, ...; -1
            before any reply).
        fault_code: (N,) fault register: a fault code in mode 1, an output-limit code
            (96..103) in position mode, else 0.
        fresh: (N,) replied this cycle.
        commanding: position commands were sent this cycle (not stops or queries).
        watchdog_tripped: no command arrived for ``command_timeout_s``.
        stopped: ``stop()`` is in force.
        faults: latched faults.
    """

    joints: tuple[str, ...]
    time_s: float
    position: np.ndarray
    velocity: np.ndarray
    torque: np.ndarray
    temperature_c: np.ndarray
    voltage_v: np.ndarray
    mode: np.ndarray
    fault_code: np.ndarray
    fresh: np.ndarray
    commanding: bool
    watchdog_tripped: bool
    stopped: bool
    faults: tuple[ServoFault, ...]

    def servo_observation(self) -> ServoObservation:
        """Return the simulator's observation type (voltage: mean over controllers, V)."""
        finite = self.voltage_v[np.isfinite(self.voltage_v)]
        voltage = float(finite.mean()) if finite.size else math.nan
        return ServoObservation(self.position.copy(), self.velocity.copy(), self.torque.copy(),
                                self.temperature_c.copy(), voltage, self.watchdog_tripped)

    def joint_states(self) -> JointStates:
        """Return positions, velocities and measured torques as joint states."""
        return JointStates(self.joints, self.position, self.velocity, self.torque, self.time_s)


@dataclass(frozen=True)
class LoopStats:
    """How the loop keeps its rate and what it met.

    Attributes:
        cycles: cycles run.
        rate_hz: achieved rate over the recent window, Hz (NaN before two cycles).
        period_mean_s: mean time between cycle starts over the window, s.
        jitter_s: standard deviation of that period, s.
        period_max_s: longest period in the window, s.
        overruns: cycles that ended after the next one was due.
        timeouts: cycles whose replies did not all arrive within the reply timeout.
        transport_errors: cycles the transport raised in.
        missed_replies: replies missing, summed over controllers and cycles.
        watchdog_trips: times the command watchdog tripped.
        clamped_commands: commands changed by the limits.
        last_error: the last transport error, or ''.
    """

    cycles: int
    rate_hz: float
    period_mean_s: float
    jitter_s: float
    period_max_s: float
    overruns: int
    timeouts: int
    transport_errors: int
    missed_replies: int
    watchdog_trips: int
    clamped_commands: int
    last_error: str
