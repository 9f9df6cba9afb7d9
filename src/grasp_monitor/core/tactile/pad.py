"""One pad's taxels and the force distribution onto them: ``TactilePad``.

For every contact touching one of the pad's geoms, the force *on the pad* is
taken from the contact (flipped when the pad geom is the contact's geom1,
because ``Contacts.force_in_contact`` is the force on geom2), expressed by
the touch function (in the frame ``force_frame`` says) and spread over the
taxels by the response function from the contact point (moved onto the pad's
surface if ``contact_point`` says so).
With ``slip`` on, each contact's tangential velocity relative to the pad,
times its normal force, and that normal force are spread with the same
weights; their ratio at a taxel is its slip, 0 where no force bears.
``compute`` has no Python loop per contact or per taxel: a contact's
candidate taxels come from a grid of cells (``candidate_grid``), and a k-d
tree answers the rare contact with no taxel in range.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.noise import NoiseModel
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile.blocks import _PadBlocks
from grasp_monitor.core.tactile.candidate_grid import _CandidateGrid
from grasp_monitor.core.tactile.config import (
    SPREAD_RADIUS_RESOLUTIONS, TactileConfig, TOUCH_FUNCTIONS)
from grasp_monitor.core.tactile.layout import PadLayout
from grasp_monitor.core.tactile.scatter import _slip
from grasp_monitor.core.tactile.surface import on_surface_offset
from grasp_monitor.core.values import Contacts
import numpy as np
import numpy.typing as npt
from scipy.spatial import cKDTree


class TactilePad:
    """One pad's taxels and the force distribution onto them.

    Args:
        layout: taxel positions and normals in the pad body frame.
        geom_ids: simulator ids of the pad's geoms whose contacts count
            (default: the geoms the layout covers).
        config: touch and response functions, resolution, noise, frames.
        geom_quaternions: orientation in the pad body (w, x, y, z) of every
            geom the layout covers, by id; needed by ``force_frame`` geom.

    Attributes:
        layout: the layout.
        config: the configuration.
        geom_ids: (G,) the geoms whose contacts count.
        width: values per taxel (1 or 3).
        spread_radius_m: reach of ``spread_linear``, 2 x resolution, m.
        noise: the noise model applied to every output.
        total_force_in_pad: (3,) N, sum of the forces on the pad in the pad
            frame at the last ``compute`` (before noise), for checks.
        contact_count: contacts that touched the pad at the last ``compute``.
        slip: (N, 3) m/s at the last ``compute`` with ``config.slip`` on, else
            None: per taxel, the tangential velocity of the touching surface
            relative to the pad, in the pad frame, averaged over the contacts
            that reach the taxel by their share of normal force (no noise).

    Raises:
        ConfigError: bad names, resolution or geom ids.
    """

    def __init__(self, layout: PadLayout, geom_ids: Iterable[int] | None = None,
                 config: TactileConfig | None = None,
                 geom_quaternions: Mapping[int, npt.ArrayLike] | None = None) -> None:
        if not isinstance(layout, PadLayout):
            raise ConfigError(f'layout must be a PadLayout, got {type(layout).__name__}')
        self.layout = layout
        self.config = TactileConfig() if config is None else config
        ids = np.unique(layout.geom_ids) if geom_ids is None else np.unique(
            np.asarray(list(geom_ids), dtype=np.int64))
        if ids.size == 0 or np.any(ids < 0):
            raise ConfigError(f'geom_ids must be one or more ids >= 0, got {ids.tolist()}')
        ids.setflags(write=False)
        self.geom_ids = ids
        self.width = TOUCH_FUNCTIONS[self.config.touch]
        resolution = self.config.resolution_m or layout.resolution_m
        self.spread_radius_m = SPREAD_RADIUS_RESOLUTIONS * resolution
        minimum = 0.0 if self.config.touch == 'normal' else -math.inf
        self.noise = NoiseModel(self.config.noise, minimum, math.inf)
        self._taxel_tree = cKDTree(layout.positions_in_body)
        self._grid = _CandidateGrid(layout.positions_in_body, self.spread_radius_m)
        # Where each padded candidate's components land in the flattened (N + 1, width)
        # output of one sample; the extra row collects the filler candidates.
        # With slip, the spread carries 4 more columns: normal force x velocity (3), normal force.
        self._spread_width = self.width + (4 if self.config.slip else 0)
        self._scatter = (self._grid.indices[:, None, :] * self._spread_width
                         + np.arange(self._spread_width)[None, :, None])
        self._bins = (len(layout) + 1) * self._spread_width
        # Pad membership of geom id g at entry g + 1; entry 0 (id -1) and the last
        # entry (every larger id, by clipping) are False.
        self._is_pad_geom = np.zeros(int(ids.max()) + 3, dtype=bool)
        self._is_pad_geom[ids + 1] = True
        self._values = np.zeros((len(layout), self._spread_width))
        self.slip: np.ndarray | None = np.zeros((len(layout), 3)) if self.config.slip else None
        self._capacity = 0
        self._grow(16)
        self.total_force_in_pad = np.zeros(3)
        self.contact_count = 0
        self.value_sum = np.zeros((0, self.width))
        self._group: _PadBlocks | None = None
        self.to_geom = self._geom_rotations(geom_quaternions)
        self.on_surface = self.config.contact_point == 'surface'

    def _geom_rotations(self, quaternions: Mapping[int, npt.ArrayLike] | None
                        ) -> np.ndarray | None:
        """Return (N, 3, 3) each taxel's geom rotation in the pad, or None (pad frame).

        None too when every geom is aligned with the pad body: the frames agree.
        """
        if self.config.force_frame == 'pad' or self.width == 1 or \
                self.config.touch == 'force_vector_global':
            return None
        ids = np.unique(self.layout.geom_ids)
        missing = [int(i) for i in ids if quaternions is None or int(i) not in quaternions]
        if missing:
            raise ConfigError(f'force_frame geom needs the orientation of geoms {missing} in '
                              'the pad body (geom_quaternions)')
        rotations = {int(i): quat_to_matrix(quaternions[int(i)]) for i in ids}
        if all(np.allclose(r, np.eye(3), atol=1e-12) for r in rotations.values()):
            return None
        return np.stack([rotations[int(i)] for i in self.layout.geom_ids])

    def in_force_frame(self, values: np.ndarray) -> np.ndarray:
        """Turn (..., N, 3) pad-frame values into each taxel's geom frame, in place.

        Nothing to do (``to_geom`` None) in the pad frame, or when the frames agree.
        """
        if self.to_geom is not None:
            # v_geom = R^T v_pad, R the geom's rotation in the pad (columns: geom axes)
            values[...] = np.einsum('nji,...nj->...ni', self.to_geom, values)
        return values

    @property
    def positions_in_pad(self) -> np.ndarray:
        """(N, 3) m, taxel positions in the pad body frame."""
        return self.layout.positions_in_body

    @property
    def normals_in_pad(self) -> np.ndarray:
        """(N, 3) outward unit normals of the taxels in the pad body frame."""
        return self.layout.normals_in_body

    def _on_pad(self, geom_ids: np.ndarray) -> np.ndarray:
        """Return (K,) True where a geom id is one of the pad's (-1 and unknown ids: False)."""
        return self._is_pad_geom.take(geom_ids + 1, mode='clip')

    def compute(self, contacts: Contacts,
                T_world_pad: tuple[npt.ArrayLike, npt.ArrayLike],
                velocity_in_world: npt.ArrayLike | None = None) -> np.ndarray:
        """Return the taxel values for ``contacts`` with the pad at ``T_world_pad``.

        Contacts between two geoms of the pad itself are ignored. A
        ``spread_linear`` contact with no taxel in range goes to its nearest
        taxel, so the values always add up to the pad's total force
        (docs/deviations.md).

        Args:
            contacts: every contact of the scene (others are filtered out).
            T_world_pad: pose of the pad body in the world: position (3,) m
                and unit quaternion (4,) (w, x, y, z), pad to world.
            velocity_in_world: (K,) x 3 m/s, for every contact the velocity of
                geom2's body relative to geom1's at the contact point; needed
                with ``config.slip`` on (sets ``slip``), else unused.

        Returns:
            (N, width) values per taxel, in the units and frame of the touch
            function (a new array).

        Raises:
            SimulationError: a touching contact's position or the pad pose is
                not finite (a diverged simulation).
            ConfigError: ``config.slip`` on without ``velocity_in_world``.
        """
        if self.slip is not None and velocity_in_world is None:
            raise ConfigError("a pad with slip on needs the contacts' relative velocities "
                              '(velocity_in_world)')
        position, quaternion = T_world_pad
        rotation = quat_to_matrix(quaternion)  # columns: pad axes in world
        on_geom1 = self._on_pad(contacts.geom1)
        on_geom2 = self._on_pad(contacts.geom2)
        touching = np.flatnonzero(on_geom1 ^ on_geom2)
        self.contact_count = int(touching.size)
        values = self._values
        values.fill(0.0)
        if touching.size == 0:
            self.total_force_in_pad = np.zeros(3)
            if self.slip is not None:
                self.slip = np.zeros_like(self.slip)
            return self.noise.apply(values[:, :self.width])
        # Contacts hold the force on geom2; the pad as geom1 feels the opposite.
        sign = np.where(on_geom2[touching], 1.0, -1.0)
        frame = contacts.frame_in_world[touching]
        force_in_contact = contacts.force_in_contact[touching]
        force_in_world = np.einsum('ki,kij->kj', force_in_contact, frame)
        force_in_world *= sign[:, None]
        force_in_pad = force_in_world @ rotation
        self.total_force_in_pad = force_in_pad.sum(axis=0)
        touch = self.config.touch
        if touch == 'normal':
            signal = force_in_contact[:, :1]
        elif touch == 'normal_force':
            signal = (sign * force_in_contact[:, 0])[:, None] * (frame[:, 0, :] @ rotation)
        elif touch == 'force_vector':
            signal = force_in_pad
        else:
            signal = force_in_world
        points = contacts.position_in_world[touching]
        if self.on_surface:
            points = points + on_surface_offset(frame[:, 0, :] * sign[:, None],
                                                contacts.distance_m[touching])
        points_in_pad = (points - np.asarray(position)) @ rotation
        if not np.isfinite(points_in_pad).all():
            raise SimulationError('contact positions or the pad pose are not finite')
        if self.slip is not None:
            signal = np.hstack((signal, self._slip_signal(
                np.asarray(velocity_in_world)[touching], -sign, frame[:, 0, :],
                force_in_contact[:, 0], rotation)))
        if self.config.response == 'spread_linear':
            self._spread_padded(points_in_pad, signal, values)
        else:
            self._nearest(points_in_pad, signal, values[None], None)
        if self.slip is not None:
            self.slip = np.zeros((len(self.layout), 3))
            _slip(values[:, self.width:], slice(None), self.slip)
        return self.noise.apply(self.in_force_frame(values[:, :self.width]))

    @staticmethod
    def _slip_signal(velocity_21: np.ndarray, sign: np.ndarray, normal: np.ndarray,
                     normal_force: np.ndarray, rotation: np.ndarray) -> np.ndarray:
        """Return (K, 4): normal force x tangential velocity in the pad (3), normal force.

        ``velocity_21`` is geom2's velocity relative to geom1's; ``sign`` +1
        where the pad is geom1 (the other surface is geom2), -1 otherwise.
        """
        velocity = velocity_21 * sign[:, None]
        velocity -= np.einsum('ki,ki->k', velocity, normal)[:, None] * normal
        out = np.empty((sign.size, 4))
        np.multiply(velocity @ rotation, normal_force[:, None], out=out[:, :3])
        out[:, 3] = normal_force
        return out

    def compute_block(
        self,
        sample: npt.ArrayLike,
        position_in_world: npt.ArrayLike,
        frame_in_world: npt.ArrayLike,
        force_in_contact: npt.ArrayLike,
        position_pad_in_world: npt.ArrayLike,
        quaternion_pad_in_world: npt.ArrayLike,
        distance_m: npt.ArrayLike | None = None,
        velocity_in_contact: npt.ArrayLike | None = None,
    ) -> np.ndarray:
        """Return the taxel values of S samples at once: S calls of ``compute`` in one.

        Every contact given touches the pad and is seen from it: its frame's
        normal points from the pad to the other body and ``force_in_contact``
        is the force the pad exerts on that body (a MuJoCo contact sensor on
        the pad body reports contacts so). The same contact seen by
        ``compute`` with the pad as geom2 has the frame's first two rows and
        the third force component negated, which gives the same values.
        ``PadGroup.compute_block`` does the same for several pads in one call.

        Args:
            sample: (K,) which sample (0..S-1) each contact belongs to.
            position_in_world: (K, 3) contact points, m.
            frame_in_world: (K, 3, 3) contact frames (normal, tangent1, tangent2).
            force_in_contact: (K, 3) N, in the contact frame.
            position_pad_in_world: (S, 3) pad position at each sample, m.
            quaternion_pad_in_world: (S, 4) pad orientation (w, x, y, z).
            distance_m: (K,) signed distance between the surfaces, m (negative:
                penetrating); needed by ``contact_point`` surface.
            velocity_in_contact: (K, 3) m/s, the other body's velocity relative
                to the pad at the contact point, in the contact frame (a MuJoCo
                contact sensor's ``linvel``); needed with ``slip`` on.

        Returns:
            (S, N, width) values per sample and taxel, noise applied in sample
            order; ``total_force_in_pad`` becomes (S, 3), ``value_sum`` (S,
            width) the sum of each sample's values over the taxels,
            ``contact_count`` the contacts of the block, and ``slip`` (S, N, 3)
            with ``slip`` on. With ``spread_linear`` the values and the slip are
            views of the group's buffers, which its next block overwrites (copy
            what is kept): a new array per block would cost a pass over every
            taxel of every sample.

        Raises:
            SimulationError: a contact position or a pad pose is not finite.
        """
        if self._group is None:
            self._group = _PadBlocks((self,))
        index = np.asarray(sample, dtype=np.int64).reshape(-1)
        return self._group.compute_block(
            (index.size,), index, position_in_world, frame_in_world, force_in_contact,
            np.asarray(position_pad_in_world, dtype=float).reshape(1, -1, 3),
            np.asarray(quaternion_pad_in_world, dtype=float).reshape(1, -1, 4), distance_m,
            velocity_in_contact)[0]

    def _grow(self, count: int) -> None:
        """Make the per-contact buffers hold at least ``count`` contacts (doubling)."""
        if count <= self._capacity:
            return
        self._capacity = max(count, 2 * self._capacity)
        width = self._grid.width
        self._distance = np.empty((self._capacity, 1, width))
        self._contribution = np.empty((self._capacity, self._spread_width, width))
        # Row k is (-2 q_k, 1): times a candidate's (x, y, z, |t|^2) column.
        self._coefficients = np.ones((self._capacity, 1, 4))

    def _candidate_distances(self, points_in_pad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return each contact's grid row (K,) and distances to its candidates (K, M), m."""
        count = points_in_pad.shape[0]
        self._grow(count)
        rows, offset = self._grid.lookup(points_in_pad)
        coefficients = self._coefficients[:count]
        np.multiply(offset, -2.0, out=coefficients[:, 0, :3])
        # |t - q|^2 = |t|^2 - 2 q.t + |q|^2, with t and q relative to the cell centre.
        np.matmul(coefficients, self._grid.geometry[rows], out=self._distance[:count])
        distance = self._distance[:count, 0, :]
        distance += np.einsum('ij,ij->i', offset, offset)[:, None]
        np.maximum(distance, 0.0, out=distance)
        np.sqrt(distance, out=distance)
        return rows, distance

    def _spread_padded(self, points_in_pad: np.ndarray, signal: np.ndarray,
                       values: np.ndarray) -> None:
        """Set one sample's values (N, width) from the padded candidate table."""
        rows, weight = self._candidate_distances(points_in_pad)
        weight *= -1.0 / self.spread_radius_m
        weight += 1.0
        np.maximum(weight, 0.0, out=weight)
        total = weight.sum(axis=1)
        alone = total <= 0.0
        any_alone = alone.any()
        if any_alone:
            total[alone] = 1.0
        contribution = self._contribution[:rows.size]
        # (K, width, M): candidates innermost, so the products run over contiguous memory.
        np.multiply(weight[:, None, :], (signal / total[:, None])[:, :, None], out=contribution)
        accumulated = np.bincount(self._scatter[rows].reshape(-1), contribution.reshape(-1),
                                  minlength=self._bins)
        values[...] = accumulated.reshape(-1, self._spread_width)[:-1]
        if any_alone:
            # No taxel in range: fall back to the nearest one, so no force is lost.
            _, nearest = self._taxel_tree.query(points_in_pad[alone])
            np.add.at(values, nearest, signal[alone])

    def _nearest(self, points_in_pad: np.ndarray, signal: np.ndarray,
                 values: np.ndarray, sample: np.ndarray | None) -> None:
        """Set values: each contact's signal on its nearest taxel."""
        rows, distance = self._candidate_distances(points_in_pad)
        contacts = np.arange(rows.size)
        best = np.argmin(distance, axis=1)
        nearest = self._grid.indices[rows, best]
        # Candidates hold every taxel within the radius; beyond it, ask the tree.
        far = distance[contacts, best] > self.spread_radius_m
        if far.any():
            nearest[far] = self._taxel_tree.query(points_in_pad[far])[1]
        if sample is not None:
            nearest = nearest + sample * len(self.layout)
        width = signal.shape[1]
        slots = (nearest[:, None] * width + np.arange(width)).reshape(-1)
        values.reshape(-1)[...] = np.bincount(slots, signal.reshape(-1), minlength=values.size)
