"""What a scenario is: generated MJCF plus the names the rest of the system needs."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
import numbers
from typing import Callable, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand
import numpy as np

CONES = ('pyramidal', 'elliptic')
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

    def __post_init__(self) -> None:
        for item in fields(self):
            value, kind = getattr(self, item.name), type(item.default)
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

    def option_xml(self, gravity: str = '0 0 -9.8') -> str:
        """Return the MJCF ``<option>`` element for these settings."""
        return (
            f'<option timestep="{self.timestep_s!r}" gravity="{gravity}" cone="{self.cone}"'
            f' solver="{self.solver}" iterations="{self.iterations}"'
            f' noslip_iterations="{self.noslip_iterations}" impratio="{self.impratio!r}"'
            f' integrator="{self.integrator}"/>'
        )


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
