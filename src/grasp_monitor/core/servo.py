"""The moteus servo law (as upkie's ``UpkieServos`` exposes it), vectorised over joints.

Per servo: ``tau = clamp(tau_ff + kp * kp_scale * (theta* - theta)
+ kd * kd_scale * (dtheta* - dtheta), -tau_max, tau_max)``; a NaN position
target disables the position term. ``kp`` and ``kd`` are fixed per servo by
configuration; commands only scale them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Mapping

from grasp_monitor.core.errors import CommandError, ConfigError
from grasp_monitor.core.servo_settings import COMMAND_TIMEOUT
import numpy as np
import numpy.typing as npt

#: Columns of a full command row, in the order of ``servo_commands/full``.
COMMAND_FIELDS = (
    'position', 'velocity', 'feedforward_torque', 'kp_scale', 'kd_scale', 'maximum_torque',
)
#: Largest magnitude a command value may have: MuJoCo's own bound on a control input
#: (mjMAXVAL). Beyond it no servo means anything, and a simulator would diverge.
COMMAND_LIMIT = 1e10
#: What a servo does with a field nobody set (upkie's defaults).
COMMAND_DEFAULTS = {
    'position': math.nan,
    'velocity': 0.0,
    'feedforward_torque': 0.0,
    'kp_scale': 1.0,
    'kd_scale': 1.0,
    'maximum_torque': 1.0,
}


def _per_joint(value: npt.ArrayLike, n: int, name: str) -> np.ndarray:
    array = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class ServoConfig:
    """Fixed properties of a bank of servos.

    Attributes:
        joints: joint names, in command and observation order.
        kp: (N,) N·m/rad (or N/m) position gain at kp_scale = 1.
        kd: (N,) N·m·s/rad (or N·s/m) velocity gain at kd_scale = 1.
        command_timeout_s: no command for this long stops torque; 0 disables
            the watchdog.
        ambient_temperature_c: winding temperature at rest, °C.
        thermal_resistance_k_per_w: steady-state rise per watt of loss.
        thermal_time_constant_s: first-order thermal time constant.
        copper_loss_w_per_nm2: heat per squared torque, W/(N·m)².
        supply_voltage_v: bus voltage with no load, V.
        supply_resistance_ohm: bus sag per ampere drawn, Ω.
        torque_constant_nm_per_a: motor torque per ampere, N·m/A.
        maximum_torque: (N,) N·m, the limit a command that does not set one gets.
    """

    joints: tuple[str, ...]
    kp: np.ndarray
    kd: np.ndarray
    maximum_torque: np.ndarray = COMMAND_DEFAULTS['maximum_torque']  # type: ignore[assignment]
    command_timeout_s: float = COMMAND_TIMEOUT.default
    ambient_temperature_c: float = 25.0
    thermal_resistance_k_per_w: float = 2.0
    thermal_time_constant_s: float = 60.0
    copper_loss_w_per_nm2: float = 4.0
    supply_voltage_v: float = 24.0
    supply_resistance_ohm: float = 0.05
    torque_constant_nm_per_a: float = 0.1

    def __post_init__(self) -> None:
        joints = tuple(self.joints)
        if not joints:
            raise ConfigError('joints must name at least one joint')
        if len(set(joints)) != len(joints):
            raise ConfigError(f'joints must be unique, got {list(joints)}')
        object.__setattr__(self, 'joints', joints)
        for name in ('kp', 'kd', 'maximum_torque'):
            try:
                gains = _per_joint(getattr(self, name), len(joints), name)
            except ValueError:
                raise ConfigError(
                    f'{name} must be one value or one per joint ({len(joints)})') from None
            if not np.all(np.isfinite(gains)) or np.any(gains < 0):
                raise ConfigError(f'{name} must be finite and >= 0, got {gains.tolist()}')
            object.__setattr__(self, name, gains)
        if not self.command_timeout_s >= 0:
            raise ConfigError(f'command_timeout_s must be >= 0, got {self.command_timeout_s}')
        for name in ('thermal_time_constant_s', 'supply_voltage_v', 'torque_constant_nm_per_a'):
            if not getattr(self, name) > 0:
                raise ConfigError(f'{name} must be > 0, got {getattr(self, name)}')

    def index(self, joint: str) -> int:
        """Return the index of ``joint``.

        Raises:
            CommandError: for an unknown joint, listing the valid ones.
        """
        try:
            return self.joints.index(joint)
        except ValueError:
            raise CommandError(
                f'unknown joint {joint!r}; valid joints: {", ".join(self.joints)}',
                'unknown_joint') from None


@dataclass(frozen=True)
class ServoCommand:
    """One command for every servo of a bank, validated on construction.

    Every value lies within ±``COMMAND_LIMIT`` (a refusal of kind ``out_of_range``).

    Attributes:
        position: (N,) target position, rad (or m); NaN disables the position term.
        velocity: (N,) target velocity, rad/s.
        feedforward_torque: (N,) N·m.
        kp_scale, kd_scale: (N,) in [0, 1].
        maximum_torque: (N,) N·m, >= 0.
        table: (6, N) the fields above as the rows of one read-only array.
    """

    position: np.ndarray
    velocity: np.ndarray
    feedforward_torque: np.ndarray
    kp_scale: np.ndarray
    kd_scale: np.ndarray
    maximum_torque: np.ndarray

    def __post_init__(self) -> None:
        n = np.size(self.position)
        rows = []
        for name in COMMAND_FIELDS:
            array = np.asarray(getattr(self, name), dtype=float).reshape(-1)
            if array.shape != (n,):
                raise CommandError(f'{name} has {array.size} values, expected {n}', 'wrong_length')
            rows.append(array)
        # One table, a few checks: commands are built at the control rate.
        table = np.array(rows)
        table.setflags(write=False)
        self._set_table(table)
        if np.isinf(table[0]).any():
            raise CommandError('position must be finite or NaN (NaN disables it)', 'not_finite')
        if not np.isfinite(table[1:]).all():
            name = next(f for f in COMMAND_FIELDS[1:] if not np.isfinite(getattr(self, f)).all())
            raise CommandError(
                f'{name} must be finite, got {getattr(self, name).tolist()}', 'not_finite')
        if ((table[3:5] < 0) | (table[3:5] > 1)).any():
            name = 'kp_scale' if ((table[3] < 0) | (table[3] > 1)).any() else 'kd_scale'
            raise CommandError(
                f'{name} must be in [0, 1], got {getattr(self, name).tolist()}', 'out_of_range')
        if (table[5] < 0).any():
            raise CommandError(
                f'maximum_torque must be >= 0, got {self.maximum_torque.tolist()}', 'out_of_range')
        if (np.abs(table) > COMMAND_LIMIT).any():  # NaN compares false: it passes
            name = next(f for f in COMMAND_FIELDS
                        if (np.abs(getattr(self, f)) > COMMAND_LIMIT).any())
            raise CommandError(
                f'{name} must be within ±{COMMAND_LIMIT:g}, got {getattr(self, name).tolist()}',
                'out_of_range')

    def _set_table(self, table: np.ndarray) -> None:
        object.__setattr__(self, 'table', table)
        for name, row in zip(COMMAND_FIELDS, table):
            object.__setattr__(self, name, row)

    @classmethod
    def trusted(cls, table: np.ndarray) -> 'ServoCommand':
        """Return a command on a read-only (6, N) table, rows ``COMMAND_FIELDS``, unchecked.

        Only for commands the project builds itself from validated settings
        (a scripted drive at the control rate); outside input goes through
        the constructor, which refuses bad values.
        """
        table.setflags(write=False)
        command = cls.__new__(cls)
        command._set_table(table)
        return command

    @staticmethod
    def stop(n: int) -> 'ServoCommand':
        """Return a command that applies no torque to ``n`` servos."""
        return ServoCommand(
            np.full(n, np.nan), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n))

    @staticmethod
    def from_rows(rows: npt.ArrayLike, n: int) -> 'ServoCommand':
        """Build from an (n, 6) array whose columns are ``COMMAND_FIELDS``.

        Raises:
            CommandError: wrong size or invalid values.
        """
        flat = np.asarray(rows, dtype=float).reshape(-1)
        if flat.size != n * len(COMMAND_FIELDS):
            raise CommandError(
                f'expected {n} rows of {len(COMMAND_FIELDS)} values '
                f'({", ".join(COMMAND_FIELDS)}) = {n * len(COMMAND_FIELDS)} values, '
                f'got {flat.size}', 'wrong_length')
        table = flat.reshape(n, len(COMMAND_FIELDS))
        return ServoCommand(*(table[:, i] for i in range(len(COMMAND_FIELDS))))

    @staticmethod
    def from_named(
        config: ServoConfig,
        names: tuple[str, ...] | list[str],
        fields: Mapping[str, npt.ArrayLike],
        previous: 'ServoCommand | None' = None,
    ) -> 'ServoCommand':
        """Update ``previous`` (or the defaults) for the named joints.

        Args:
            config: the servo bank.
            names: joints the values refer to, in order.
            fields: a subset of ``COMMAND_FIELDS`` mapped to one value per name;
                an empty sequence leaves the field as it was.
            previous: the command to update; joints not named keep it.

        Raises:
            CommandError: unknown or repeated joint, wrong lengths, invalid values.
        """
        n = len(config.joints)
        if len(set(names)) != len(names):
            raise CommandError(f'joint names repeat: {list(names)}', 'unknown_joint')
        index = np.array([config.index(name) for name in names], dtype=int)
        base = previous if previous is not None else ServoCommand(
            *(config.maximum_torque if name == 'maximum_torque'
              else np.full(n, COMMAND_DEFAULTS[name]) for name in COMMAND_FIELDS))
        columns = {name: getattr(base, name).copy() for name in COMMAND_FIELDS}
        for name, values in fields.items():
            if name not in COMMAND_DEFAULTS:
                raise CommandError(f'unknown command field {name!r}', 'invalid')
            values = np.asarray(values, dtype=float).reshape(-1)
            if values.size == 0:
                continue
            if values.size != index.size:
                raise CommandError(
                    f'{name} has {values.size} values for {index.size} joint names',
                    'wrong_length')
            columns[name][index] = values
        return ServoCommand(**columns)


def servo_torque(
    kp: np.ndarray,
    kd: np.ndarray,
    command: ServoCommand,
    position: np.ndarray,
    velocity: np.ndarray,
) -> np.ndarray:
    """Return the torque (N·m) of the moteus law; NaN position disables its term."""
    position_error = np.where(np.isnan(command.position), 0.0, command.position - position)
    torque = (
        command.feedforward_torque
        + kp * command.kp_scale * position_error
        + kd * command.kd_scale * (command.velocity - velocity)
    )
    return np.clip(torque, -command.maximum_torque, command.maximum_torque)


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
        self.reset()

    def reset(self) -> None:
        """Forget commands, cool down, and stop."""
        n = len(self.config.joints)
        self._stop = ServoCommand.stop(n)
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

        A stop (no torque) before any command and once the watchdog has tripped;
        the same object is returned until the command changes.
        """
        if self.last_command_time_s is None:
            return self._stop
        timeout = self.config.command_timeout_s
        if timeout > 0 and time_s - self.last_command_time_s > timeout:
            if not self.watchdog_tripped:
                self.watchdog_trips += 1
                self.watchdog_tripped = True
            return self._stop
        return self.command

    def compute_torque(
        self, position: npt.ArrayLike, velocity: npt.ArrayLike, time_s: float
    ) -> np.ndarray:
        """Return the torque to apply now (N·m) under the active command."""
        self.torque = servo_torque(
            self.config.kp, self.config.kd, self.active_command(time_s),
            np.asarray(position, float), np.asarray(velocity, float))
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
