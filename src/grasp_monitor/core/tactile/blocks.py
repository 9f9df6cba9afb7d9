"""The block values of several pads in one call: the work of ``PadGroup``."""

from __future__ import annotations

from typing import Any, Iterable

from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.tactile.candidate_grid import _SpreadTables
from grasp_monitor.core.tactile.scatter import _combine, _scatter_add, _slip, _sum_by_sample
from grasp_monitor.core.tactile.surface import on_surface_offset
import numpy as np
import numpy.typing as npt


class _PadBlocks:
    """Pads whose block values come from one call (``PadGroup`` explains how).

    ``PadGroup`` is this with its pads checked; ``TactilePad.compute_block``
    uses one of its own pad.

    Args:
        pads: the pads, in the order of the block inputs.

    Attributes:
        pads: the pads.
    """

    def __init__(self, pads: Iterable[Any]) -> None:
        self.pads = tuple(pads)
        self._shared = len({(pad.config.touch, pad.config.response, pad.on_surface,
                             pad.config.slip)
                            for pad in self.pads}) == 1
        self._taxels = np.array([len(pad.layout) for pad in self.pads], dtype=np.int64)
        self._tables: _SpreadTables | None = None
        self._counting = np.arange(0)  # 0, 1, 2, ...: kept, not rebuilt every block
        self._slip_buffer = np.zeros((0, 3))
        self._slip_rows: Any = slice(0)
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
        distance_m: npt.ArrayLike | None = None,
        velocity_in_contact: npt.ArrayLike | None = None,
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
            distance_m: (K,) signed distance between the surfaces, m (negative:
                penetrating); needed by pads whose ``contact_point`` is surface.
            velocity_in_contact: (K, 3) m/s, the other body's velocity relative
                to the pad at the contact point, in the contact frame (a MuJoCo
                contact sensor's ``linvel``); needed by pads with ``slip`` on.

        Returns:
            Per pad, its (S, N, width) values, as ``TactilePad.compute_block``
            returns them and with the same attributes set on the pad (``slip``
            (S, N, 3) with ``slip`` on).

        Raises:
            ConfigError: ``counts`` does not have one count >= 0 per pad adding up to K,
                a pad's ``contact_point`` is surface without ``distance_m``, or a
                pad has ``slip`` on without ``velocity_in_contact``.
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
        if distance_m is not None:
            distance_m = np.asarray(distance_m, dtype=float).reshape(-1)
        elif any(pad.on_surface for pad in pads):
            raise ConfigError("contact_point surface needs the contacts' distance_m")
        slip = any(pad.slip is not None for pad in pads)
        if slip and velocity_in_contact is None:
            raise ConfigError("a pad with slip on needs the contacts' velocity_in_contact")
        velocity = None if velocity_in_contact is None else np.asarray(
            velocity_in_contact, dtype=float).reshape(-1, 3)
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
                quaternion[p], None if distance_m is None else distance_m[a:b],
                None if velocity is None else velocity[a:b])
                for p, (pad, a, b) in enumerate(zip(pads, firsts, ends)))
        width = pads[0].width
        poses = len(pads) * samples
        heights = samples * self._taxels
        first_rows = np.cumsum(heights) - heights
        total_force = np.zeros((poses, 3))
        signal_sum = total_force if width == 3 else np.zeros((poses, width))
        if index.size == 0:
            values = np.zeros((int(heights.sum()), width))
            slip_sums: tuple[Any, np.ndarray] | None = (slice(0), np.zeros((0, 4)))
        else:
            # Sample s of pad p has pose p S + s.
            pose = np.repeat(np.arange(0, poses, samples), number)
            pose += index
            # Vectors as (3, K) rows, matrices as (3, 3, K): products of long rows cost
            # far less than contractions of (K, 3, 3) stacks on their short axes.
            rotation = np.take(quat_to_matrix(quaternion.reshape(poses, 4)).reshape(poses, 9).T,
                               pose, axis=1).reshape(3, 3, -1)
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
            if pads[0].on_surface:
                # the normal points from the pad: -normal goes into it
                position = position - on_surface_offset(frame[:, 0, :], distance_m)
            offset = position.T - np.take(pad_position.reshape(poses, 3).T, pose, axis=1)
            points_in_pad = _combine(offset, rotation).T
            if not np.isfinite(points_in_pad).all():
                raise SimulationError('contact positions or the pad pose are not finite')
            extra = None
            if slip:
                assert velocity is not None
                velocity_rows = velocity.T
                # the tangential part: along tangent1 and tangent2
                tangential = frame_rows[1] * velocity_rows[1]
                tangential += frame_rows[2] * velocity_rows[2]
                # normal force x tangential velocity in the pad (3), normal force
                extra = np.vstack((_combine(tangential, rotation) * force_rows[0],
                                   force_rows[:1])).T
            signal = signal.T
            # Each sample of each pad has its own N rows of the output.
            base = np.repeat(first_rows, number)
            base += index * np.repeat(self._taxels, number)
            if self._tables is not None:
                values, slip_sums = self._spread(points_in_pad, signal, base, number, firsts,
                                                 int(heights.sum()), extra)
            else:
                if extra is not None:
                    signal = np.hstack((signal, extra))
                spread_width = signal.shape[1]
                values = np.zeros((int(heights.sum()), spread_width))
                for pad, a, b, row, height in zip(pads, firsts, ends, first_rows, heights):
                    pad._nearest(points_in_pad[a:b], signal[a:b],
                                 values[row:row + height].reshape(samples, -1, spread_width),
                                 index[a:b])
                if extra is not None:
                    slip_sums = (slice(None), values[:, width:])
                    values = np.ascontiguousarray(values[:, :width])
        if slip:
            assert slip_sums is not None
            slip_values = self._slip_output(values.shape[0], *slip_sums)
        results = []
        for p, pad in enumerate(pads):
            pad_values = values[first_rows[p]:first_rows[p] + heights[p]].reshape(
                samples, -1, width)
            pad.contact_count = int(number[p])
            if slip:
                pad.slip = slip_values[first_rows[p]:first_rows[p] + heights[p]].reshape(
                    samples, -1, 3)
            pad.total_force_in_pad = total_force[p * samples:(p + 1) * samples]
            if pad.to_geom is not None:
                pad.noise.apply(pad.in_force_frame(pad_values), out=pad_values)
                pad.value_sum = pad_values.sum(axis=1)
            elif pad.noise.is_identity:
                # Both responses conserve each contact's signal: no pass over every taxel.
                pad.value_sum = signal_sum[p * samples:(p + 1) * samples]
            else:
                pad.noise.apply(pad_values, out=pad_values)
                pad.value_sum = pad_values.sum(axis=1)
            results.append(pad_values)
        return tuple(results)

    def _slip_output(self, height: int, rows: Any, summed: np.ndarray) -> np.ndarray:
        """Return (height, 3) the block's slip: ``_slip`` of the sums at ``rows``, 0 elsewhere.

        One buffer serves every block (the rows the last one set are zeroed): a new
        array's pages would each fault on first touch, one sample after another.
        """
        buffer = self._slip_buffer
        if buffer.shape[0] != height:
            buffer = self._slip_buffer = np.zeros((height, 3))
        else:
            for component in range(3):
                buffer[:, component][self._slip_rows] = 0.0
        _slip(summed, rows, buffer)
        self._slip_rows = rows
        return buffer

    def _spread(self, points_in_pad: np.ndarray, signal: np.ndarray, base: np.ndarray,
                number: np.ndarray, firsts: np.ndarray, height: int,
                extra: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """Return (height, width): each contact's signal shared by the taxels in range, linearly.

        With ``extra`` (K, 4) (normal force x tangential velocity, normal force),
        also return the rows touched and (R, 4) ``extra`` shared over them with
        the same weights (not over every row: a dense sum would pass over every
        taxel of every sample); else None.

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
            extra: (K, 4) what each contact spreads for the slip, or None.
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
        if extra is not None:
            # Each term's share of its contact's extra.
            shares = np.repeat(extra / total[:, None], candidates, axis=0)
            shares *= weight[:, None]
        if any_alone:
            # No taxel in range: fall back to the nearest one, so no force is lost.
            for p, pad in enumerate(self.pads):
                part = slice(firsts[p], firsts[p] + number[p])
                lost = np.flatnonzero(alone[part]) + firsts[p]
                if lost.size:
                    _, nearest = pad._taxel_tree.query(points_in_pad[lost])
                    np.add.at(values, base[lost] + nearest, signal[lost])
                    if extra is not None:
                        row = np.concatenate((row, (base[lost] + nearest).astype(row.dtype)))
                        shares = np.concatenate((shares, extra[lost]))
        if extra is None:
            return values, None
        touched, inverse = np.unique(row, return_inverse=True)
        summed = np.empty((touched.size, 4))
        for column in range(4):
            summed[:, column] = np.bincount(inverse, shares[:, column], minlength=touched.size)
        return values, (touched, summed)
