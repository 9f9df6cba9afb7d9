"""MuJoCo geoms as URDF visual and collision elements; meshes as STL files.

Boxes, spheres and cylinders map one to one. A capsule is its cylinder and two
end spheres (three elements, exact); an ellipsoid is a unit sphere mesh scaled by
its radii; a plane is a 1 mm plate under its surface (10 m square when infinite).
Mesh geoms are written as binary STL files named by their content (one file serves
every scene that uses the mesh) and referenced by ``file://`` URI. Height fields
and SDF geoms have no URDF counterpart and are left out, with a log line.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
import re
import tempfile
import xml.etree.ElementTree as ET

from grasp_monitor.core.errors import ConfigError
import mujoco
import numpy as np

_log = logging.getLogger(__name__)
_GEOM = mujoco.mjtGeom
#: Geom groups MuJoCo's viewer shows by default: the visual geoms.
VISIBLE_GROUPS = (0, 1, 2)
#: Thickness of the plate that stands for a plane, m; its side when the plane is infinite.
PLANE_THICKNESS_M = 0.001
INFINITE_PLANE_M = 10.0
#: Latitude and longitude bands of the unit sphere mesh behind ellipsoids.
_SPHERE_BANDS = 16


def number(value: float) -> str:
    """Return a float as URDF text: the shortest string that reads back exactly."""
    value = float(value)
    return '0' if value == 0.0 else repr(value)


def numbers(values) -> str:
    """Return floats as space-separated URDF text."""
    return ' '.join(number(v) for v in np.asarray(values, float).reshape(-1))


def quat_to_rpy(quaternion) -> np.ndarray:
    """Return URDF roll, pitch, yaw (fixed axes x, y, z) of a (w, x, y, z) quaternion, rad."""
    from grasp_monitor.core.rotations import quat_to_matrix
    q = np.asarray(quaternion, float)
    m = quat_to_matrix(q / np.linalg.norm(q))
    cos_pitch = np.hypot(m[0, 0], m[1, 0])
    pitch = np.arctan2(-m[2, 0], cos_pitch)
    if cos_pitch > 1e-9:
        return np.array([np.arctan2(m[2, 1], m[2, 2]), pitch, np.arctan2(m[1, 0], m[0, 0])])
    # gimbal lock: yaw and roll turn about one axis; give it all to roll
    return np.array([np.arctan2(-m[1, 2], m[1, 1]), pitch, 0.0])


def origin(parent: ET.Element, position, quaternion) -> None:
    """Add an ``<origin>`` of a pose (position m, (w, x, y, z) quaternion) to ``parent``."""
    ET.SubElement(parent, 'origin', xyz=numbers(position), rpy=numbers(quat_to_rpy(quaternion)))


def rgba(model: mujoco.MjModel, geom: int) -> np.ndarray:
    """Return a geom's colour, to 3 decimals: its material's when it has one (no textures)."""
    material = int(model.geom_matid[geom])
    colour = model.mat_rgba[material] if material >= 0 else model.geom_rgba[geom]
    return np.round(colour.astype(float), 3)


def material_name(colour: np.ndarray) -> str:
    """Return the name of the URDF material of a colour (one per colour)."""
    return 'rgba_' + '_'.join(f'{c:g}' for c in colour)


def write_stl(directory: Path, stem: str, vertices: np.ndarray, faces: np.ndarray) -> Path:
    """Write triangles as a binary STL named ``<stem>-<content hash>.stl``; return its path.

    A file already there is the same content: it is kept. A new one appears whole
    (written aside, then renamed), so processes sharing a directory never read half.
    """
    triangles = np.asarray(vertices, float)[np.asarray(faces, np.int64)]
    normals = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    lengths = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, lengths, out=np.zeros_like(normals), where=lengths > 0)
    records = np.zeros(len(triangles), np.dtype([('normal', '<f4', 3), ('corners', '<f4', 9),
                                                 ('attributes', '<u2')]))
    records['normal'] = normals
    records['corners'] = triangles.reshape(-1, 9)
    body = np.uint32(len(triangles)).tobytes() + records.tobytes()
    digest = hashlib.sha1(body).hexdigest()[:12]
    safe = re.sub(r'[^\w.-]', '_', stem)
    path = Path(directory) / f'{safe}-{digest}.stl'
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix='.stl.tmp')
        with os.fdopen(handle, 'wb') as stream:
            stream.write(b'grasp_monitor'.ljust(80, b' ') + body)
        os.replace(temporary, path)
    return path


def unit_sphere(bands: int = _SPHERE_BANDS) -> tuple[np.ndarray, np.ndarray]:
    """Return the vertices and outward faces of a unit UV sphere."""
    polar = np.linspace(0.0, np.pi, bands + 1)[1:-1]
    azimuth = np.linspace(0.0, 2 * np.pi, 2 * bands, endpoint=False)
    ring = np.stack(np.meshgrid(polar, azimuth, indexing='ij'), axis=-1).reshape(-1, 2)
    vertices = np.concatenate([
        [[0.0, 0.0, 1.0]],
        np.stack([np.sin(ring[:, 0]) * np.cos(ring[:, 1]),
                  np.sin(ring[:, 0]) * np.sin(ring[:, 1]), np.cos(ring[:, 0])], axis=1),
        [[0.0, 0.0, -1.0]]])
    n, rings = 2 * bands, bands - 1
    index = 1 + np.arange(rings * n).reshape(rings, n)
    following = np.roll(index, -1, axis=1)
    faces = [np.stack([np.zeros(n, int), index[0], following[0]], axis=1),
             np.stack([np.full(n, len(vertices) - 1), following[-1], index[-1]], axis=1)]
    for r in range(rings - 1):
        faces += [np.stack([index[r], index[r + 1], following[r]], axis=1),
                  np.stack([following[r], index[r + 1], following[r + 1]], axis=1)]
    return vertices, np.concatenate(faces)


class GeomWriter:
    """Writes a model's geoms into URDF links; meshes go to ``mesh_dir``.

    Args:
        model: the compiled model.
        mesh_dir: where mesh and ellipsoid STL files go; None refuses geoms that need one.
    """

    def __init__(self, model: mujoco.MjModel, mesh_dir: Path | None) -> None:
        self.model = model
        self.mesh_dir = mesh_dir
        self.materials: dict[str, np.ndarray] = {}
        self._meshes: dict[int, Path] = {}

    def add(self, link: ET.Element, geom: int) -> None:
        """Add geom ``geom`` to ``link`` as visual (visible groups) and collision elements."""
        model = self.model
        shapes = self._shapes(geom)
        colour = rgba(model, geom)
        visible = int(model.geom_group[geom]) in VISIBLE_GROUPS and colour[3] > 0.0
        colliding = bool(model.geom_contype[geom] or model.geom_conaffinity[geom])
        for kind, present in (('visual', visible), ('collision', colliding)):
            if not present:
                continue
            for position, quaternion, tag, attributes in shapes:
                element = ET.SubElement(link, kind)
                origin(element, position, quaternion)
                ET.SubElement(ET.SubElement(element, 'geometry'), tag, **attributes)
                if kind == 'visual':
                    name = material_name(colour)
                    self.materials[name] = colour
                    ET.SubElement(element, 'material', name=name)

    def _shapes(self, geom: int) -> list[tuple[np.ndarray, np.ndarray, str, dict[str, str]]]:
        """Return (position, quaternion, URDF geometry tag, attributes) of the geom's parts."""
        model = self.model
        kind = int(model.geom_type[geom])
        size = model.geom_size[geom]
        position, quaternion = model.geom_pos[geom], model.geom_quat[geom]
        if kind == _GEOM.mjGEOM_BOX:
            return [(position, quaternion, 'box', {'size': numbers(2 * size)})]
        if kind == _GEOM.mjGEOM_SPHERE:
            return [(position, quaternion, 'sphere', {'radius': number(size[0])})]
        if kind == _GEOM.mjGEOM_CYLINDER:
            return [(position, quaternion, 'cylinder',
                     {'radius': number(size[0]), 'length': number(2 * size[1])})]
        if kind == _GEOM.mjGEOM_CAPSULE:
            from grasp_monitor.core.rotations import rotate
            axis = rotate(quaternion, [0.0, 0.0, size[1]])
            ends = [(position + sign * axis, quaternion, 'sphere', {'radius': number(size[0])})
                    for sign in (1.0, -1.0)]
            return [(position, quaternion, 'cylinder',
                     {'radius': number(size[0]), 'length': number(2 * size[1])})] + ends
        if kind == _GEOM.mjGEOM_ELLIPSOID:
            path = self._stl('unit_sphere', *unit_sphere())
            return [(position, quaternion, 'mesh',
                     {'filename': path.as_uri(), 'scale': numbers(size)})]
        if kind == _GEOM.mjGEOM_PLANE:
            side = np.where(size[:2] > 0, 2 * size[:2], INFINITE_PLANE_M)
            from grasp_monitor.core.rotations import rotate
            below = position - rotate(quaternion, [0.0, 0.0, PLANE_THICKNESS_M / 2])
            return [(below, quaternion, 'box',
                     {'size': numbers([side[0], side[1], PLANE_THICKNESS_M])})]
        if kind == _GEOM.mjGEOM_MESH:
            return [(position, quaternion, 'mesh', {'filename': self._mesh(geom).as_uri()})]
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, geom) or f'geom {geom}'
        _log.info('URDF: %s (%s) has no URDF shape; left out', name, _GEOM(kind).name)
        return []

    def _mesh(self, geom: int) -> Path:
        model = self.model
        mesh = int(model.geom_dataid[geom])
        if mesh not in self._meshes:
            vertex, face = int(model.mesh_vertadr[mesh]), int(model.mesh_faceadr[mesh])
            vertices = model.mesh_vert[vertex:vertex + model.mesh_vertnum[mesh]]
            faces = model.mesh_face[face:face + model.mesh_facenum[mesh]]
            stem = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_MESH, mesh) or f'mesh_{mesh}'
            self._meshes[mesh] = self._stl(stem, vertices, faces)
        return self._meshes[mesh]

    def _stl(self, stem: str, vertices: np.ndarray, faces: np.ndarray) -> Path:
        if self.mesh_dir is None:
            raise ConfigError(f'the model has a mesh ({stem}): give a directory for its '
                              'STL files')
        return write_stl(self.mesh_dir, stem, vertices, faces)
