"""MuJoCo contacts and collision geoms, in bulk, as core values.

``extract_contacts`` reads every active contact of ``MjData`` with array
operations only (no Python loop per contact) and decodes the constraint force
of either friction cone into the contact frame, matching
``mujoco.mj_contactForce`` on its first three components (the force; the
torsional and rolling torques of condim 4 and 6 are not kept).
"""

from __future__ import annotations

import logging
from typing import Iterable, Iterator, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.pad_contacts import PadContacts
from grasp_monitor.core.values import Contacts, GeomShape
import mujoco
import numpy as np
import numpy.typing as npt

_log = logging.getLogger(__name__)

#: Core kind of each MuJoCo geom type a GeomShape can describe.
_KIND_OF_TYPE = {
    int(mujoco.mjtGeom.mjGEOM_PLANE): 'plane',
    int(mujoco.mjtGeom.mjGEOM_HFIELD): 'hfield',
    int(mujoco.mjtGeom.mjGEOM_SPHERE): 'sphere',
    int(mujoco.mjtGeom.mjGEOM_CAPSULE): 'capsule',
    int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): 'ellipsoid',
    int(mujoco.mjtGeom.mjGEOM_CYLINDER): 'cylinder',
    int(mujoco.mjtGeom.mjGEOM_BOX): 'box',
    int(mujoco.mjtGeom.mjGEOM_MESH): 'mesh',
}


def _groups(condim: np.ndarray) -> Iterator[tuple[int, slice | np.ndarray]]:
    """Yield (condim, members) per distinct condim: at most four groups, never per contact."""
    values = np.unique(condim)
    for value in values:
        yield int(value), (slice(None) if values.size == 1 else np.flatnonzero(condim == value))


def _force_elliptic(efc_force: np.ndarray, address: np.ndarray,
                    condim: np.ndarray) -> np.ndarray:
    """Return the (K, 3) contact-frame force of elliptic-cone contacts.

    The solver's rows are the force itself: normal, then tangents (condim >= 3).
    """
    force = np.zeros((address.size, 3))
    for dim, members in _groups(condim):
        width = 1 if dim == 1 else 3
        force[members, :width] = efc_force[address[members, None] + np.arange(width)]
    return force


def _force_pyramidal(efc_force: np.ndarray, address: np.ndarray, condim: np.ndarray,
                     friction: np.ndarray) -> np.ndarray:
    """Return the (K, 3) contact-frame force of pyramidal-cone contacts.

    Each pair of pyramid edges (2i, 2i + 1) spans friction direction i: the
    normal force is the sum of every edge force and tangent i is
    ``(f_2i - f_2i+1) * mu_i``. condim 1 has a single (normal) row.
    """
    force = np.zeros((address.size, 3))
    for dim, members in _groups(condim):
        edges = 1 if dim == 1 else 2 * (dim - 1)
        edge_force = efc_force[address[members, None] + np.arange(edges)]
        force[members, 0] = edge_force.sum(axis=1)
        if dim >= 3:
            force[members, 1:] = ((edge_force[:, 0:4:2] - edge_force[:, 1:4:2])
                                  * friction[members, :2])
    return force


def extract_contacts(model: mujoco.MjModel, data: mujoco.MjData,
                     time_s: float | None = None) -> Contacts:
    """Return every active contact of ``data`` as core Contacts (copies).

    Contacts MuJoCo excluded from the solver (``efc_address < 0``: in the
    margin gap, fused bodies, no degrees of freedom) are dropped. Flex
    contacts have geom and body id -1.

    Args:
        model: the compiled model.
        data: its data after ``mj_forward`` or ``mj_step``.
        time_s: time stamp of the sample, s; ``data.time`` when None.

    Returns:
        Contacts whose ``force_in_contact`` is the force geom1 exerts on geom2
        (N) in MuJoCo's contact frame (normal from geom1 to geom2, tangent1,
        tangent2); the normal component is >= 0 and pushes them apart.
    """
    stamp = float(data.time) if time_s is None else float(time_s)
    if data.ncon == 0:
        return Contacts.empty(stamp)
    contact = data.contact
    address = contact.efc_address
    active = address >= 0
    kept: slice | np.ndarray = slice(None)  # views of MjData; Contacts copies them
    if not active.all():
        kept = np.flatnonzero(active)
        if kept.size == 0:
            return Contacts.empty(stamp)
    address = address[kept]
    condim = contact.dim[kept]
    if model.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC:
        force = _force_elliptic(data.efc_force, address, condim)
    else:
        force = _force_pyramidal(data.efc_force, address, condim, contact.friction[kept])
    geoms = contact.geom[kept]
    bodies = np.where(geoms >= 0, model.geom_bodyid[np.maximum(geoms, 0)], -1)
    return Contacts(
        position_in_world=contact.pos[kept],
        frame_in_world=contact.frame[kept].reshape(-1, 3, 3),
        force_in_contact=force,
        geom1=geoms[:, 0], geom2=geoms[:, 1],
        body1=bodies[:, 0], body2=bodies[:, 1],
        time_s=stamp, distance_m=contact.dist[kept],
    )


def pad_contacts(contacts: Contacts, pad_ids: npt.ArrayLike) -> PadContacts:
    """Return the contacts that touch a pad, oriented from the pad, in the world frame.

    A contact between two pads is kept once, from its geom1's pad.

    Args:
        contacts: every contact of the sample (``extract_contacts``).
        pad_ids: body ids of the pads.
    """
    pads = np.asarray(pad_ids, dtype=np.int64)
    # a table by body id (np.isin costs ten times more on a tick's few contacts); the
    # last entry stays False for the -1 of flex contacts
    size = max(int(pads.max(initial=-1)), int(contacts.body1.max(initial=-1)),
               int(contacts.body2.max(initial=-1))) + 2
    is_pad = np.zeros(size, bool)
    is_pad[pads] = True
    first = is_pad[contacts.body1]
    keep = np.flatnonzero(first | is_pad[contacts.body2])
    # +1 where the pad is geom1 (MuJoCo's normal and force already point away from it)
    sign = np.where(first[keep], 1.0, -1.0)[:, None]
    frame = contacts.frame_in_world[keep]
    force = np.einsum('kji,kj->ki', frame, contacts.force_in_contact[keep])
    return PadContacts(
        contacts.position_in_world[keep], sign * frame[:, 0], sign * force,
        np.where(first[keep], contacts.body1[keep], contacts.body2[keep]),
        np.where(first[keep], contacts.body2[keep], contacts.body1[keep]), contacts.time_s)


def body_names(model: mujoco.MjModel) -> tuple[str, ...]:
    """Return the name of every body, by id ('' for unnamed bodies)."""
    return tuple(
        mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, i) or '' for i in range(model.nbody))


def _body_ids(model: mujoco.MjModel, bodies: Iterable[str] | None) -> np.ndarray:
    """Return the ids of the named bodies (all when None); unknown names raise."""
    if bodies is None:
        return np.arange(model.nbody)
    if isinstance(bodies, str):
        bodies = (bodies,)
    ids = []
    for name in bodies:
        body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        if body_id < 0:
            valid = ', '.join(n for n in body_names(model) if n)
            raise ConfigError(f'unknown body {name!r}; valid bodies: {valid}')
        ids.append(body_id)
    return np.array(ids, dtype=np.int64)


def geom_shapes(model: mujoco.MjModel,
                bodies: Iterable[str] | None = None) -> tuple[GeomShape, ...]:
    """Return the collision geoms of the named bodies as core GeomShape values.

    A collision geom is one whose ``contype`` or ``conaffinity`` is non-zero,
    or one named in an explicit ``<pair>``. Geoms of a type GeomShape cannot
    describe (SDF) are skipped with a warning.

    Args:
        model: the compiled model.
        bodies: body names (every body when None), in the order wanted; the
            geoms of each body come in id order.

    Returns:
        One GeomShape per collision geom, its pose in its body's frame.

    Raises:
        ConfigError: for an unknown body name, listing the valid names.
    """
    body_ids = _body_ids(model, bodies)
    colliding = (model.geom_contype != 0) | (model.geom_conaffinity != 0)
    colliding[model.pair_geom1] = True
    colliding[model.pair_geom2] = True
    names = body_names(model)
    shapes = []
    for body_id in body_ids:
        for geom_id in np.flatnonzero((model.geom_bodyid == body_id) & colliding):
            kind = _KIND_OF_TYPE.get(int(model.geom_type[geom_id]))
            geom_name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, geom_id) or ''
            if kind is None:
                _log.warning('geom %d (%r) of body %r has a type GeomShape cannot describe; '
                             'skipped', geom_id, geom_name, names[body_id])
                continue
            shapes.append(GeomShape(
                name=geom_name, geom_id=int(geom_id), body=names[body_id], kind=kind,
                size=model.geom_size[geom_id].copy(),
                position_in_body=model.geom_pos[geom_id].copy(),
                quaternion_in_body=model.geom_quat[geom_id].copy()))
    return tuple(shapes)


def geom_meshes(model: mujoco.MjModel,
                shapes: Iterable[GeomShape]) -> Mapping[int, tuple[np.ndarray, np.ndarray]]:
    """Return the triangles of the mesh geoms among ``shapes``, for mesh-mode layouts.

    Args:
        model: the compiled model.
        shapes: geoms, as ``geom_shapes`` returns them; non-mesh geoms are ignored.

    Returns:
        ``{geom_id: (vertices_in_geom (V, 3) m, faces (F, 3) vertex indices)}``;
        MuJoCo stores compiled mesh vertices in the geom's own frame.
    """
    meshes = {}
    for shape in shapes:
        if shape.kind != 'mesh':
            continue
        mesh_id = int(model.geom_dataid[shape.geom_id])
        first_vertex = int(model.mesh_vertadr[mesh_id])
        first_face = int(model.mesh_faceadr[mesh_id])
        vertices = model.mesh_vert[first_vertex:first_vertex + model.mesh_vertnum[mesh_id]]
        faces = model.mesh_face[first_face:first_face + model.mesh_facenum[mesh_id]]
        meshes[shape.geom_id] = (np.array(vertices, dtype=float), np.array(faces, dtype=np.int64))
    return meshes
