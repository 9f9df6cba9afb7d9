"""A bank of moteus controllers, one per joint, and the limits every command is held to."""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import COMMAND_DEFAULTS, ServoCommand, ServoConfig
from grasp_monitor.core.servo.config import per_joint
from grasp_monitor.core.servo.settings import COMMAND_TIMEOUT, WATCHDOG_ACTION
import numpy as np
import numpy.typing as npt

#: Transport kinds, each constructed on first use so this module imports without hardware.
TRANSPORTS = ('fdcanusb', 'socketcan', 'pi3hat')
PI3HAT_BUSES = (1, 2, 3, 4, 5)


def _per_joint_int(value: Any, n: int, name: str) -> tuple[int, ...]:
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) != n or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ConfigError(f'{name} must be one integer or one per joint ({n}), '
                          f'got {list(values)}')
    return values


@dataclass(frozen=True)
class MoteusConfig:
    """A bank of moteus controllers, one per joint.

    Attributes:
        joints: joint names, in command and observation order.
        ids: CAN id of each joint's controller, in [1, 126], unique across buses (the
            library routes by id).
        buses: bus of each controller, one value for all: the 1-based index into
            ``fdcanusb_paths`` or ``socketcan_channels``, or the pi3hat port 1..5.
        transport: 'fdcanusb', 'socketcan' or 'pi3hat'.
        fdcanusb_paths: serial device of the fdcanusb on each bus; empty finds one.
        socketcan_channels: SocketCAN interface of each bus.
        rate_hz: loop frequency, Hz.
        command_timeout_s: watchdog: no command for this long stops the servos, s; 0
            disables it.
        reply_timeout_s: longest wait for the replies of one cycle, s; 0 means one period.
        missed_cycles_to_fault: consecutive cycles without a reply after which a
            controller is reported faulted ('no_reply').
        position_min_rad, position_max_rad: (N,) joint range, rad; targets are clamped
            into it (±inf: no limit).
        torque_limit_nm: (N,) N·m: caps ``maximum_torque`` and ``|feedforward_torque|``;
            also the ``maximum_torque`` of a command that does not set one.
        read_only: only query; never write a register.
        watchdog_action: what a tripped watchdog sends: ``zero_torque`` (a stop), or
            ``neutral`` (position mode, no position target, velocity 0, kp/kd scales
            1, ``torque_limit_nm``: the servos damped still).
    """

    joints: tuple[str, ...]
    ids: tuple[int, ...]
    buses: int | tuple[int, ...] = 1
    transport: str = 'fdcanusb'
    fdcanusb_paths: tuple[str, ...] = ()
    socketcan_channels: tuple[str, ...] = ('can0',)
    rate_hz: float = 200.0
    command_timeout_s: float = COMMAND_TIMEOUT.default
    reply_timeout_s: float = 0.0
    missed_cycles_to_fault: int = 5
    position_min_rad: npt.ArrayLike = -math.inf
    position_max_rad: npt.ArrayLike = math.inf
    torque_limit_nm: npt.ArrayLike = COMMAND_DEFAULTS['maximum_torque']
    read_only: bool = False
    watchdog_action: str = WATCHDOG_ACTION.default

    def __post_init__(self) -> None:
        joints = tuple(self.joints)
        n = len(joints)
        if not joints or len(set(joints)) != n:
            raise ConfigError(
                f'joints must name at least one joint, each once, got {list(joints)}')
        object.__setattr__(self, 'joints', joints)
        ids = (self.ids,) if isinstance(self.ids, int) else tuple(self.ids)
        if len(ids) != n or len(set(ids)) != n or not all(
                isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= 126 for i in ids):
            raise ConfigError(f'ids must be one CAN id in [1, 126] per joint ({n}), unique, '
                              f'got {list(ids)}')
        object.__setattr__(self, 'ids', ids)
        if self.transport not in TRANSPORTS:
            raise ConfigError(
                f'unknown transport {self.transport!r}; valid: {", ".join(TRANSPORTS)}')
        object.__setattr__(self, 'fdcanusb_paths', tuple(self.fdcanusb_paths))
        object.__setattr__(self, 'socketcan_channels', tuple(self.socketcan_channels))
        buses = _per_joint_int(self.buses, n, 'buses')
        valid = {
            'pi3hat': PI3HAT_BUSES,
            'fdcanusb': tuple(range(1, max(1, len(self.fdcanusb_paths)) + 1)),
            'socketcan': tuple(range(1, len(self.socketcan_channels) + 1)),
        }[self.transport]
        if not valid:
            raise ConfigError('socketcan_channels must name at least one interface')
        if any(bus not in valid for bus in buses):
            raise ConfigError(f'buses for transport {self.transport!r} must be in '
                              f'{list(valid)}, got {list(buses)}')
        object.__setattr__(self, 'buses', buses)
        if not 0 < self.rate_hz <= 2000:
            raise ConfigError(f'rate_hz must be in (0, 2000], got {self.rate_hz}')
        if not self.command_timeout_s >= 0:
            raise ConfigError(
                f'command_timeout_s must be >= 0 (0 disables), got {self.command_timeout_s}')
        if not 0 <= self.reply_timeout_s <= 1:
            raise ConfigError(
                f'reply_timeout_s must be in [0, 1] (0 = one period), got {self.reply_timeout_s}')
        missed = self.missed_cycles_to_fault
        if isinstance(missed, bool) or not isinstance(missed, int) or missed < 1:
            raise ConfigError(f'missed_cycles_to_fault must be an integer >= 1, got {missed!r}')
        low = per_joint(self.position_min_rad, n, 'position_min_rad')
        high = per_joint(self.position_max_rad, n, 'position_max_rad')
        if np.any(np.isnan(low) | np.isnan(high)) or np.any(low >= high):
            raise ConfigError('position_min_rad must be < position_max_rad for every joint, '
                              f'got {low.tolist()} and {high.tolist()}')
        object.__setattr__(self, 'position_min_rad', low)
        object.__setattr__(self, 'position_max_rad', high)
        limit = per_joint(self.torque_limit_nm, n, 'torque_limit_nm')
        if not np.all(np.isfinite(limit)) or np.any(limit < 0):
            raise ConfigError(f'torque_limit_nm must be finite and >= 0, got {limit.tolist()}')
        object.__setattr__(self, 'torque_limit_nm', limit)
        WATCHDOG_ACTION.check(self.watchdog_action)

    @property
    def period_s(self) -> float:
        """Loop period, s."""
        return 1.0 / self.rate_hz

    @property
    def effective_reply_timeout_s(self) -> float:
        """Longest wait for the replies of one cycle, s."""
        return self.reply_timeout_s or self.period_s

    def servo_config(self) -> ServoConfig:
        """Return the bank as ``ServoCommand.from_named`` needs it (joints, default torque).

        Its ``kp`` and ``kd`` are zero: on hardware the gains live in each controller's
        firmware, and commands only scale them.
        """
        return ServoConfig(self.joints, kp=0.0, kd=0.0,
                           maximum_torque=self.torque_limit_nm,
                           command_timeout_s=self.command_timeout_s,
                           watchdog_action=self.watchdog_action)


def apply_limits(command: ServoCommand, config: MoteusConfig) -> tuple[ServoCommand, np.ndarray]:
    """Clamp a command into the configured joint range and torque limits.

    Args:
        command: a command for every joint of ``config``.
        config: the limits.

    Returns:
        The limited command, and an (N,) bool array: which joints were changed.
    """
    limit = config.torque_limit_nm
    position = np.clip(command.position, config.position_min_rad, config.position_max_rad)
    feedforward = np.clip(command.feedforward_torque, -limit, limit)  # type: ignore[operator]
    maximum = np.minimum(command.maximum_torque, limit)
    changed = ((np.nan_to_num(position) != np.nan_to_num(command.position))
               | (feedforward != command.feedforward_torque)
               | (maximum != command.maximum_torque))
    return ServoCommand(position, command.velocity, feedforward, command.kp_scale,
                        command.kd_scale, maximum), changed
