"""What a scenario is: generated MJCF plus the names the rest of the system needs."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
import math
import numbers
from typing import Callable, Mapping, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand
import numpy as np

CONES = ('pyramidal', 'elliptic')
#: MuJoCo's own defaults of the solver settings SimSettings adds to MJCF.
MUJOCO_SOLREF = (0.02, 1.0)
MUJOCO_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)
MUJOCO_TOLERANCE = 1e-8
MUJOCO_NOSLIP_TOLERANCE = 1e-6
#: The impedance MuJoCo clamps solimp's dmin and dmax to.
MIN_IMPEDANCE, MAX_IMPEDANCE = 0.0001, 0.9999
SOLVERS = ('PGS', 'CG', 'Newton')
INTEGRATORS = ('Euler', 'implicit', 'implicitfast', 'RK4')
_KINDS = {int: 'an int', float: 'a number', str: 'a string'}


@dataclass(frozen=True)
class SimSettings:
    """Physics settings every scenario takes.

    Attributes:
        timestep_s: integration step, s.
        friction: sliding friction coefficient of the grasp contacts.
        cone: friction cone, 'pyramidal' or 'elliptic'.
        solver: 'PGS', 'CG' or 'Newton'.
        iterations: solver iterations.
        noslip_iterations: MuJoCo noslip iterations (0 = off).
        impratio: ratio of frictional to normal impedance (>= 1).
        integrator: MuJoCo integrator name.
        seed: seed of every random choice a scenario makes.
        solref: softness of the grasp contacts, as MJCF's ``solref``: (time
            constant s, damping ratio), or (-stiffness, -damping); () = the scene's own.
        solimp: impedance of the grasp contacts, as MJCF's ``solimp``: (dmin,
            dmax, width m, midpoint, power); () = the scene's own.
        tolerance: the solver's early-termination tolerance.
        noslip_tolerance: the noslip solver's early-termination tolerance.
    """

    timestep_s: float = 0.001
    friction: float = 1.0
    cone: str = 'elliptic'
    solver: str = 'Newton'
    iterations: int = 100
    noslip_iterations: int = 0
    impratio: float = 1.0
    integrator: str = 'implicitfast'
    seed: int = 0
    solref: tuple[float, ...] = ()
    solimp: tuple[float, ...] = ()
    tolerance: float = MUJOCO_TOLERANCE
    noslip_tolerance: float = MUJOCO_NOSLIP_TOLERANCE

    def __post_init__(self) -> None:
        for item in fields(self):
            value, kind = getattr(self, item.name), type(item.default)
            if kind is tuple:
                object.__setattr__(self, item.name, _numbers(item.name, value))
                continue
            if kind is str:
                ok = isinstance(value, str)
            else:
                ok = isinstance(value, numbers.Integral if kind is int else numbers.Real) \
                    and not isinstance(value, bool)
            if not ok:
                raise ConfigError(f'{item.name} must be {_KINDS[kind]}, '
                                  f'got {type(value).__name__} {value!r}')
            object.__setattr__(self, item.name, kind(value))
        if not 0 < self.timestep_s <= 0.1:
            raise ConfigError(f'timestep_s must be in (0, 0.1], got {self.timestep_s}')
        if not self.friction > 0:
            raise ConfigError(f'friction must be > 0, got {self.friction}')
        for name, value, valid in (
            ('cone', self.cone, CONES),
            ('solver', self.solver, SOLVERS),
            ('integrator', self.integrator, INTEGRATORS),
        ):
            if value not in valid:
                raise ConfigError(f'{name} {value!r} is not one of {", ".join(valid)}')
        if self.iterations < 1 or self.noslip_iterations < 0:
            raise ConfigError('iterations must be >= 1 and noslip_iterations >= 0')
        if not self.impratio >= 1:
            raise ConfigError(f'impratio must be >= 1, got {self.impratio}')
        for name in ('tolerance', 'noslip_tolerance'):
            if not 0 <= getattr(self, name) < 1:
                raise ConfigError(f'{name} must be in [0, 1), got {getattr(self, name)}')
        if self.solref:
            _check_solref(self.solref, self.timestep_s)
        if self.solimp:
            object.__setattr__(self, 'solimp', _check_solimp(self.solimp))

    def option_xml(self, gravity: str = '0 0 -9.8') -> str:
        """Return the MJCF ``<option>`` element for these settings."""
        return (
            f'<option timestep="{self.timestep_s!r}" gravity="{gravity}" cone="{self.cone}"'
            f' solver="{self.solver}" iterations="{self.iterations}"'
            f' tolerance="{self.tolerance!r}" noslip_iterations="{self.noslip_iterations}"'
            f' noslip_tolerance="{self.noslip_tolerance!r}" impratio="{self.impratio!r}"'
            f' integrator="{self.integrator}"/>'
        )

    def contact_xml(self, solref: Sequence[float] = (), solimp: Sequence[float] = ()) -> str:
        """Return the ``solref`` and ``solimp`` attributes of a grasp contact's geom.

        These settings' own, else the scene's defaults ``solref`` and ``solimp``;
        an attribute neither sets is left out (MuJoCo's default).
        """
        attributes = (('solref', self.solref or tuple(solref)),
                      ('solimp', self.solimp or tuple(solimp)))
        return ''.join(f' {name}="{" ".join(repr(float(v)) for v in value)}"'
                       for name, value in attributes if value)


def _numbers(name: str, value: object) -> tuple[float, ...]:
    """Return a solver vector as floats: numbers, or MJCF's text of numbers ("0.02 1")."""
    items = value.replace(',', ' ').split() if isinstance(value, str) else value
    try:
        result = tuple(math.nan if isinstance(v, bool) else float(v) for v in items)
    except (TypeError, ValueError):  # not a sequence, or not of numbers
        result = (math.nan,)
    if not all(math.isfinite(v) for v in result):
        raise ConfigError(f'{name} must be numbers, as in MJCF ("0.02 1" or [0.02, 1]), '
                          f'got {type(value).__name__} {value!r}')
    return result


def _check_solref(solref: tuple[float, ...], timestep_s: float) -> None:
    if len(solref) != 2 or not (
            (solref[0] > 0 and solref[1] > 0) or (solref[0] < 0 and solref[1] <= 0)):
        raise ConfigError(
            f'solref must be (time constant s > 0, damping ratio > 0), or (-stiffness < 0, '
            f'-damping <= 0), got {list(solref)}')
    if 0 < solref[0] < 2 * timestep_s:
        # MuJoCo would raise it to two steps without a word.
        raise ConfigError(
            f'solref time constant {solref[0]!r} s is below 2 physics steps '
            f'({2 * timestep_s!r} s at timestep_s {timestep_s!r}), the stiffest MuJoCo '
            'resolves; use at least that')


def _check_solimp(given: tuple[float, ...]) -> tuple[float, ...]:
    # MJCF's short form takes MuJoCo's midpoint and power.
    solimp = given + MUJOCO_SOLIMP[3:] if len(given) == 3 else given
    dmin, dmax, width, midpoint, power = solimp if len(solimp) == 5 else (math.nan,) * 5
    if not (MIN_IMPEDANCE <= dmin <= MAX_IMPEDANCE and MIN_IMPEDANCE <= dmax <= MAX_IMPEDANCE
            and width > 0 and 0 < midpoint < 1 and power >= 1):
        raise ConfigError(
            f'solimp must be (dmin, dmax, width m, midpoint, power) with dmin and dmax in '
            f'[{MIN_IMPEDANCE}, {MAX_IMPEDANCE}], width > 0, midpoint in (0, 1) and '
            f'power >= 1 (or the first three), got {list(given)}')
    return solimp


#: A drive gives the command a scenario applies by itself at time t (s), if any.
Drive = Callable[[float], ServoCommand]


@dataclass(frozen=True)
class Scene:
    """A generated scenario.

    Attributes:
        name: scenario name.
        mjcf: the model, as MJCF text.
        settings: the physics settings it was generated with.
        joints: actuated joints, in servo order; each has a motor actuator of
            the same name.
        kp, kd: (N,) servo gains per joint at scale 1.
        maximum_torque: (N,) default torque (or force) limit per joint.
        pads: gripper pad bodies (left first, then right).
        objects: bodies of the grasped objects.
        base_body: body the robot is mounted on (flying-apart reference).
        palm_body: the palm body ('' when the gripper has none).
        robot_bodies: every body of the robot, palm included.
        duration_s: default trial length, s.
        drive: the scenario's own command over time (None: commands come from outside).
        drive_hold_s: how long each command of ``drive`` holds, s: 0 when it may
            change at every physics step, ``math.inf`` for one constant command
            (a caller may then step many physics steps per call).
        metadata: scenario parameters, for reports.
    """

    name: str
    mjcf: str
    settings: SimSettings
    joints: tuple[str, ...]
    kp: np.ndarray
    kd: np.ndarray
    maximum_torque: np.ndarray
    pads: tuple[str, ...]
    objects: tuple[str, ...]
    base_body: str
    palm_body: str
    robot_bodies: tuple[str, ...]
    duration_s: float
    drive: Drive | None = None
    drive_hold_s: float = 0.0
    metadata: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.drive_hold_s >= 0:
            raise ConfigError(f'drive_hold_s must be >= 0, got {self.drive_hold_s!r}')
        n = len(self.joints)
        for name in ('kp', 'kd', 'maximum_torque'):
            array = np.broadcast_to(np.asarray(getattr(self, name), float), (n,)).copy()
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        for name in ('joints', 'pads', 'objects', 'robot_bodies'):
            object.__setattr__(self, name, tuple(getattr(self, name)))
