"""A bank of servos: the last command, the law, the watchdog, motor noise and the telemetry."""

from __future__ import annotations

from dataclasses import dataclass, field
import math

from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.servo.command import ServoCommand
from grasp_monitor.core.servo.config import ServoConfig
from grasp_monitor.core.servo.law import servo_torque
from grasp_monitor.core.servo.motor_noise import MotorNoise
import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class ServoObservation:
    """What each servo reports: position, velocity, torque, temperature, voltage."""

    position: np.ndarray
    velocity: np.ndarray
    torque: np.ndarray
    temperature_c: np.ndarray
    voltage_v: float
    watchdog_tripped: bool


@dataclass
class ServoBank:
    """A bank of servos: holds the last command, runs the law, watchdog and telemetry."""

    config: ServoConfig
    command: ServoCommand = field(init=False)
    received: ServoCommand | None = field(init=False, default=None)
    last_command_time_s: float | None = field(init=False, default=None)
    watchdog_trips: int = field(init=False, default=0)
    watchdog_tripped: bool = field(init=False, default=False)
    torque: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = len(self.config.joints)
        self._stop = ServoCommand.stop(n)
        self._watchdog = self._stop if self.config.watchdog_action == 'zero_torque' else \
            ServoCommand.neutral(self.config.maximum_torque)
        self.motor_noise = MotorNoise(self.config.motor_noise, n)
        self.reset()

    def reset(self) -> None:
        """Forget commands, cool down, and stop."""
        n = len(self.config.joints)
        self._ticks = 0
        self.command = self._stop
        self.received = None
        self.last_command_time_s = None
        self.watchdog_tripped = False
        self.torque = np.zeros(n)
        self._rise_c = np.zeros(n)  # over ambient
        self._velocity = np.zeros(n)
        self._heat = np.empty(n)
        self._filter_dt_s = math.nan
        self._filter = (0.0, 0.0)
        self._telemetry: tuple[np.ndarray, float] | None = None

    def set_command(self, command: ServoCommand, time_s: float) -> None:
        """Accept a validated command at ``time_s`` and feed the watchdog."""
        if command.position.size != len(self.config.joints):
            raise CommandError(
                f'command is for {command.position.size} servos, '
                f'bank has {len(self.config.joints)}', 'wrong_length')
        self.command = self.received = command
        self.last_command_time_s = time_s
        self.watchdog_tripped = False

    def active_command(self, time_s: float) -> ServoCommand:
        """Return the command in force at ``time_s``.

        A stop (no torque) before any command; once the watchdog has tripped, the
        stop or the neutral command (``watchdog_action``); the same object is
        returned until the command changes. Called once per
        control period, the watchdog trips on the first call more than
        ``command_timeout_s`` after the command: within the timeout plus one period.
        Time gone back before the command (a simulation that reset itself) trips it
        too: the command belongs to a timeline that is gone.
        """
        if self.last_command_time_s is None:
            return self._stop
        timeout = self.config.command_timeout_s
        since_s = time_s - self.last_command_time_s
        if timeout > 0 and (since_s > timeout or since_s < 0):
            if not self.watchdog_tripped:
                self.watchdog_trips += 1
                self.watchdog_tripped = True
            return self._watchdog
        return self.command

    def compute_torque(
        self, position: npt.ArrayLike, velocity: npt.ArrayLike, time_s: float
    ) -> np.ndarray:
        """Return the torque to apply now (N·m) under the active command.

        Each call is one control tick: with motor noise, it draws that tick's.
        """
        noise = 0.0 if self.motor_noise.is_identity else self.motor_noise.sample(self._ticks)
        self._ticks += 1
        self.torque = servo_torque(
            self.config.kp, self.config.kd, self.active_command(time_s),
            np.asarray(position, float), np.asarray(velocity, float), noise)
        self._telemetry = None
        return self.torque

    def set_torque(self, torque: npt.ArrayLike) -> None:
        """Record the torque a backend applied itself (for telemetry).

        A float64 array is kept as given, not copied: a simulator passes a view
        of its applied forces once and every step updates it in place.
        """
        self.torque = torque if isinstance(torque, np.ndarray) and (
            torque.dtype == np.float64) else np.array(torque, float)
        self._telemetry = None

    def update_telemetry(self, velocity: npt.ArrayLike, dt_s: float) -> None:
        """Advance the thermal model by ``dt_s`` with the current torque.

        The bus voltage is instantaneous: ``voltage_v`` computes it from the
        current torque and this ``velocity`` when read. A simulator calls this
        every physics step, so the step costs four in-place operations.
        """
        if dt_s != self._filter_dt_s:
            cfg = self.config
            alpha = 1.0 - math.exp(-dt_s / cfg.thermal_time_constant_s)
            self._filter = (1.0 - alpha,
                            alpha * cfg.thermal_resistance_k_per_w * cfg.copper_loss_w_per_nm2)
            self._filter_dt_s = dt_s
        keep, heat_per_nm2 = self._filter
        # The rise over ambient: rise += alpha * (R * loss - rise).
        heat = np.multiply(self.torque, self.torque, out=self._heat)
        heat *= heat_per_nm2
        self._rise_c *= keep
        self._rise_c += heat
        self._velocity = velocity
        self._telemetry = None

    @property
    def temperature_c(self) -> np.ndarray:
        """Winding temperatures, °C (shared until the next update: do not modify)."""
        return self._read_telemetry()[0]

    @property
    def voltage_v(self) -> float:
        """Bus voltage, V: the supply sagging with the current drawn now."""
        return self._read_telemetry()[1]

    def _read_telemetry(self) -> tuple[np.ndarray, float]:
        # Computed when first read after an update: a simulator updates every step and
        # reads rarely, a controller double reads many registers per update.
        if self._telemetry is None:
            cfg = self.config
            torque = self.torque
            loss_w = cfg.copper_loss_w_per_nm2 * float(torque @ torque)
            mechanical_w = float(np.abs(torque * np.asarray(self._velocity, float)).sum())
            self._telemetry = (
                self._rise_c + cfg.ambient_temperature_c,
                cfg.supply_voltage_v - cfg.supply_resistance_ohm * (
                    (mechanical_w + loss_w) / cfg.supply_voltage_v))
        return self._telemetry

    def observe(self, position: npt.ArrayLike, velocity: npt.ArrayLike) -> ServoObservation:
        """Return the observation of every servo, as copies."""
        return ServoObservation(
            np.array(position, float), np.array(velocity, float), self.torque.copy(),
            self.temperature_c.copy(), float(self.voltage_v), self.watchdog_tripped)
