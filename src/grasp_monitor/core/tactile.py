"""Tactile arrays: contact forces distributed over a pad's taxels (mimoTouch).

For every contact touching one of the pad's geoms, the force *on the pad* is
taken from the contact (flipped when the pad geom is the contact's geom1,
because ``Contacts.force_in_contact`` is the force on geom2), expressed by
the touch function and spread over the taxels by the response function.

Touch functions (values per taxel):
    ``normal``: the normal force magnitude, N (1 value, >= 0).
    ``normal_force``: the normal force as a vector in the pad body frame, N (3).
    ``force_vector``: the full force in the pad body frame, N (3).
    ``force_vector_global``: the full force in the world frame, N (3).

Response functions:
    ``nearest``: everything to the taxel nearest the contact point.
    ``spread_linear``: to every taxel closer than 2 x resolution, weight
    falling linearly to zero at that distance, normalised so each contact's
    total equals its force. mimoTouch drops a contact with no taxel in that
    range (its force is lost); here it falls back to ``nearest`` so the
    pad's total is always conserved.

Distances are straight lines in the pad frame. ``compute`` has no Python
loop per contact or per taxel. A grid of cells (side: half the spread
radius), built once, lists per cell every taxel within the radius of any
point of the cell; a contact's candidates are those of its cell, so
``compute`` works on the contacts' candidates only, exact and far fewer
than (contacts x taxels). A k-d tree answers the rare contact with no taxel
in range (the fallback above). ``compute_block`` does the same for the
contacts of many samples at once (a block of physics steps), each sample
with its own pad pose and its own rows of the output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import math
from typing import Any, Iterable, Mapping

from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.noise import NOISE_PARAMETERS, NoiseConfig, NoiseModel
from grasp_monitor.core.plugins import ParameterSpec, register_plugin
from grasp_monitor.core.sensor_layout import LAYOUT_MODES, pad_layout, PadLayout
from grasp_monitor.core.values import Contacts, GeomShape
import numpy as np
import numpy.typing as npt
from scipy.sparse import csc_array
from scipy.spatial import cKDTree

#: Touch functions and the number of values each gives per taxel.
TOUCH_FUNCTIONS = {'normal': 1, 'normal_force': 3, 'force_vector': 3, 'force_vector_global': 3}
#: Response functions.
RESPONSE_FUNCTIONS = ('nearest', 'spread_linear')
#: ``spread_linear`` reaches this many resolutions from the contact.
SPREAD_RADIUS_RESOLUTIONS = 2.0


@dataclass(frozen=True)
class TactileConfig:
    """How a pad turns contacts into taxel values.

    Attributes:
        touch: one of ``TOUCH_FUNCTIONS``.
        response: one of ``RESPONSE_FUNCTIONS``.
        resolution_m: taxel spacing that sets the spread radius
            (2 x resolution), m; None takes the layout's.
        noise: noise added to every value, clamped to the touch function's
            range ([0, inf) for ``normal``, unbounded otherwise).
    """

    touch: str = 'force_vector'
    response: str = 'spread_linear'
    resolution_m: float | None = None
    noise: NoiseConfig = field(default_factory=NoiseConfig)

    def __post_init__(self) -> None:
        if self.touch not in TOUCH_FUNCTIONS:
            raise ConfigError(
                f'touch function {self.touch!r} is not one of {", ".join(TOUCH_FUNCTIONS)}')
        if self.response not in RESPONSE_FUNCTIONS:
            raise ConfigError(f'response function {self.response!r} is not one of '
                              f'{", ".join(RESPONSE_FUNCTIONS)}')
        if self.resolution_m is not None and not (
                math.isfinite(self.resolution_m) and self.resolution_m > 0):
            raise ConfigError(
                f"resolution_m must be a finite number > 0 (or None for the layout's), "
                f'got {self.resolution_m}')
        if not isinstance(self.noise, NoiseConfig):
            raise ConfigError(f'noise must be a NoiseConfig, got {type(self.noise).__name__}')


class TactilePad:
    """One pad's taxels and the force distribution onto them.

    Args:
        layout: taxel positions and normals in the pad body frame.
        geom_ids: simulator ids of the pad's geoms whose contacts count
            (default: the geoms the layout covers).
        config: touch and response functions, resolution, noise.

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

    Raises:
        ConfigError: bad names, resolution or geom ids.
    """

    def __init__(self, layout: PadLayout, geom_ids: Iterable[int] | None = None,
                 config: TactileConfig | None = None) -> None:
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
        self._scatter = (self._grid.indices[:, None, :] * self.width
                         + np.arange(self.width)[None, :, None])
        self._bins = (len(layout) + 1) * self.width
        # Pad membership of geom id g at entry g + 1; entry 0 (id -1) and the last
        # entry (every larger id, by clipping) are False.
        self._is_pad_geom = np.zeros(int(ids.max()) + 3, dtype=bool)
        self._is_pad_geom[ids + 1] = True
        self._values = np.zeros((len(layout), self.width))
        self._capacity = 0
        self._grow(16)
        self.total_force_in_pad = np.zeros(3)
        self.contact_count = 0
        self.value_sum = np.zeros((0, self.width))
        self._group: PadGroup | None = None

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
                T_world_pad: tuple[npt.ArrayLike, npt.ArrayLike]) -> np.ndarray:
        """Return the taxel values for ``contacts`` with the pad at ``T_world_pad``.

        Contacts between two geoms of the pad itself are ignored. Unlike
        mimoTouch, which drops a ``spread_linear`` contact with no taxel in
        range (losing its force), such a contact goes to its nearest taxel,
        so the values always add up to the pad's total force.

        Args:
            contacts: every contact of the scene (others are filtered out).
            T_world_pad: pose of the pad body in the world: position (3,) m
                and unit quaternion (4,) (w, x, y, z), pad to world.

        Returns:
            (N, width) values per taxel, in the units and frame of the touch
            function (a new array).

        Raises:
            SimulationError: a touching contact's position or the pad pose is
                not finite (a diverged simulation).
        """
        position, quaternion = T_world_pad
        rotation = _rotation_matrix(quaternion)  # columns: pad axes in world
        on_geom1 = self._on_pad(contacts.geom1)
        on_geom2 = self._on_pad(contacts.geom2)
        touching = np.flatnonzero(on_geom1 ^ on_geom2)
        self.contact_count = int(touching.size)
        values = self._values
        values.fill(0.0)
        if touching.size == 0:
            self.total_force_in_pad = np.zeros(3)
            return self.noise.apply(values)
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
        points_in_pad = (contacts.position_in_world[touching] - np.asarray(position)) @ rotation
        if not np.isfinite(points_in_pad).all():
            raise SimulationError('contact positions or the pad pose are not finite')
        if self.config.response == 'spread_linear':
            self._spread_padded(points_in_pad, signal, values)
        else:
            self._nearest(points_in_pad, signal, values[None], None)
        return self.noise.apply(values)

    def compute_block(
        self,
        sample: npt.ArrayLike,
        position_in_world: npt.ArrayLike,
        frame_in_world: npt.ArrayLike,
        force_in_contact: npt.ArrayLike,
        position_pad_in_world: npt.ArrayLike,
        quaternion_pad_in_world: npt.ArrayLike,
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

        Returns:
            (S, N, width) values per sample and taxel, noise applied in sample
            order (a new array); ``total_force_in_pad`` becomes (S, 3),
            ``value_sum`` (S, width) the sum of each sample's values over the
            taxels, and ``contact_count`` the contacts of the block.

        Raises:
            SimulationError: a contact position or a pad pose is not finite.
        """
        if self._group is None:
            self._group = PadGroup((self,))
        index = np.asarray(sample, dtype=np.int64).reshape(-1)
        return self._group.compute_block(
            (index.size,), index, position_in_world, frame_in_world, force_in_contact,
            np.asarray(position_pad_in_world, dtype=float).reshape(1, -1, 3),
            np.asarray(quaternion_pad_in_world, dtype=float).reshape(1, -1, 4))[0]

    def _grow(self, count: int) -> None:
        """Make the per-contact buffers hold at least ``count`` contacts (doubling)."""
        if count <= self._capacity:
            return
        self._capacity = max(count, 2 * self._capacity)
        width = self._grid.width
        self._distance = np.empty((self._capacity, 1, width))
        self._contribution = np.empty((self._capacity, self.width, width))
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
        values[...] = accumulated.reshape(-1, self.width)[:-1]
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
        slots = (nearest[:, None] * self.width + np.arange(self.width)).reshape(-1)
        values.reshape(-1)[...] = np.bincount(slots, signal.reshape(-1), minlength=values.size)


class PadGroup:
    """Pads whose block values come from one call: the pads of one simulator.

    ``TactilePad.compute_block`` costs some 40 numpy calls whatever the size
    of the block, besides its work per contact and per candidate taxel; a
    group pays them once for all its pads. Pads that share their touch and
    response functions share every step: the rotations, one candidate table
    (the pads' tables end to end, for ``spread_linear``) and one sparse
    product into one output, whose rows are each pad's (S, N, width) values
    in turn. A group of pads that differ computes them pad by pad. Either
    way each pad's values equal its own ``compute_block``'s to rounding.

    Args:
        pads: the pads, in the order of the block inputs.

    Attributes:
        pads: the pads.

    Raises:
        ConfigError: no pads, or one that is not a ``TactilePad``.
    """

    def __init__(self, pads: Iterable[TactilePad]) -> None:
        self.pads = tuple(pads)
        if not self.pads or not all(isinstance(pad, TactilePad) for pad in self.pads):
            raise ConfigError('a pad group needs one or more TactilePad')
        self._shared = len({(pad.config.touch, pad.config.response) for pad in self.pads}) == 1
        self._taxels = np.array([len(pad.layout) for pad in self.pads], dtype=np.int64)
        self._tables: _SpreadTables | None = None
        self._counting = np.arange(0)  # 0, 1, 2, ...: kept, not rebuilt every block
        if self._shared and self.pads[0].config.response == 'spread_linear':
            self._tables = _SpreadTables([pad._grid for pad in self.pads])

    def compute_block(
        self,
        counts: npt.ArrayLike,
        sample: npt.ArrayLike,
        position_in_world: npt.ArrayLike,
        frame_in_world: npt.ArrayLike,
        force_in_contact: npt.ArrayLike,
        position_pads_in_world: npt.ArrayLike,
        quaternion_pads_in_world: npt.ArrayLike,
    ) -> tuple[np.ndarray, ...]:
        """Return every pad's values of S samples: ``TactilePad.compute_block`` of each pad.

        The contacts of all pads come pad after pad: the first ``counts[0]``
        touch pad 0, the next ``counts[1]`` pad 1, and so on; each is seen
        from its pad, as ``TactilePad.compute_block`` describes.

        Args:
            counts: (P,) contacts of each pad.
            sample: (K,) which sample (0..S-1) each contact belongs to.
            position_in_world: (K, 3) contact points, m.
            frame_in_world: (K, 3, 3) contact frames (normal, tangent1, tangent2).
            force_in_contact: (K, 3) N, in the contact frame.
            position_pads_in_world: (P, S, 3) each pad's position at each sample, m.
            quaternion_pads_in_world: (P, S, 4) each pad's orientation (w, x, y, z).

        Returns:
            Per pad, its (S, N, width) values, as ``TactilePad.compute_block``
            returns them and with the same attributes set on the pad.

        Raises:
            ConfigError: ``counts`` does not have one count >= 0 per pad adding up to K.
            SimulationError: a contact position or a pad pose is not finite.
        """
        pads = self.pads
        number = np.asarray(counts, dtype=np.int64).reshape(-1)
        index = np.asarray(sample, dtype=np.int64).reshape(-1)
        listed = number.tolist()  # a few Python ints check faster than numpy calls
        if len(listed) != len(pads) or min(listed) < 0 or sum(listed) != index.size:
            raise ConfigError(f'counts must be {len(pads)} contact counts >= 0 adding up to '
                              f'the {index.size} contacts, got {number.tolist()}')
        position = np.asarray(position_in_world, dtype=float).reshape(-1, 3)
        frame = np.asarray(frame_in_world, dtype=float).reshape(-1, 3, 3)
        force_in_contact = np.asarray(force_in_contact, dtype=float).reshape(-1, 3)
        pad_position = np.asarray(position_pads_in_world, dtype=float).reshape(len(pads), -1, 3)
        samples = pad_position.shape[1]
        quaternion = np.asarray(quaternion_pads_in_world, dtype=float).reshape(
            len(pads), samples, 4)
        ends = np.cumsum(number)
        firsts = ends - number
        if not self._shared:
            return tuple(pad.compute_block(
                index[a:b], position[a:b], frame[a:b], force_in_contact[a:b], pad_position[p],
                quaternion[p]) for p, (pad, a, b) in enumerate(zip(pads, firsts, ends)))
        width = pads[0].width
        poses = len(pads) * samples
        heights = samples * self._taxels
        first_rows = np.cumsum(heights) - heights
        total_force = np.zeros((poses, 3))
        signal_sum = total_force if width == 3 else np.zeros((poses, width))
        if index.size == 0:
            values = np.zeros((int(heights.sum()), width))
        else:
            # Sample s of pad p has pose p S + s.
            pose = np.repeat(np.arange(0, poses, samples), number)
            pose += index
            # Vectors as (3, K) rows, matrices as (3, 3, K): products of long rows cost
            # far less than contractions of (K, 3, 3) stacks on their short axes.
            rotation = np.take(_rotation_rows(quaternion.reshape(poses, 4)), pose,
                               axis=1).reshape(3, 3, -1)
            frame_rows = frame.transpose(1, 2, 0)
            force_rows = force_in_contact.T
            # The force on the pad is the opposite of the force it exerts.
            force_in_world = _combine(force_rows, frame_rows)
            np.negative(force_in_world, out=force_in_world)
            force_in_pad = _combine(force_in_world, rotation)  # R^T f = sum_j f_j R[j, :]
            total_force = _sum_by_sample(pose, force_in_pad, poses)
            touch = pads[0].config.touch
            if touch == 'normal':
                signal = force_rows[:1]
            elif touch == 'normal_force':
                signal = _combine(frame_rows[0], rotation)
                signal *= -force_rows[0]
            elif touch == 'force_vector':
                signal = force_in_pad
            else:
                signal = force_in_world
            signal_sum = total_force if signal is force_in_pad else \
                _sum_by_sample(pose, signal, poses)
            offset = position.T - np.take(pad_position.reshape(poses, 3).T, pose, axis=1)
            points_in_pad = _combine(offset, rotation).T
            if not np.isfinite(points_in_pad).all():
                raise SimulationError('contact positions or the pad pose are not finite')
            signal = signal.T
            # Each sample of each pad has its own N rows of the output.
            base = np.repeat(first_rows, number)
            base += index * np.repeat(self._taxels, number)
            if self._tables is not None:
                values = self._spread(points_in_pad, signal, base, number, firsts,
                                      int(heights.sum()))
            else:
                values = np.zeros((int(heights.sum()), width))
                for pad, a, b, row, height in zip(pads, firsts, ends, first_rows, heights):
                    pad._nearest(points_in_pad[a:b], signal[a:b],
                                 values[row:row + height].reshape(samples, -1, width), index[a:b])
        results = []
        for p, pad in enumerate(pads):
            pad_values = values[first_rows[p]:first_rows[p] + heights[p]].reshape(
                samples, -1, width)
            pad.contact_count = int(number[p])
            pad.total_force_in_pad = total_force[p * samples:(p + 1) * samples]
            if pad.noise.is_identity:
                # Both responses conserve each contact's signal: no pass over every taxel.
                pad.value_sum = signal_sum[p * samples:(p + 1) * samples]
            else:
                pad.noise.apply(pad_values, out=pad_values)
                pad.value_sum = pad_values.sum(axis=1)
            results.append(pad_values)
        return tuple(results)

    def _spread(self, points_in_pad: np.ndarray, signal: np.ndarray, base: np.ndarray,
                number: np.ndarray, firsts: np.ndarray, height: int) -> np.ndarray:
        """Return (height, width): each contact's signal shared by the taxels in range, linearly.

        One sample (``compute``, a node's tick) takes the padded candidate
        table (``_spread_padded``): few numpy calls for its few contacts. A
        block takes each contact's candidates unpadded: a cell lists 17
        taxels on average but up to 48 where faces meet, and with thousands of
        contacts the work per candidate outweighs the calls. Both give the
        same values to rounding.

        Args:
            points_in_pad: (K, 3) contact points in their pad's frame, m.
            signal: (K, width) what each contact spreads.
            base: (K,) the output row of taxel 0 of each contact's pad and sample.
            number: (P,) contacts of each pad, given pad after pad.
            firsts: (P,) the first contact of each pad.
            height: rows of the output.
        """
        tables = self._tables
        assert tables is not None
        rows = np.empty(points_in_pad.shape[0], dtype=np.int64)
        # Offsets from the cell centres, in spread radii (the unit of the tables).
        offset = np.empty_like(points_in_pad)
        for p, pad in enumerate(self.pads):
            if number[p]:
                part = slice(firsts[p], firsts[p] + number[p])
                local, offset_m = pad._grid.lookup(points_in_pad[part])
                np.add(local, tables.row_base[p], out=rows[part])
                np.multiply(offset_m, 1.0 / pad.spread_radius_m, out=offset[part])
        starts = tables.starts[rows]
        candidates = tables.starts[rows + 1] - starts
        bounds = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(candidates, out=bounds[1:])
        terms = int(bounds[-1])
        # Contact k's candidates are entries starts[k]:starts[k] + candidates[k] of the table.
        entry = np.repeat(starts - bounds[:-1], candidates)
        if self._counting.size < terms:
            self._counting = np.arange(2 * terms)
        entry += self._counting[:terms]
        # |t - q|^2 = (x, y, z, |t|^2, 1) . (-2 q, 1, |q|^2), t and q from the cell centre.
        coefficients = np.empty((5, rows.size))
        np.multiply(offset.T, -2.0, out=coefficients[:3])
        coefficients[3] = 1.0
        np.einsum('ik,ik->k', offset.T, offset.T, out=coefficients[4])
        # One zero after the weights, so each contact's sum below ends in range.
        weights = np.empty(terms + 1)
        weights[terms] = 0.0
        weight = weights[:terms]
        np.einsum('at,at->t', np.take(tables.geometry, entry, axis=1),
                  np.repeat(coefficients, candidates, axis=1), out=weight)
        # 1 - distance / radius, at least 0.
        np.maximum(weight, 0.0, out=weight)
        np.sqrt(weight, out=weight)
        np.subtract(1.0, weight, out=weight)
        np.maximum(weight, 0.0, out=weight)
        total = np.add.reduceat(weights, bounds[:-1])
        total[candidates == 0] = 0.0
        alone = total <= 0.0
        any_alone = alone.any()
        if any_alone:
            total[alone] = 1.0
        index_type = np.int32 if max(height, terms) < 2 ** 31 else np.int64
        row = np.take(tables.taxel, entry).astype(index_type, copy=False)
        row += np.repeat(base.astype(index_type), candidates)
        values = _scatter_add(row, bounds.astype(index_type), weight, signal / total[:, None],
                              height)
        if any_alone:
            # No taxel in range: fall back to the nearest one, so no force is lost.
            for p, pad in enumerate(self.pads):
                part = slice(firsts[p], firsts[p] + number[p])
                lost = np.flatnonzero(alone[part]) + firsts[p]
                if lost.size:
                    _, nearest = pad._taxel_tree.query(points_in_pad[lost])
                    np.add.at(values, base[lost] + nearest, signal[lost])
        return values


class _SpreadTables:
    """The unpadded candidate tables of several pads' grids, end to end.

    Row ``row_base[p] + r`` is row r of pad p's grid; its candidates are
    entries ``starts[row]:starts[row + 1]`` of ``taxel`` (taxel of its pad)
    and of the rows of ``geometry`` (as ``_CandidateGrid.candidate_geometry``).
    With several pads, each grid's own tables become views of these, so the
    memory is not doubled.
    """

    def __init__(self, grids: list['_CandidateGrid']) -> None:
        used = [grid.starts.size - 1 for grid in grids]  # listed rows and the empty one
        entries = np.array([grid.taxel.size for grid in grids])
        self.row_base = np.cumsum(used) - used
        first_entry = np.cumsum(entries) - entries
        self.starts = np.concatenate(
            [grid.starts[:-1] + first for grid, first in zip(grids, first_entry)]
            + [[entries.sum()]])
        if len(grids) == 1:
            self.taxel, self.geometry = grids[0].taxel, grids[0].candidate_geometry
            return
        self.taxel = np.concatenate([grid.taxel for grid in grids])
        self.geometry = np.concatenate([grid.candidate_geometry for grid in grids], axis=1)
        for grid, first, count in zip(grids, first_entry, entries):
            grid.taxel = self.taxel[first:first + count]
            grid.candidate_geometry = self.geometry[:, first:first + count]


class _CandidateGrid:
    """Taxels that may lie within ``radius_m`` of a point, looked up by grid cell.

    Cells are cubes of side radius / 2 (coarser for a large body at a fine
    resolution). A cell lists every taxel within the radius of the cell's box
    (so every taxel within the radius of any point in the cell), in taxel
    order, padded with the filler index N. With each candidate the table
    keeps its position relative to the cell centre and its squared norm, so
    a point's squared distances to all its candidates are one small matrix
    product, accurate because both sides are near the cell centre.
    """

    #: Cells per radius along each axis (finer cells: fewer candidates per cell).
    CELLS_PER_RADIUS = 2
    #: A large body at a fine resolution gets coarser cells beyond this many.
    MAX_CELLS = 1 << 21
    #: Squared distance (m^2) standing for a filler candidate: 1 km away.
    FILLER_SQUARED_M2 = 1e6

    def __init__(self, positions: np.ndarray, radius_m: float) -> None:
        count = positions.shape[0]
        self.low = positions.min(axis=0) - radius_m
        extent = positions.max(axis=0) + radius_m - self.low
        cell = radius_m / self.CELLS_PER_RADIUS
        while np.prod(np.floor(extent / cell) + 1) > self.MAX_CELLS:
            cell *= 2.0
        self.cell_m = cell
        self.shape = (np.floor(extent / cell) + 1).astype(np.int64)
        # A taxel within the radius of a point is at most `reach` cells away from it.
        reach = int(math.ceil(radius_m / cell))
        steps = np.arange(-reach, reach + 1)
        offsets = np.stack(np.meshgrid(steps, steps, steps, indexing='ij'), -1).reshape(-1, 3)
        own = np.floor((positions - self.low) / cell).astype(np.int64)
        cells = (own[:, None, :] + offsets[None]).reshape(-1, 3)
        taxels = np.repeat(np.arange(count), offsets.shape[0])
        valid = np.all((cells >= 0) & (cells < self.shape), axis=1)
        cells, taxels = cells[valid], taxels[valid]
        box_low = self.low + cells * cell
        gap = np.maximum(0.0, np.maximum(box_low - positions[taxels],
                                         positions[taxels] - (box_low + cell)))
        keep = np.einsum('ij,ij->i', gap, gap) <= radius_m ** 2
        cells, taxels = cells[keep], taxels[keep]
        flat = np.ravel_multi_index(tuple(cells.T), tuple(self.shape))
        order = np.lexsort((taxels, flat))
        flat, taxels, cells = flat[order], taxels[order], cells[order]
        used, first, counts = np.unique(flat, return_index=True, return_counts=True)
        self.width = int(counts.max())
        row = np.repeat(np.arange(used.size), counts)
        slot = np.arange(flat.size) - np.repeat(first, counts)
        self.indices = np.full((used.size + 1, self.width), count, dtype=np.int64)
        self.indices[row, slot] = taxels
        # Per candidate: x, y, z relative to the cell centre, then the squared norm.
        relative = positions[taxels] - (self.low + (cells + 0.5) * cell)
        self.geometry = np.zeros((used.size + 1, 4, self.width))
        self.geometry[:, 3, :] = self.FILLER_SQUARED_M2
        self.geometry[row, :3, slot] = relative
        self.geometry[row, 3, slot] = np.einsum('ij,ij->i', relative, relative)
        # The same candidates unpadded: row r's are entries starts[r]:starts[r + 1] of
        # taxel and of the (x, y, z, |t|^2, 1) rows of candidate_geometry. The extra row
        # (points outside every listed cell) has none.
        self.starts = np.append(first, [flat.size, flat.size])
        self.taxel = taxels.astype(np.int32 if count < 2 ** 31 else np.int64)
        # Component-major (5, entries): x, y, z, |t|^2, 1, lengths in radii (distances in
        # radii give the spread's weights at once); gathering 1-D rows is far cheaper
        # than 2-D rows.
        scaled = relative / radius_m
        self.candidate_geometry = np.ascontiguousarray(np.concatenate(
            [scaled, np.einsum('ij,ij->i', scaled, scaled)[:, None],
             np.ones((relative.shape[0], 1))], axis=1).T)
        self.row_of_cell = np.full(int(np.prod(self.shape)), used.size, dtype=np.int64)
        self.row_of_cell[used] = np.arange(used.size)
        self._last_cell = (self.shape - 1).astype(float)
        # Flat cell index = cell . strides, exact in float64 below 2**53 cells.
        self._strides = np.array([self.shape[1] * self.shape[2], self.shape[2], 1], float)

    def lookup(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return each point's table row (K,) and its offset from that cell's centre (K, 3) m.

        A point outside the grid takes the nearest border cell: the grid
        reaches one radius beyond every taxel, so all its candidates are out
        of range and the true offset keeps their distances right.
        """
        scaled = (points - self.low) * (1.0 / self.cell_m)
        cell = np.floor(scaled)
        # Two ufuncs: np.clip's Python wrapper costs more than both for a few points.
        np.maximum(cell, 0.0, out=cell)
        np.minimum(cell, self._last_cell, out=cell)
        offset = scaled - cell
        offset -= 0.5
        offset *= self.cell_m
        flat = (cell @ self._strides).astype(np.int64)
        return self.row_of_cell[flat], offset


#: Scatter-adds of at least this many terms go through a sparse product (fixed cost, then
#: cheap per term); fewer through ``np.bincount`` (cheap to start, dearer per term).
SPARSE_SCATTER_TERMS = 4096


def _scatter_add(row: np.ndarray, bounds: np.ndarray, weight: np.ndarray,
                 signal: np.ndarray, height: int) -> np.ndarray:
    """Return (height, width): ``out[row[t]] += weight[t] * signal[k]`` for contact k's terms.

    Args:
        row: (T,) output row of each term (int32 or int64, as ``bounds``).
        bounds: (K + 1,) contact k owns terms bounds[k]:bounds[k + 1].
        weight: (T,) weights.
        signal: (K, width) each contact's signal.
        height: rows of the output.
    """
    width = signal.shape[1]
    if weight.size * width < SPARSE_SCATTER_TERMS:
        scatter = row.astype(np.int64)[:, None] * width + np.arange(width)
        terms = weight[:, None] * np.repeat(signal, np.diff(bounds), axis=0)
        return np.bincount(scatter.reshape(-1), terms.reshape(-1),
                           minlength=height * width).reshape(height, width)
    # Column k of the (height, K) matrix holds contact k's weights at its rows.
    matrix = csc_array((weight, row, bounds), shape=(height, signal.shape[0]), copy=False)
    return matrix @ signal


def _sum_by_sample(sample: np.ndarray, rows: np.ndarray, samples: int) -> np.ndarray:
    """Return (S, C) the sums over each sample of the (C, K) ``rows`` (one bincount)."""
    width = rows.shape[0]
    bins = sample + np.arange(0, width * samples, samples)[:, None]
    return np.ascontiguousarray(np.bincount(
        bins.reshape(-1), rows.reshape(-1), minlength=samples * width).reshape(width, -1).T)


def _combine(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Return (3, K) ``sum_i weights[i] * rows[i]`` of (3, K) weights and (3, 3, K) rows."""
    out = rows[0] * weights[0]
    out += rows[1] * weights[1]
    out += rows[2] * weights[2]
    return out


def _quaternion_to_matrix() -> np.ndarray:
    """Return M (16, 9): the rotation matrix of a unit quaternion is I + (q_a q_b) @ M.

    Rows: the products q_a q_b (flat a * 4 + b, components w, x, y, z); columns:
    the matrix entries, row-major; e.g. R00 = 1 - 2 (yy + zz).
    """
    table = np.zeros((16, 9))
    for entry, terms in enumerate((
            ((2, 2, -2), (3, 3, -2)), ((1, 2, 2), (0, 3, -2)), ((1, 3, 2), (0, 2, 2)),
            ((1, 2, 2), (0, 3, 2)), ((1, 1, -2), (3, 3, -2)), ((2, 3, 2), (0, 1, -2)),
            ((1, 3, 2), (0, 2, -2)), ((2, 3, 2), (0, 1, 2)), ((1, 1, -2), (2, 2, -2)))):
        for a, b, factor in terms:
            table[a * 4 + b, entry] = factor
    return table


_QUATERNION_TO_MATRIX = _quaternion_to_matrix()


def _rotation_rows(quaternion: np.ndarray) -> np.ndarray:
    """Return (9, S) the entries of the rotation matrices of (S, 4) unit quaternions, row-major."""
    components = quaternion.T
    products = (components[:, None] * components[None]).reshape(16, -1)
    entries = _QUATERNION_TO_MATRIX.T @ products
    entries[::4] += 1.0
    return entries


def _rotation_matrix(quaternion: npt.ArrayLike) -> np.ndarray:
    """Return the rotation matrix (3, 3) of one unit quaternion (w, x, y, z)."""
    # Scalar arithmetic: far cheaper than the batched helper for a single pose.
    w, x, y, z = (float(v) for v in np.asarray(quaternion, dtype=float).reshape(4))
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


#: Parameters of the ``tactile_array`` sensor plugin.
TACTILE_PARAMETERS = (
    ParameterSpec('resolution_m', float, 0.005, (1e-4, 1.0),
                  'Taxel spacing, m; spread_linear reaches twice this.'),
    ParameterSpec('layout', str, 'primitives', LAYOUT_MODES,
                  'Taxels from analytic primitives, or from merged trimesh meshes '
                  'with hidden taxels removed.'),
    ParameterSpec('touch', str, 'force_vector', tuple(TOUCH_FUNCTIONS),
                  'What each taxel reports (see grasp_monitor.core.tactile).'),
    ParameterSpec('response', str, 'spread_linear', RESPONSE_FUNCTIONS,
                  'How a contact force is shared among taxels.'),
) + NOISE_PARAMETERS


@register_plugin('sensor', 'tactile_array', TACTILE_PARAMETERS,
                 "Taxels over a pad body's collision geoms, fed by simulator contacts "
                 '(context: shapes=GeomShape tuple of the pad body, optional meshes=).')
def make_tactile_array(parameters: Mapping[str, Any], *, shapes: Iterable[GeomShape],
                       meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]] | None = None
                       ) -> TactilePad:
    """Build a TactilePad from checked plugin parameters and the pad body's geoms.

    Args:
        parameters: values of ``TACTILE_PARAMETERS``.
        shapes: the pad body's collision geoms (``sim.contacts.geom_shapes``).
        meshes: triangles of its mesh geoms (``sim.contacts.geom_meshes``).
    """
    shapes = tuple(shapes)
    layout = pad_layout(shapes, parameters['resolution_m'], parameters['layout'],
                        meshes=meshes)
    config = TactileConfig(parameters['touch'], parameters['response'],
                           noise=NoiseConfig.from_parameters(dict(parameters)))
    return TactilePad(layout, [shape.geom_id for shape in shapes], config)
