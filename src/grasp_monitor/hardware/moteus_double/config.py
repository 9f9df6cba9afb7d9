"""The simulated moteus controllers of the transport double."""

from __future__ import annotations

from dataclasses import dataclass

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo.config import per_joint
import numpy as np
import numpy.typing as npt


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
            values = per_joint(getattr(self, name), len(ids), name, 'servo').copy()
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
