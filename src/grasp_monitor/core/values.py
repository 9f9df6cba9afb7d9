"""Values shared by the backends, the core and the nodes.

Every value is a frozen dataclass that checks shapes in ``__post_init__``.
Frames follow REP-103; units are SI; quaternions are (w, x, y, z) as in MuJoCo.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import ClassVar, TYPE_CHECKING

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_to_matrix
import numpy as np
import numpy.typing as npt


def as_array(value: npt.ArrayLike, shape: tuple[int, ...], name: str) -> np.ndarray:
    """Return ``value`` as a read-only float array of ``shape`` (-1 = any length).

    Raises:
        ConfigError: if the shape does not match.
    """
    array = np.array(value, dtype=float)
    if array.shape != shape and (array.ndim != len(shape) or any(
        want not in (-1, got) for want, got in zip(shape, array.shape)
    )):
        raise ConfigError(f'{name} must have shape {shape}, got {array.shape}')
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class JointStates:
    """Joint positions (rad or m), velocities (rad/s or m/s) and efforts (N·m or N)."""

    names: tuple[str, ...]
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray
    time_s: float = 0.0

    def __post_init__(self) -> None:
        n = len(self.names)
        object.__setattr__(self, 'names', tuple(self.names))
        for field in ('position', 'velocity', 'effort'):
            object.__setattr__(self, field, as_array(getattr(self, field), (n,), field))


@dataclass(frozen=True)
class BodyState:
    """Pose and twist of a body in the world frame.

    Attributes:
        name: body name.
        position_in_world: (3,) m.
        quaternion_in_world: (4,) (w, x, y, z), body to world.
        linear_velocity_in_world: (3,) m/s of the body origin.
        angular_velocity_in_world: (3,) rad/s.
        time_s: time of the sample, s.
    """

    name: str
    position_in_world: np.ndarray
    quaternion_in_world: np.ndarray
    linear_velocity_in_world: np.ndarray
    angular_velocity_in_world: np.ndarray
    time_s: float = 0.0

    def __post_init__(self) -> None:
        for field, shape in (
            ('position_in_world', (3,)),
            ('quaternion_in_world', (4,)),
            ('linear_velocity_in_world', (3,)),
            ('angular_velocity_in_world', (3,)),
        ):
            object.__setattr__(self, field, as_array(getattr(self, field), shape, field))

    def at(self, time_s: float) -> BodyState:
        """Return this state stamped ``time_s``, s: itself if it is, else a copy.

        The copy shares the read-only arrays, checked once: a metrics sample stamps
        three states at every sample.
        """
        if self.time_s == time_s:
            return self
        state = copy.copy(self)
        object.__setattr__(state, 'time_s', time_s)
        return state


@dataclass(frozen=True)
class BodyArrays:
    """Poses and twists of several bodies, stacked (world frame).

    Attributes:
        names: body names.
        position: (B, 3) m.
        quaternion: (B, 4) (w, x, y, z).
        linear_velocity: (B, 3) m/s of each body origin.
        angular_velocity: (B, 3) rad/s.
        time_s: sample time, s.
    """

    names: tuple[str, ...]
    position: np.ndarray
    quaternion: np.ndarray
    linear_velocity: np.ndarray
    angular_velocity: np.ndarray
    time_s: float

    def __post_init__(self) -> None:
        names = tuple(self.names)
        object.__setattr__(self, 'names', names)
        for field, width in (('position', 3), ('quaternion', 4), ('linear_velocity', 3),
                             ('angular_velocity', 3)):
            object.__setattr__(
                self, field, as_array(getattr(self, field), (len(names), width), field))

    def twist_in_body(self) -> tuple[np.ndarray, np.ndarray]:
        """Return linear and angular velocities (B, 3) in each body's own frame."""
        to_body = quat_to_matrix(self.quaternion)
        return (np.einsum('bji,bj->bi', to_body, self.linear_velocity),
                np.einsum('bji,bj->bi', to_body, self.angular_velocity))

    def state(self, index: int) -> BodyState:
        """Return the ``index``-th body as a BodyState."""
        return BodyState(
            self.names[index], self.position[index], self.quaternion[index],
            self.linear_velocity[index], self.angular_velocity[index], self.time_s)


class ContactSet:
    """The base of the contact values: K contacts, row k of every array is contact k.

    Each contact joins body1 to body2 (MuJoCo body ids); ``force_in_world`` is the
    force body1 exerts on body2 and ``normal_in_world`` points from body1 to body2, both
    in the world frame. A subclass is a frozen dataclass that names its float arrays
    and the shape of one row in ``_ROWS`` and its int id arrays in ``_IDS``; its
    ``__post_init__`` (this one) makes each a read-only array of K rows.

    Raises:
        ConfigError: an array whose rows or row shape differ.
    """

    _ROWS: ClassVar[tuple[tuple[str, tuple[int, ...]], ...]] = (('position_in_world', (3,)),)
    _IDS: ClassVar[tuple[str, ...]] = ('body1', 'body2')

    position_in_world: np.ndarray
    body1: np.ndarray
    body2: np.ndarray
    time_s: float

    if TYPE_CHECKING:  # the subclasses' fields or properties
        force_in_world: np.ndarray
        normal_in_world: np.ndarray

    def __post_init__(self) -> None:
        k = np.shape(self.position_in_world)[0] if np.ndim(self.position_in_world) else 0
        for field, row in self._ROWS:
            object.__setattr__(self, field, as_array(getattr(self, field), (k, *row), field))
        for field in self._IDS:
            ids = np.array(getattr(self, field), dtype=np.int64).reshape(-1)
            if ids.shape != (k,):
                raise ConfigError(f'{field} must have shape ({k},), got {ids.shape}')
            ids.setflags(write=False)
            object.__setattr__(self, field, ids)

    def __len__(self) -> int:
        return int(self.position_in_world.shape[0])

    def with_object(self, robot_ids: npt.ArrayLike, object_id: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the contacts of the robot bodies ``robot_ids`` with the object.

        Contacts of the object with anything else (a table) and of the robot with
        anything else are left out; the object may be either body.

        Args:
            robot_ids: (B,) body ids of the robot (the pads), in the order of the index.
            object_id: the object's body id.

        Returns:
            Points (M, 3) m, forces on the object (M, 3) N, and which robot body
            (index into ``robot_ids``) makes each.
        """
        rows, robot, object_second = self._object_rows(robot_ids, object_id)
        return (self.position_in_world[rows],
                _towards_object(self.force_in_world[rows], object_second), robot)

    def with_object_normals(self, robot_ids: npt.ArrayLike, object_id: int
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """As :meth:`with_object`, and the (M, 3) normals, from the robot into the object."""
        rows, robot, object_second = self._object_rows(robot_ids, object_id)
        return (self.position_in_world[rows],
                _towards_object(self.force_in_world[rows], object_second), robot,
                _towards_object(self.normal_in_world[rows], object_second))

    def _object_rows(self, robot_ids: npt.ArrayLike, object_id: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the rows robot-object, the robot index of each, whether it is body1."""
        robots = np.asarray(robot_ids, dtype=np.int64).reshape(-1)
        object_second = self.body2 == object_id
        other = np.where(object_second, self.body1, self.body2)
        matches = other[:, None] == robots[None, :]
        rows = np.flatnonzero((object_second | (self.body1 == object_id))
                              & matches.any(axis=1))
        return rows, matches[rows].argmax(axis=1), object_second[rows]


def _towards_object(vectors: np.ndarray, object_second: np.ndarray) -> np.ndarray:
    """Return (M, 3) ``vectors`` from body1 to body2, turned where the object is body1."""
    # a copy only when needed: the pads' contacts always have the object second
    return vectors if object_second.all() else np.where(object_second[:, None], vectors,
                                                        -vectors)


@dataclass(frozen=True)
class Contacts(ContactSet):
    """K contacts in bulk, as the simulator reports them.

    Attributes:
        position_in_world: (K, 3) m, contact point.
        frame_in_world: (K, 3, 3); rows are the contact normal (pointing from
            geom1 to geom2) and the two tangents, MuJoCo's contact frame.
        force_in_contact: (K, 3) N, the force geom1 exerts on geom2, in the
            contact frame (normal, tangent1, tangent2); normal >= 0 pushes apart.
        geom1, geom2: (K,) int geom ids.
        body1, body2: (K,) int body ids of those geoms.
        time_s: time of the sample, s.
        distance_m: (K,) signed distance between the surfaces, m: negative
            when they penetrate (None: zeros, unknown).
    """

    position_in_world: np.ndarray
    frame_in_world: np.ndarray
    force_in_contact: np.ndarray
    geom1: np.ndarray
    geom2: np.ndarray
    body1: np.ndarray
    body2: np.ndarray
    time_s: float = 0.0
    distance_m: np.ndarray | None = None

    _ROWS = (('position_in_world', (3,)), ('frame_in_world', (3, 3)),
             ('force_in_contact', (3,)), ('distance_m', ()))
    _IDS = ('geom1', 'geom2', 'body1', 'body2')

    def __post_init__(self) -> None:
        if self.distance_m is None:
            k = np.shape(self.position_in_world)[0] if np.ndim(self.position_in_world) else 0
            object.__setattr__(self, 'distance_m', np.zeros(k))
        super().__post_init__()

    @property
    def force_in_world(self) -> np.ndarray:
        """(K, 3) N, the force on geom2 in the world frame."""
        return np.einsum('ki,kij->kj', self.force_in_contact, self.frame_in_world)

    @property
    def normal_in_world(self) -> np.ndarray:
        """(K, 3) unit normals, from geom1 to geom2, in the world frame."""
        return self.frame_in_world[:, 0]

    @staticmethod
    def empty(time_s: float = 0.0) -> 'Contacts':
        """Return an empty set of contacts."""
        return Contacts(
            np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)),
            np.zeros(0, int), np.zeros(0, int), np.zeros(0, int), np.zeros(0, int),
            time_s,
        )


GEOM_TYPES = ('plane', 'hfield', 'sphere', 'capsule', 'ellipsoid', 'cylinder', 'box', 'mesh')


@dataclass(frozen=True)
class GeomShape:
    """A collision geom described without the simulator.

    Attributes:
        name: geom name ('' when unnamed).
        geom_id: the simulator's id.
        body: name of the body that owns it.
        kind: one of GEOM_TYPES (MuJoCo's names).
        size: (3,) MuJoCo size parameters: box half-extents; sphere radius;
            capsule/cylinder radius, half-length; ellipsoid semi-axes.
        position_in_body: (3,) m.
        quaternion_in_body: (4,) (w, x, y, z).
    """

    name: str
    geom_id: int
    body: str
    kind: str
    size: np.ndarray
    position_in_body: np.ndarray
    quaternion_in_body: np.ndarray

    def __post_init__(self) -> None:
        if self.kind not in GEOM_TYPES:
            raise ConfigError(f'geom kind {self.kind!r} is not one of {", ".join(GEOM_TYPES)}')
        for field, shape in (
            ('size', (3,)), ('position_in_body', (3,)), ('quaternion_in_body', (4,)),
        ):
            object.__setattr__(self, field, as_array(getattr(self, field), shape, field))
