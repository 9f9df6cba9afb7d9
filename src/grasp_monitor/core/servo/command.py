"""One command for every servo of a bank: ``ServoCommand``, checked on construction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.servo.config import ServoConfig
from grasp_monitor.core.servo.fields import COMMAND_DEFAULTS, COMMAND_FIELDS, COMMAND_LIMIT
import numpy as np
import numpy.typing as npt


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
    def neutral(maximum_torque: npt.ArrayLike) -> 'ServoCommand':
        """Return the command that holds the servos still: damping only.

        No position term (NaN), velocity 0, no feedforward, kp and kd scales 1,
        torque limited to ``maximum_torque`` ((N,) N·m).
        """
        limit = np.asarray(maximum_torque, dtype=float).reshape(-1)
        n = limit.size
        return ServoCommand(np.full(n, np.nan), np.zeros(n), np.zeros(n), np.ones(n),
                            np.ones(n), limit)

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
