"""A tree of frames from parent-relative transforms, as /tf carries them, without tf2.

``FrameTransforms`` is one batch of transforms (a ``tf2_msgs/TFMessage``);
``FrameTree`` keeps the latest transform of every child frame and composes a
frame's pose in the root, so the monitor can measure how far a body is from
the base exactly as the offline pipeline does from MuJoCo's world poses.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import ConfigError, GraspMonitorError
from grasp_monitor.core.rotations import quat_multiply, quat_to_matrix
from grasp_monitor.core.values import as_array
import numpy as np

#: Name of the root frame (MuJoCo's world body).
WORLD = 'world'


class FrameLookupError(GraspMonitorError, LookupError):
    """A frame's chain of transforms does not reach the root (yet)."""


@dataclass(frozen=True)
class FrameTransforms:
    """Poses of child frames in their parent frames, stacked.

    Attributes:
        parents: parent frame of each transform.
        children: child frame of each transform.
        translation: (N, 3) child origin in the parent frame, m.
        quaternion: (N, 4) child orientation in the parent frame, (w, x, y, z).
        time_s: stamp of the transforms, s.
    """

    parents: tuple[str, ...]
    children: tuple[str, ...]
    translation: np.ndarray
    quaternion: np.ndarray
    time_s: float

    def __post_init__(self) -> None:
        object.__setattr__(self, 'parents', tuple(self.parents))
        object.__setattr__(self, 'children', tuple(self.children))
        n = len(self.children)
        if len(self.parents) != n:
            raise ConfigError(f'{len(self.parents)} parents for {n} children')
        object.__setattr__(self, 'translation',
                           as_array(self.translation, (n, 3), 'translation'))
        object.__setattr__(self, 'quaternion', as_array(self.quaternion, (n, 4), 'quaternion'))


class FrameTree:
    """The latest transform of every child frame, static or not, and their composition.

    A frame has one parent (the latest transform naming it as child wins), as in tf2.
    Static transforms carry no time: a pose's stamp is the oldest stamp among the
    non-static transforms of its chain.
    """

    def __init__(self, root: str = WORLD) -> None:
        self.root = root
        # child -> (parent, translation, rotation matrix, quaternion, stamp or None)
        self._edges: dict[str, tuple[str, np.ndarray, np.ndarray, np.ndarray,
                                     float | None]] = {}

    def update(self, transforms: FrameTransforms, static: bool = False) -> None:
        """Take a batch of transforms; ``static`` ones never age."""
        stamp = None if static else transforms.time_s
        matrices = quat_to_matrix(transforms.quaternion)
        for parent, child, t, m, q in zip(transforms.parents, transforms.children,
                                          transforms.translation, matrices,
                                          transforms.quaternion):
            self._edges[child] = (parent, t, m, q, stamp)

    @property
    def frames(self) -> tuple[str, ...]:
        """Every frame known, root first, then children in the order they came."""
        return (self.root,) + tuple(c for c in self._edges if c != self.root)

    def pose(self, frame: str) -> tuple[np.ndarray, np.ndarray, float]:
        """Return the frame's position (3,) m and rotation (3, 3) in the root, and its stamp.

        The stamp is the oldest among the chain's non-static transforms, s
        (-inf when every transform of the chain is static).

        Raises:
            FrameLookupError: the chain from ``frame`` does not reach the root.
        """
        position, rotation = np.zeros(3), np.eye(3)
        stamp = math.inf
        current, hops = frame, 0
        while current != self.root:
            edge = self._edges.get(current)
            if edge is None or hops > len(self._edges):
                known = ', '.join(self.frames)
                why = 'a loop' if edge is not None else f'no transform to {current!r}'
                raise FrameLookupError(
                    f'frame {frame!r} does not reach {self.root!r} ({why}); frames: {known}')
            parent, t, m, _, edge_stamp = edge
            # child in parent: p_parent = t + m p_child
            position = t + m @ position
            rotation = m @ rotation
            if edge_stamp is not None:
                stamp = min(stamp, edge_stamp)
            current, hops = parent, hops + 1
        return position, rotation, -math.inf if stamp == math.inf else stamp

    def distances_m(self, frames: tuple[str, ...] | list[str],
                    reference: str) -> tuple[np.ndarray, float]:
        """Return each frame origin's distance from ``reference``'s origin, m, and the stamp.

        The stamp is the oldest of the poses used, s.

        Raises:
            FrameLookupError: a frame or the reference does not reach the root.
        """
        origin, _, stamp = self.pose(reference)
        stamps = [stamp]
        distances = np.empty(len(frames))
        for i, frame in enumerate(frames):
            position, _, frame_stamp = self.pose(frame)
            distances[i] = math.sqrt(float(np.dot(position - origin, position - origin)))
            stamps.append(frame_stamp)
        timed = [s for s in stamps if s > -math.inf]  # static chains carry no time
        return distances, min(timed) if timed else -math.inf


def relative_poses(position: np.ndarray, quaternion: np.ndarray, rotation: np.ndarray,
                   children: np.ndarray, parents: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Return the poses of bodies ``children`` in the frames of ``parents``, vectorised.

    Args:
        position: (B, 3) world positions of all bodies, m.
        quaternion: (B, 4) world orientations of all bodies, (w, x, y, z).
        rotation: (B, 3, 3) or (B, 9) the same orientations as matrices.
        children: (N,) rows of the child bodies.
        parents: (N,) rows of their parents.

    Returns:
        (N, 3) translations, m, and (N, 4) quaternions of each child in its parent.
    """
    to_parent = np.asarray(rotation).reshape(-1, 3, 3)[parents]
    offset = position[children] - position[parents]
    translation = np.einsum('nji,nj->ni', to_parent, offset)
    # conj(q_parent) ⊗ q_child in one contraction (a fifth of quat_multiply's cost)
    q = np.einsum('ijk,nj,nk->ni', _CONJUGATE_PRODUCT, quaternion[parents],
                  quaternion[children])
    return translation, q


def _conjugate_product() -> np.ndarray:
    """Return H with ``einsum('ijk,j,k->i', H, a, b)`` = conj(a) ⊗ b."""
    basis = np.eye(4)
    conjugate = np.diag([1.0, -1.0, -1.0, -1.0])
    # [k, j, i]: component i of conj(e_j) ⊗ e_k
    return np.stack([quat_multiply(conjugate @ a, basis) for a in basis], axis=1).T


_CONJUGATE_PRODUCT = _conjugate_product()
