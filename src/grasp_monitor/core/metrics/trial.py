"""The record of one trial: per-sample object state and contact summary, and its events.

Appending a sample writes a few numbers into preallocated numpy buffers that
double when full, so recording every physics step costs no Python object per
contact. Each sample keeps only what the criteria need: the number of robot
contacts, the net contact force on the object, the mean contact point, the
spread of contact force magnitudes, and which robot bodies touch the object.
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor import EventRecord, TIME_TOLERANCE_S
from grasp_monitor.core.values import ContactSet
import numpy as np
import numpy.typing as npt

#: Contacts weaker than this are ignored, as rostok's sensors do, N.
MIN_CONTACT_FORCE_N = 1e-3


@dataclass(frozen=True)
class ContactSummary:
    """The robot-object contacts of one sample, summarised.

    Attributes:
        count: number of contacts (at least the minimum force).
        net_force_on_object_in_world: (3,) N, sum of the contact forces on the object.
        mean_point_in_world: (3,) m, mean of the contact points (NaN with none).
        force_magnitude_std_n: population std of the per-contact force
            magnitudes, N (NaN with no contact).
        body_mask: (B,) bool, robot body b touches the object.
    """

    count: int
    net_force_on_object_in_world: np.ndarray
    mean_point_in_world: np.ndarray
    force_magnitude_std_n: float
    body_mask: np.ndarray

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ConfigError(f'count must be >= 0, got {self.count}')
        for name in ('net_force_on_object_in_world', 'mean_point_in_world'):
            array = np.array(getattr(self, name), dtype=float)
            if array.shape != (3,):
                raise ConfigError(f'{name} must have shape (3,), got {array.shape}')
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        mask = np.array(self.body_mask, dtype=bool)
        if mask.ndim != 1:
            raise ConfigError(f'body_mask must be one-dimensional, got shape {mask.shape}')
        mask.setflags(write=False)
        object.__setattr__(self, 'body_mask', mask)

    @staticmethod
    @functools.lru_cache(maxsize=16)
    def none(n_bodies: int) -> 'ContactSummary':
        """Return the summary of a sample without contacts, for ``n_bodies`` robot bodies."""
        # Cached: it is immutable and most samples of a trial have no contact.
        return ContactSummary(0, np.zeros(3), np.full(3, np.nan), math.nan,
                              np.zeros(n_bodies, bool))


def summarize_contacts(
    points_in_world: npt.ArrayLike,
    forces_on_object_in_world: npt.ArrayLike,
    body_index: npt.ArrayLike,
    n_bodies: int,
    min_force_n: float = MIN_CONTACT_FORCE_N,
) -> ContactSummary:
    """Summarise K contacts on the object (vectorised, no loop per contact).

    Args:
        points_in_world: (K, 3) contact points, m.
        forces_on_object_in_world: (K, 3) force each contact exerts on the object, N.
        body_index: (K,) which robot body (0..B-1) makes each contact; -1 for a
            contact with something that is not the robot (ignored).
        n_bodies: B, the number of robot bodies.
        min_force_n: contacts with a smaller force magnitude are ignored, N.

    Raises:
        ConfigError: shapes that disagree or a body index out of range.
    """
    points = np.asarray(points_in_world, dtype=float).reshape(-1, 3)
    forces = np.asarray(forces_on_object_in_world, dtype=float).reshape(-1, 3)
    index = np.asarray(body_index, dtype=np.int64).reshape(-1)
    if not points.shape[0] == forces.shape[0] == index.shape[0]:
        raise ConfigError(
            f'points ({points.shape[0]}), forces ({forces.shape[0]}) and body_index '
            f'({index.shape[0]}) must count the same contacts')
    if index.size and ((index < -1) | (index >= n_bodies)).any():
        raise ConfigError(f'body_index must be in [-1, {n_bodies - 1}], got {index.tolist()}')
    # einsum and an explicit std: np.linalg.norm and np.std cost more than the math here.
    magnitudes = np.sqrt(np.einsum('ki,ki->k', forces, forces))
    keep = (index >= 0) & (magnitudes >= min_force_n)
    count = int(np.count_nonzero(keep))
    if count == 0:
        return ContactSummary.none(n_bodies)
    mask = np.zeros(n_bodies, bool)
    mask[index[keep]] = True
    kept = magnitudes[keep]
    deviation = kept - kept.sum() / count
    std_n = math.sqrt(float(deviation @ deviation) / count)
    return ContactSummary(
        count, forces[keep].sum(axis=0), points[keep].sum(axis=0) / count, std_n, mask)


def summarize_object_contacts(
    contacts: ContactSet,
    object_body_id: int,
    robot_body_ids: npt.ArrayLike,
    min_force_n: float = MIN_CONTACT_FORCE_N,
) -> ContactSummary:
    """Summarise the contacts between one object and the robot (``ContactSet.with_object``).

    Contacts of the object with anything else (a table) are left out.

    Args:
        contacts: every contact of the sample, the simulator's or the pads'.
        object_body_id: the object's body id.
        robot_body_ids: (B,) body ids of the robot, in sample order.
        min_force_n: contacts with a smaller force magnitude are ignored, N.
    """
    robot = np.asarray(robot_body_ids, dtype=np.int64).reshape(-1)
    return summarize_contacts(*contacts.with_object(robot, object_body_id), robot.size,
                              min_force_n)


class TrialRecord:
    """Samples and events of one trial, in growable preallocated buffers.

    Args:
        n_bodies: B, the number of robot bodies of the contact masks.
        trial_id: the trial the record belongs to.
        body_names: names of the B bodies (optional, for reports).
        start_time_s: time stamp the trial started at, s; default: the first
            sample's.
        capacity: initial number of rows; doubles whenever full.

    Raises:
        ConfigError: B < 1, names that do not match B, capacity < 1.
    """

    _FIELDS = (
        ('time_s', ()), ('object_position_in_world', (3,)), ('object_velocity_in_world', (3,)),
        ('contact_count', ()), ('net_force_on_object_in_world', (3,)),
        ('mean_contact_point_in_world', (3,)), ('contact_force_std_n', ()), ('epsilon', ()),
    )

    def __init__(self, n_bodies: int, trial_id: int = 0, body_names: tuple[str, ...] = (),
                 start_time_s: float | None = None, capacity: int = 1024) -> None:
        if n_bodies < 1:
            raise ConfigError(f'n_bodies must be >= 1, got {n_bodies}')
        if body_names and len(body_names) != n_bodies:
            raise ConfigError(f'body_names must name {n_bodies} bodies, got {list(body_names)}')
        if capacity < 1:
            raise ConfigError(f'capacity must be >= 1, got {capacity}')
        self.n_bodies = int(n_bodies)
        self.trial_id = int(trial_id)
        self.body_names = tuple(body_names)
        self.start_time_s = start_time_s
        self._size = 0
        self._buffers = {
            name: np.zeros((capacity,) + shape, np.int64 if name == 'contact_count' else float)
            for name, shape in self._FIELDS}
        self._buffers['body_mask'] = np.zeros((capacity, self.n_bodies), bool)
        self._events: list[EventRecord] = []

    def __len__(self) -> int:
        return self._size

    @property
    def capacity(self) -> int:
        """Rows allocated."""
        return int(self._buffers['time_s'].shape[0])

    def _grow(self) -> None:
        capacity = 2 * self.capacity
        for name, buffer in self._buffers.items():
            grown = np.zeros((capacity,) + buffer.shape[1:], buffer.dtype)
            grown[:self._size] = buffer[:self._size]
            self._buffers[name] = grown

    def append(self, time_s: float, object_position_in_world: npt.ArrayLike,
               object_velocity_in_world: npt.ArrayLike, contacts: ContactSummary,
               epsilon: float = math.nan) -> None:
        """Add one sample.

        Args:
            time_s: time stamp, s; must not go back.
            object_position_in_world: (3,) object COG, m.
            object_velocity_in_world: (3,) object COG velocity, m/s.
            contacts: the robot-object contacts of the sample.
            epsilon: the grasp quality of the sample (NaN: not computed).

        Raises:
            ConfigError: time going back or a contact mask of the wrong size.
        """
        if self._size and time_s < self._buffers['time_s'][self._size - 1]:
            raise ConfigError(
                f'time_s must not go back: {time_s} after '
                f'{self._buffers["time_s"][self._size - 1]}; start a new record for a new trial')
        if contacts.body_mask.size != self.n_bodies:
            raise ConfigError(
                f'contact mask has {contacts.body_mask.size} bodies, the record {self.n_bodies}')
        if self._size == self.capacity:
            self._grow()
        if self.start_time_s is None:
            self.start_time_s = float(time_s)
        row, buffers = self._size, self._buffers
        buffers['time_s'][row] = time_s
        buffers['object_position_in_world'][row] = object_position_in_world
        buffers['object_velocity_in_world'][row] = object_velocity_in_world
        buffers['contact_count'][row] = contacts.count
        buffers['net_force_on_object_in_world'][row] = contacts.net_force_on_object_in_world
        buffers['mean_contact_point_in_world'][row] = contacts.mean_point_in_world
        buffers['contact_force_std_n'][row] = contacts.force_magnitude_std_n
        buffers['epsilon'][row] = epsilon
        buffers['body_mask'][row] = contacts.body_mask
        self._size = row + 1

    def add_event(self, record: EventRecord) -> None:
        """Keep an event of this trial (status records too).

        Raises:
            ConfigError: a record of another trial (when this one has an id).
        """
        if self.trial_id and record.trial_id != self.trial_id:
            raise ConfigError(
                f'record of trial {record.trial_id} does not belong to trial {self.trial_id}')
        self._events.append(record)

    @property
    def events(self) -> tuple[EventRecord, ...]:
        """The events, in the order they were added."""
        return tuple(self._events)

    def first_event(self, kind: str) -> EventRecord | None:
        """Return the first event of ``kind``, or None."""
        return next((record for record in self._events if record.kind == kind), None)

    def index_at(self, time_s: float) -> int | None:
        """Return the first row at or after ``time_s`` (within 1 ns), or None."""
        times = self._buffers['time_s'][:self._size]
        row = int(np.searchsorted(times, time_s - TIME_TOLERANCE_S, side='left'))
        return row if row < self._size else None

    def drop_after(self, time_s: float) -> None:
        """Forget the rows stamped after ``time_s`` (within 1 ns): the trial ended there."""
        times = self._buffers['time_s'][:self._size]
        self._size = int(np.searchsorted(times, time_s + TIME_TOLERANCE_S, side='right'))

    def _view(self, name: str) -> np.ndarray:
        view = self._buffers[name][:self._size]
        view.flags.writeable = False
        return view

    # Read-only views of the rows recorded so far (valid until the next append).
    @property
    def time_s(self) -> np.ndarray:
        """(N,) time stamps, s."""
        return self._view('time_s')

    @property
    def trial_time_s(self) -> np.ndarray:
        """(N,) time since the trial's start, s."""
        return self.time_s - (self.start_time_s or 0.0)

    @property
    def object_position_in_world(self) -> np.ndarray:
        """(N, 3) object COG, m."""
        return self._view('object_position_in_world')

    @property
    def object_velocity_in_world(self) -> np.ndarray:
        """(N, 3) object COG velocity, m/s."""
        return self._view('object_velocity_in_world')

    @property
    def contact_count(self) -> np.ndarray:
        """(N,) number of robot-object contacts."""
        return self._view('contact_count')

    @property
    def net_force_on_object_in_world(self) -> np.ndarray:
        """(N, 3) net contact force on the object, N."""
        return self._view('net_force_on_object_in_world')

    @property
    def mean_contact_point_in_world(self) -> np.ndarray:
        """(N, 3) mean contact point, m (NaN rows without contact)."""
        return self._view('mean_contact_point_in_world')

    @property
    def contact_force_std_n(self) -> np.ndarray:
        """(N,) population std of contact force magnitudes, N (NaN without contact)."""
        return self._view('contact_force_std_n')

    @property
    def epsilon(self) -> np.ndarray:
        """Grasp quality of each sample (N,): the Ferrari–Canny epsilon, NaN where not computed."""
        return self._view('epsilon')

    @property
    def body_mask(self) -> np.ndarray:
        """(N, B) robot bodies touching the object."""
        return self._view('body_mask')
