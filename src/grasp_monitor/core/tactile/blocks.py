"""The block values of several pads in one call: the work of ``PadGroup``."""

from __future__ import annotations

from typing import Any, Iterable

from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.core.tactile.candidate_grid import _SpreadTables
from grasp_monitor.core.tactile.scatter import _slip
from grasp_monitor.core.tactile.spread_kernel import PLACE_CONTACTS, SPREAD_BLOCK, TOUCH_CODES
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
        self._output: _Output | None = None
        if self._shared:  # here, not in the first block: 0.3 s with numba's cache, 2 s without
            PLACE_CONTACTS.compile_now()
            SPREAD_BLOCK.compile_now()
        if self._shared and self.pads[0].config.response == 'spread_linear':
            tables = self._tables = _SpreadTables([pad._grid for pad in self.pads])
            self._taxel = tables.taxel.astype(np.int64)  # the kernel's one index type
            # contiguous, as the kernel takes it (a pad of a group has a view of the group's)
            self._geometry = np.ascontiguousarray(tables.geometry)
            # the kernel's scratch: one weight per candidate of the longest table row
            self._weights = np.empty(max(1, int(np.diff(tables.starts).max())))
            grids = [pad._grid for pad in self.pads]
            cells = [grid.row_of_cell + base for grid, base in zip(grids, tables.row_base)]
            sizes = [cell.size for cell in cells]
            # Each pad's lookup (_CandidateGrid.lookup) for the kernel: arrays over pads.
            self._grids = (
                np.array([grid.low for grid in grids]), np.array([g.cell_m for g in grids]),
                np.array([grid._last_cell for grid in grids]),
                np.array([grid._strides for grid in grids]),
                np.cumsum(sizes) - sizes, np.concatenate(cells),
                np.array([1.0 / pad.spread_radius_m for pad in self.pads]))

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
        output = self._output_of(samples, slip) if self._tables is not None else None
        # Each sample of each pad has its own N rows of the output.
        first_rows = output.first_rows if output is not None else np.cumsum(heights) - heights
        total_force = np.zeros((poses, 3))
        signal_sum = np.zeros((poses, width))
        count = index.size
        points_in_pad, signal = np.empty((count, 3)), np.empty((count, width))
        extra = np.empty((count if slip else 0, 4))
        base = np.empty(count, np.int64)
        contiguous = np.ascontiguousarray  # as the kernel takes them (no copy if they are)
        if not PLACE_CONTACTS(
                number, contiguous(index), contiguous(position), contiguous(frame),
                contiguous(force_in_contact), contiguous(pad_position), contiguous(quaternion),
                contiguous(distance_m) if pads[0].on_surface else np.zeros(0),
                contiguous(velocity) if slip else np.zeros((0, 3)),
                TOUCH_CODES[pads[0].config.touch],
                first_rows, self._taxels, points_in_pad, signal, extra, base, total_force,
                signal_sum):
            raise SimulationError('contact positions or the pad pose are not finite')
        if output is not None:
            self._spread(output, points_in_pad, signal, base, number, firsts, extra)
        else:
            spread = np.hstack((signal, extra)) if slip else signal
            spread_width = spread.shape[1]
            values = np.zeros((int(heights.sum()), spread_width))
            for pad, a, b, row, height in zip(pads, firsts, ends, first_rows, heights):
                pad._nearest(points_in_pad[a:b], spread[a:b],
                             values[row:row + height].reshape(samples, -1, spread_width),
                             index[a:b])
            if slip:
                slip_values = np.empty((values.shape[0], 3))
                _slip(values[:, width:], slice(None), slip_values)
                values = np.ascontiguousarray(values[:, :width])
        if output is not None:
            values, slip_values = output.values, output.slip
        results = []
        for p, pad in enumerate(pads):
            pad_values = values[first_rows[p]:first_rows[p] + heights[p]].reshape(
                samples, -1, width)
            pad.contact_count = int(number[p])
            if slip:
                pad.slip = slip_values[first_rows[p]:first_rows[p] + heights[p]].reshape(
                    samples, -1, 3)
            pad.total_force_in_pad = total_force[p * samples:(p + 1) * samples]
            if not pad.noise.is_identity and output is not None:
                output.dirty = True  # noise on every taxel: the next block zeroes them all
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

    def _output_of(self, samples: int, slip: bool) -> _Output:
        """Return the spread's output buffers for ``samples`` samples (kept, or grown)."""
        output = self._output
        if output is None or output.samples < samples:
            output = self._output = _Output(samples, self._taxels, self.pads[0].width, slip)
        elif output.dirty:
            output.values.fill(0.0)
            output.dirty = False
        return output

    def _spread(self, output: _Output, points_in_pad: np.ndarray, signal: np.ndarray,
                base: np.ndarray, number: np.ndarray, firsts: np.ndarray,
                extra: np.ndarray) -> None:
        """Set ``output``: each contact's signal shared by the taxels in range, linearly.

        With ``extra`` (K, 4) (normal force x tangential velocity, normal force),
        also its slip: ``extra`` shared with the same weights, divided per taxel.

        One sample (``compute``, a node's tick) takes the padded candidate
        table (``_spread_padded``): few numpy calls for its few contacts. A
        block takes each contact's candidates unpadded, in a compiled loop
        (``spread_kernel``): a cell lists 17 taxels on average but up to 48
        where faces meet. Both give the same values to rounding.

        Args:
            output: the buffers to write (the last block's rows not written again are zeroed).
            points_in_pad: (K, 3) contact points in their pad's frame, m.
            signal: (K, width) what each contact spreads.
            base: (K,) the output row of taxel 0 of each contact's pad and sample.
            number: (P,) contacts of each pad, given pad after pad.
            firsts: (P,) the first contact of each pad.
            extra: (K, 4) what each contact spreads for the slip, or (0, 4).
        """
        tables = self._tables
        assert tables is not None
        alone = np.zeros(base.size, np.uint8)
        forced = np.full(base.size, -1, np.int64)
        grids = self._grids
        output.next_block()
        # Each contact writes at most a table row's candidates (or its one nearest taxel).
        rows = min(output.values.shape[0], base.size * self._weights.size)
        if output.touched.size < rows:
            output.touched = np.empty(rows, np.int64)
        output.count = SPREAD_BLOCK(
            number, points_in_pad, signal, extra, base, forced, *grids, tables.starts,
            self._taxel, self._geometry, output.values, output.sums, output.slip,
            output.marks, output.epoch, output.previous, output.count, output.touched, 0,
            alone, self._weights)
        lost = np.flatnonzero(alone)
        if lost.size:
            # No taxel in range: the nearest one takes it all, so no force is lost.
            for p, pad in enumerate(self.pads):
                mine = lost[(lost >= firsts[p]) & (lost < firsts[p] + number[p])]
                if mine.size:
                    forced[mine] = pad._taxel_tree.query(points_in_pad[mine])[1]
            output.count = SPREAD_BLOCK(
                np.bincount(np.searchsorted(firsts + number, lost, side='right'),
                            minlength=number.size),
                points_in_pad[lost], signal[lost], extra[lost] if extra.size else extra,
                base[lost], forced[lost], *grids, tables.starts, self._taxel, self._geometry,
                output.values, output.sums, output.slip, output.marks, output.epoch,
                output.previous, 0, output.touched, output.count, alone[lost], self._weights)


class _Output:
    """A group's spread output, kept from block to block: only written rows are zeroed.

    A new array per block costs a zero fill (or a page fault per 4 kB of fresh
    memory) over every taxel of every sample; the kernel lists the rows each
    block writes instead, and zeroes those of the last block it did not write.
    Pad p's values of S samples are rows ``first_rows[p]`` on.

    Attributes:
        samples: the samples it holds at most.
        first_rows: (P,) each pad's first row.
        values: (H, width) the values; sums (H, 4) and slip (H, 3) with slip on,
            else (0, 4) and (0, 3).
        marks: (H,) per row the ``epoch`` of the block that last wrote it.
        touched: the rows this block wrote, ``count`` of them (``previous``: the
            last block's).
        dirty: noise wrote every row: zero them all before the next block.
    """

    def __init__(self, samples: int, taxels: np.ndarray, width: int, slip: bool) -> None:
        heights = samples * taxels
        height = int(heights.sum())
        self.samples = samples
        self.first_rows = np.cumsum(heights) - heights
        self.values = np.zeros((height, width))
        self.sums = np.zeros((height if slip else 0, 4))
        self.slip = np.zeros((height if slip else 0, 3))
        self.marks = np.zeros(height, np.uint8)
        self.epoch = 0
        self.touched = np.empty(0, np.int64)  # grown to what a block may write
        self.previous = np.empty(0, np.int64)
        self.count = 0
        self.dirty = False

    def next_block(self) -> None:
        """Start a block: a new epoch, the rows written so far the previous ones."""
        self.previous, self.touched = self.touched, self.previous
        if self.epoch == 255:  # a byte's epochs are used up: no row is marked any more
            self.marks.fill(0)
            self.epoch = 0
        self.epoch += 1
