"""The contacts of the gripper pads, and the ones that touch the grasped object.

The simulator reports every contact a pad makes (``contacts`` in the graph),
oriented from the pad (body1) to the other body (body2). As in rostok, a
*contact* for the monitor and the criteria is one between a robot body (a pad)
and the grasped object, whose force reaches ``MIN_CONTACT_FORCE_N``; a pad
pressing the table is no contact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.values import ContactSet
import numpy as np
import numpy.typing as npt

#: Where the criteria and the monitor come from: the contacts, or the taxels (estimates).
BASES = ('contacts', 'taxels (estimate)')


def basis_name(contacts: bool) -> str:
    """Return the name of the basis of the criteria and events (``BASES``)."""
    return BASES[0] if contacts else BASES[1]


@dataclass(frozen=True)
class PadContacts(ContactSet):
    """K contacts of the pads, in the world frame: what the graph carries.

    Attributes:
        position_in_world: (K, 3) contact points, m.
        normal_in_world: (K, 3) unit normals, from body1 (the pad) to body2.
        force_in_world: (K, 3) force body1 exerts on body2, N.
        body1: (K,) the pad's body id.
        body2: (K,) the other body's id.
        time_s: time of the sample, s.
    """

    position_in_world: np.ndarray
    normal_in_world: np.ndarray
    force_in_world: np.ndarray
    body1: np.ndarray
    body2: np.ndarray
    time_s: float = 0.0

    _ROWS = (('position_in_world', (3,)), ('normal_in_world', (3,)),
             ('force_in_world', (3,)))


def strongest_per_pad(forces_n: npt.ArrayLike, pad_index: npt.ArrayLike,
                      n_pads: int) -> np.ndarray:
    """Return (n_pads,) the largest contact force magnitude of each pad, N (0: none).

    Args:
        forces_n: (M, 3) contact forces, N.
        pad_index: (M,) the pad of each contact, in [0, n_pads).
        n_pads: the number of pads.
    """
    forces = np.asarray(forces_n, float).reshape(-1, 3)
    strongest = np.zeros(n_pads)
    np.maximum.at(strongest, np.asarray(pad_index, np.int64),
                  np.sqrt(np.einsum('ki,ki->k', forces, forces)))
    return strongest


def body_ids(names_by_id: Sequence[str], wanted: Sequence[str], what: str) -> np.ndarray:
    """Return the ids of the bodies ``wanted`` in a table of names by id.

    Raises:
        ConfigError: a name not in the table, naming the valid ones.
    """
    index = {name: i for i, name in enumerate(names_by_id)}
    missing = [name for name in wanted if name not in index]
    if missing:
        raise ConfigError(f'{what} {missing[0]!r} is no body of the simulator; valid: '
                          f'{", ".join(n for n in names_by_id if n)}')
    return np.array([index[name] for name in wanted], dtype=np.int64)


class ObjectContacts:
    """Picks the pads' contacts with one object out of the simulator's pad contacts.

    Contacts name bodies by id; the table of names comes on its own (``bodies``).
    Contacts that come before it are held (at most ``depth``), then handed out.

    Args:
        object_name: the grasped object.
        pads: the pads, in the order of the pad indices returned.
        depth: contacts held while the names are unknown, at most (the oldest go).
    """

    def __init__(self, object_name: str, pads: Sequence[str], depth: int = 1000) -> None:
        if not object_name:
            raise ConfigError('contacts are those with the object: name the object')
        self.object_name, self.pads = object_name, tuple(pads)
        self.depth = depth
        self._held: list[PadContacts] = []
        self._ids: tuple[np.ndarray, int] | None = None

    @property
    def ready(self) -> bool:
        """Whether the body names are known."""
        return self._ids is not None

    def bodies(self, names_by_id: Sequence[str]) -> list[PadContacts]:
        """Take the table of body names by id; return the contacts held until now.

        Raises:
            ConfigError: the object or a pad is no body in the table.
        """
        pads = body_ids(names_by_id, self.pads, 'pad')
        self._ids = (pads, int(body_ids(names_by_id, (self.object_name,), 'object')[0]))
        held, self._held = self._held, []
        return held

    def take(self, contacts: PadContacts) -> list[PadContacts]:
        """Return ``contacts`` if the names are known, else hold it and return nothing."""
        if self._ids is not None:
            return [contacts]
        self._held = (self._held + [contacts])[-self.depth:]
        return []

    def select(self, contacts: PadContacts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the points, forces on the object and pad indices (``with_object``)."""
        if self._ids is None:
            raise ConfigError('the body names of the contacts are not known yet')
        return contacts.with_object(*self._ids)

    def select_with_normals(self, contacts: PadContacts) -> tuple[np.ndarray, ...]:
        """As :meth:`select`, and the normals into the object (``with_object_normals``)."""
        if self._ids is None:
            raise ConfigError('the body names of the contacts are not known yet')
        return contacts.with_object_normals(*self._ids)
