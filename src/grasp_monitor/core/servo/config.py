"""Fixed properties of a bank of servos: ``ServoConfig``."""

from __future__ import annotations

from dataclasses import dataclass

from grasp_monitor.core.errors import CommandError, ConfigError
from grasp_monitor.core.noise import NoiseConfig
from grasp_monitor.core.servo.fields import COMMAND_DEFAULTS
from grasp_monitor.core.servo.settings import COMMAND_TIMEOUT, WATCHDOG_ACTION
import numpy as np
import numpy.typing as npt


def per_joint(value: npt.ArrayLike, n: int, name: str, item: str = 'joint') -> np.ndarray:
    """Return ``value`` as a read-only (n,) float array: one value for all, or one each.

    Raises:
        ConfigError: neither one value nor ``n``, naming ``name`` and ``item``.
    """
    try:
        array = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    except ValueError:
        raise ConfigError(f'{name} must be one value or one per {item} ({n})') from None
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class ServoConfig:
    """Fixed properties of a bank of servos.

    Attributes:
        joints: joint names, in command and observation order.
        kp: (N,) N·m/rad (or N/m) position gain at kp_scale = 1.
        kd: (N,) N·m·s/rad (or N·s/m) velocity gain at kd_scale = 1.
        command_timeout_s: no command for this long trips the watchdog; 0
            disables it.
        watchdog_action: what a tripped watchdog commands: ``zero_torque``, or
            ``neutral`` (``ServoCommand.neutral``: the servos damped still).
        motor_noise: noise on every servo's feedforward torque, N·m (N), redrawn
            every control tick (``MotorNoise``).
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
    watchdog_action: str = WATCHDOG_ACTION.default
    motor_noise: NoiseConfig = NoiseConfig()
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
                gains = per_joint(getattr(self, name), len(joints), name)
            except ValueError:
                raise ConfigError(
                    f'{name} must be one value or one per joint ({len(joints)})') from None
            if not np.all(np.isfinite(gains)) or np.any(gains < 0):
                raise ConfigError(f'{name} must be finite and >= 0, got {gains.tolist()}')
            object.__setattr__(self, name, gains)
        if not self.command_timeout_s >= 0:
            raise ConfigError(f'command_timeout_s must be >= 0, got {self.command_timeout_s}')
        WATCHDOG_ACTION.check(self.watchdog_action)
        if not isinstance(self.motor_noise, NoiseConfig):
            raise ConfigError(
                f'motor_noise must be a NoiseConfig, got {type(self.motor_noise).__name__}')
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
