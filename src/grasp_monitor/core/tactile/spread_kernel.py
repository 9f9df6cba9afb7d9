"""The block spread's kernel: contacts shared over their candidate taxels, compiled (numba).

A block has thousands of contacts and tens of thousands of candidate terms; as numpy
calls each term passed through a dozen temporary arrays (gathers, repeats, a sparse
product into a zero-filled output). Here ``_place_contacts`` sees each contact from its
pad and ``_spread_block`` computes its weights and adds its signal (and, with slip, its
slip sums) into buffers the group keeps from block to block, listing the rows it
writes, so that the next block zeroes only those it does not write again: no pass over
every taxel of every sample. ``_PadBlocks.compute_block`` calls them; the per-step
path (``TactilePad.compute``, a node's tick) stays numpy, without numba's memory.
"""

from __future__ import annotations

import math

from grasp_monitor.core.compiled import Compiled
import numpy as np

#: The touch functions as ``_place_contacts`` takes them.
TOUCH_CODES = {'normal': 0, 'normal_force': 1, 'force_vector': 2, 'force_vector_global': 3}


def _place_contacts(
    number: np.ndarray, sample: np.ndarray, position: np.ndarray, frame: np.ndarray,
    force: np.ndarray, pad_position: np.ndarray, quaternion: np.ndarray, distance: np.ndarray,
    velocity: np.ndarray, touch: int, first_rows: np.ndarray, taxels: np.ndarray,
    points: np.ndarray, signal: np.ndarray, extra: np.ndarray, base: np.ndarray,
    total_force: np.ndarray, signal_sum: np.ndarray,
) -> bool:
    """Each contact seen from its pad; return False if a point in a pad is not finite.

    The contacts come pad after pad (``number`` of each), every one seen from its
    pad (``PadGroup.compute_block``). Per contact k of pad p at sample s, with R
    the pad's rotation at s (columns: pad axes in the world): the force on the
    pad -(force . frame), in the pad R^T f; the touch function's ``signal`` (0
    normal, 1 normal_force, 2 force_vector, 3 force_vector_global, as
    ``TOUCH_CODES``); the point in the pad, moved onto its surface when
    ``distance`` is given ((K,), else (0,)); with ``velocity`` ((K, 3), else
    (0, 3)), ``extra``: normal force x tangential velocity in the pad, normal
    force; ``base`` the output row of taxel 0 of (p, s). ``total_force`` and
    ``signal_sum`` (P S, ...) add the forces in the pad and the signals per
    pose p S + s (zeroed by the caller).
    """
    samples = pad_position.shape[1]
    on_surface = distance.shape[0] > 0
    with_slip = velocity.shape[0] > 0
    k = 0
    for p in range(number.shape[0]):
        for _ in range(number[p]):
            s = sample[k]
            pose = p * samples + s
            w, x, y, z = quaternion[p, s, 0], quaternion[p, s, 1], quaternion[p, s, 2], \
                quaternion[p, s, 3]
            # as quat_to_matrix; scalars, as numba keeps them in registers
            r00, r01, r02 = 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)
            r10, r11, r12 = 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)
            r20, r21, r22 = 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)
            f0, f1, f2 = force[k, 0], force[k, 1], force[k, 2]
            n0, n1, n2 = frame[k, 0, 0], frame[k, 0, 1], frame[k, 0, 2]
            a0, a1, a2 = frame[k, 1, 0], frame[k, 1, 1], frame[k, 1, 2]
            b0, b1, b2 = frame[k, 2, 0], frame[k, 2, 1], frame[k, 2, 2]
            # The force on the pad is the opposite of the force it exerts; R^T v in the pad.
            w0 = -(f0 * n0 + f1 * a0 + f2 * b0)
            w1 = -(f0 * n1 + f1 * a1 + f2 * b1)
            w2 = -(f0 * n2 + f1 * a2 + f2 * b2)
            p0 = w0 * r00 + w1 * r10 + w2 * r20
            p1 = w0 * r01 + w1 * r11 + w2 * r21
            p2 = w0 * r02 + w1 * r12 + w2 * r22
            total_force[pose, 0] += p0
            total_force[pose, 1] += p1
            total_force[pose, 2] += p2
            if touch == 0:
                signal[k, 0] = f0
            elif touch == 1:
                signal[k, 0] = -f0 * (n0 * r00 + n1 * r10 + n2 * r20)
                signal[k, 1] = -f0 * (n0 * r01 + n1 * r11 + n2 * r21)
                signal[k, 2] = -f0 * (n0 * r02 + n1 * r12 + n2 * r22)
            elif touch == 2:
                signal[k, 0], signal[k, 1], signal[k, 2] = p0, p1, p2
            else:
                signal[k, 0], signal[k, 1], signal[k, 2] = w0, w1, w2
            for i in range(signal.shape[1]):
                signal_sum[pose, i] += signal[k, i]
            # the point: the normal points from the pad, -normal goes into it
            inward = 0.5 * min(distance[k], 0.0) if on_surface else 0.0
            o0 = position[k, 0] - n0 * inward - pad_position[p, s, 0]
            o1 = position[k, 1] - n1 * inward - pad_position[p, s, 1]
            o2 = position[k, 2] - n2 * inward - pad_position[p, s, 2]
            points[k, 0] = o0 * r00 + o1 * r10 + o2 * r20
            points[k, 1] = o0 * r01 + o1 * r11 + o2 * r21
            points[k, 2] = o0 * r02 + o1 * r12 + o2 * r22
            if not (math.isfinite(points[k, 0]) and math.isfinite(points[k, 1])
                    and math.isfinite(points[k, 2])):
                return False
            if with_slip:  # the tangential part: along tangent1 and tangent2
                v1, v2 = velocity[k, 1], velocity[k, 2]
                t0, t1, t2 = a0 * v1 + b0 * v2, a1 * v1 + b1 * v2, a2 * v1 + b2 * v2
                extra[k, 0] = f0 * (t0 * r00 + t1 * r10 + t2 * r20)
                extra[k, 1] = f0 * (t0 * r01 + t1 * r11 + t2 * r21)
                extra[k, 2] = f0 * (t0 * r02 + t1 * r12 + t2 * r22)
                extra[k, 3] = f0
            base[k] = first_rows[p] + s * taxels[p]
            k += 1
    return True


def _spread_block(
    number: np.ndarray, points: np.ndarray, signal: np.ndarray, extra: np.ndarray,
    base: np.ndarray, forced: np.ndarray, grid_low: np.ndarray, grid_cell: np.ndarray,
    grid_last: np.ndarray, grid_strides: np.ndarray, cell_first: np.ndarray,
    cell_rows: np.ndarray, inverse_radius: np.ndarray, starts: np.ndarray,
    taxel: np.ndarray, geometry: np.ndarray, values: np.ndarray, sums: np.ndarray,
    slip: np.ndarray, marks: np.ndarray, epoch: int, previous: np.ndarray, reset: int,
    touched: np.ndarray, count: int, alone: np.ndarray, weights: np.ndarray,
) -> int:
    """Spread K contacts' signals into ``values`` by ``spread_linear``; return the rows listed.

    A block's first write to a row (``marks`` not ``epoch``) sets it, later ones
    add; the last block's rows (``previous[:reset]``) this one did not write are
    zeroed after. So a row written block after block is never zeroed, and no
    row is passed over unless one of the two blocks wrote it. A second call on
    the same block passes the same ``epoch``, ``reset`` 0 and the count so far.

    Args:
        number: (P,) contacts of each pad, given pad after pad.
        points: (K, 3) contact points in their pad, m.
        signal: (K, width) what each contact spreads.
        extra: (K, 4) normal force x tangential velocity (3), normal force; (0, 4)
            without slip.
        base: (K,) the output row of taxel 0 of each contact's pad and sample.
        forced: (K,) a taxel that takes the whole contact (weight 1), or -1: spread.
        grid_low: (P, 3) each pad's ``_CandidateGrid`` low corner, m (as ``lookup``).
        grid_cell: (P,) its cell side, m.
        grid_last: (P, 3) its last cell along each axis.
        grid_strides: (P, 3) the strides of its flat cell index.
        cell_first: (P,) where each pad's ``row_of_cell`` starts in ``cell_rows``.
        cell_rows: the pads' ``row_of_cell``, end to end, as rows of the tables.
        inverse_radius: (P,) 1 / spread radius, 1/m.
        starts: (R + 1,) table row r's candidates are entries starts[r]:starts[r + 1].
        taxel: (E,) each entry's taxel in its pad.
        geometry: (5, E) each entry's x, y, z, |t|^2, 1 from its cell centre, in radii.
        values: (H, width) the output.
        sums: (H, 4) ``extra`` summed per row with the weights ((0, 4) without slip).
        slip: (H, 3) per listed row, sums[:3] / sums[3], 0 without load.
        marks: (H,) per row the epoch of the block that last wrote it.
        epoch: this block's, 1..255 (marks are cleared before 1 comes again).
        previous: the last block's rows.
        reset: how many rows ``previous`` lists.
        touched: (H,) this block's rows, in the order first written.
        count: how many rows ``touched`` lists so far.
        alone: (K,) set to 1 where a contact has no taxel in range (nothing added).
        weights: scratch, at least as long as the longest table row.
    """
    width = values.shape[1]
    with_slip = sums.shape[0] > 0
    share = np.empty(width + 4)  # one contact's signal and extra over its total weight
    offset = np.empty(3)  # one contact's offset from its cell's centre, in radii
    one = np.empty(1, np.int64)  # a forced contact's one candidate
    k = 0
    for p in range(number.shape[0]):
        for _ in range(number[p]):
            # A forced contact is one term of weight 1 on its taxel.
            first, last, total = 0, 1, 1.0
            weights[0] = 1.0
            if forced[k] < 0:
                # its cell (as _CandidateGrid.lookup) and offset from the cell's centre
                flat = 0.0
                for i in range(3):
                    scaled = (points[k, i] - grid_low[p, i]) * (1.0 / grid_cell[p])
                    cell = min(max(math.floor(scaled), 0.0), grid_last[p, i])
                    offset[i] = (scaled - cell - 0.5) * grid_cell[p] * inverse_radius[p]
                    flat += cell * grid_strides[p, i]
                row = cell_rows[cell_first[p] + int(flat)]
                first, last = starts[row], starts[row + 1]
                # |t - q|^2 = (x, y, z, |t|^2, 1) . (-2 q, 1, |q|^2), in radii
                q0, q1, q2 = -2.0 * offset[0], -2.0 * offset[1], -2.0 * offset[2]
                qq = offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2]
                # the weights in a loop of their own, which compiles to vector instructions
                x, y, z = geometry[0, first:last], geometry[1, first:last], \
                    geometry[2, first:last]
                squares, ones = geometry[3, first:last], geometry[4, first:last]
                for j in range(last - first):
                    squared = x[j] * q0 + y[j] * q1 + z[j] * q2 + squares[j] + ones[j] * qq
                    weights[j] = max(1.0 - math.sqrt(max(squared, 0.0)), 0.0)
                total = 0.0
                for j in range(last - first):
                    total += weights[j]
                if total <= 0.0:
                    alone[k] = 1
                    k += 1
                    continue
            for c in range(width):
                share[c] = signal[k, c] / total
            if with_slip:
                for c in range(4):
                    share[width + c] = extra[k, c] / total
            if forced[k] < 0:
                candidates = taxel[first:last]
            else:
                one[0] = forced[k]
                candidates = one
            origin = base[k]
            for j in range(last - first):
                weight = weights[j]
                if weight <= 0.0:
                    continue
                row = origin + candidates[j]
                # a block's first write to a row sets it, the next ones add
                fresh = marks[row] != epoch
                if fresh:
                    marks[row] = epoch
                    touched[count] = row
                    count += 1
                if width == 3:  # written out: a tenth faster than the loop below
                    if fresh:
                        values[row, 0] = weight * share[0]
                        values[row, 1] = weight * share[1]
                        values[row, 2] = weight * share[2]
                    else:
                        values[row, 0] += weight * share[0]
                        values[row, 1] += weight * share[1]
                        values[row, 2] += weight * share[2]
                else:
                    for c in range(width):
                        values[row, c] = weight * share[c] + (0.0 if fresh else values[row, c])
                if with_slip:
                    for c in range(4):
                        sums[row, c] = weight * share[width + c] + (
                            0.0 if fresh else sums[row, c])
            k += 1
    for i in range(reset):
        row = previous[i]
        if marks[row] != epoch:
            for c in range(width):
                values[row, c] = 0.0
            if with_slip:
                for c in range(4):
                    sums[row, c] = 0.0
                for c in range(3):
                    slip[row, c] = 0.0
    if with_slip:
        for i in range(count):
            row = touched[i]
            if sums[row, 3] > 0.0:
                scale = 1.0 / sums[row, 3]
                for c in range(3):
                    slip[row, c] = sums[row, c] * scale
            else:
                for c in range(3):
                    slip[row, c] = 0.0
    return count


def _array(nb, kind, ndim, writable=False):
    """Return a C-contiguous array type: the kernels' loops then index without strides."""
    return nb.types.Array(kind, ndim, 'C', readonly=not writable)


def _place_signature(nb):
    f, i = nb.float64, nb.int64
    return nb.boolean(_array(nb, i, 1), _array(nb, i, 1), _array(nb, f, 2), _array(nb, f, 3),
                      _array(nb, f, 2), _array(nb, f, 3), _array(nb, f, 3), _array(nb, f, 1),
                      _array(nb, f, 2), i, _array(nb, i, 1), _array(nb, i, 1),
                      _array(nb, f, 2, True), _array(nb, f, 2, True), _array(nb, f, 2, True),
                      _array(nb, i, 1, True), _array(nb, f, 2, True), _array(nb, f, 2, True))


def _spread_signature(nb):
    f, i, u = nb.float64, nb.int64, nb.uint8
    return i(_array(nb, i, 1), _array(nb, f, 2), _array(nb, f, 2), _array(nb, f, 2),
             _array(nb, i, 1), _array(nb, i, 1), _array(nb, f, 2), _array(nb, f, 1),
             _array(nb, f, 2), _array(nb, f, 2), _array(nb, i, 1), _array(nb, i, 1),
             _array(nb, f, 1), _array(nb, i, 1), _array(nb, i, 1), _array(nb, f, 2),
             _array(nb, f, 2, True), _array(nb, f, 2, True), _array(nb, f, 2, True),
             _array(nb, u, 1, True), i, _array(nb, i, 1), i, _array(nb, i, 1, True), i,
             _array(nb, u, 1, True), _array(nb, f, 1, True))


PLACE_CONTACTS = Compiled(_place_contacts, _place_signature)
SPREAD_BLOCK = Compiled(_spread_block, _spread_signature)
