"""The block spread's kernel: contacts shared over their candidate taxels, compiled (numba).

A block has thousands of contacts and tens of thousands of candidate terms; as numpy
calls each term passed through a dozen temporary arrays (gathers, repeats, a sparse
product into a zero-filled output). Here one loop per contact computes its weights,
adds its signal (and, with slip, its slip sums) into buffers the group keeps from block
to block, and lists the rows it wrote, so the next block zeroes those rows only: no
pass over every taxel of every sample. ``_PadBlocks._spread`` calls it; the per-step
path (``TactilePad._spread_padded``) stays numpy.
"""

from __future__ import annotations

import math

from grasp_monitor.core.compiled import Compiled, float_array
import numpy as np


def _spread_block(
    starts: np.ndarray, taxel: np.ndarray, geometry: np.ndarray, rows: np.ndarray,
    offset: np.ndarray, signal: np.ndarray, extra: np.ndarray, base: np.ndarray,
    forced: np.ndarray, values: np.ndarray, sums: np.ndarray, slip: np.ndarray,
    marks: np.ndarray, touched: np.ndarray, reset: int, count: int, alone: np.ndarray,
    weights: np.ndarray,
) -> int:
    """Add K contacts' signals to ``values`` by ``spread_linear``; return the rows listed.

    First zeroes the ``reset`` rows listed in ``touched`` (a block's rows are
    listed from 0, so pass ``reset`` = the last call's count and ``count`` 0;
    a second call on the same block passes 0 and the count so far).

    Args:
        starts: (R + 1,) table row r's candidates are entries starts[r]:starts[r + 1].
        taxel: (E,) each entry's taxel in its pad.
        geometry: (5, E) each entry's x, y, z, |t|^2, 1 from its cell centre, in radii.
        rows: (K,) each contact's table row.
        offset: (K, 3) each contact's offset from its cell centre, in radii.
        signal: (K, width) what each contact spreads.
        extra: (K, 4) normal force x tangential velocity (3), normal force; (K, 0)
            without slip.
        base: (K,) the output row of taxel 0 of each contact's pad and sample.
        forced: (K,) a taxel that takes the whole contact (weight 1), or -1: spread.
        values: (H, width) the output, added to.
        sums: (H, 4) ``extra`` summed per row with the weights ((0, 4) without slip).
        slip: (H, 3) per listed row, sums[:3] / sums[3], 0 without load.
        marks: (H,) 1 where a row is listed.
        touched: (H,) the listed rows, in the order first written.
        reset: rows of ``touched`` to zero before adding.
        count: rows already listed.
        alone: (K,) set to 1 where a contact has no taxel in range (nothing added).
        weights: scratch, at least as long as the longest table row.
    """
    width = values.shape[1]
    with_slip = sums.shape[0] > 0
    share = np.empty(width + 4)  # one contact's signal and extra over its total weight
    for i in range(reset):
        row = touched[i]
        marks[row] = 0
        for c in range(width):
            values[row, c] = 0.0
        if with_slip:
            for c in range(4):
                sums[row, c] = 0.0
            for c in range(3):
                slip[row, c] = 0.0
    for k in range(rows.shape[0]):
        # A forced contact is one term of weight 1 on its taxel.
        first, last, total = 0, 1, 1.0
        weights[0] = 1.0
        if forced[k] < 0:
            first, last = starts[rows[k]], starts[rows[k] + 1]
            # |t - q|^2 = (x, y, z, |t|^2, 1) . (-2 q, 1, |q|^2), t, q from the cell centre
            q0, q1, q2 = -2.0 * offset[k, 0], -2.0 * offset[k, 1], -2.0 * offset[k, 2]
            qq = offset[k, 0] ** 2 + offset[k, 1] ** 2 + offset[k, 2] ** 2
            total = 0.0
            for e in range(first, last):
                squared = geometry[0, e] * q0 + geometry[1, e] * q1 + geometry[2, e] * q2 \
                    + geometry[3, e] + geometry[4, e] * qq
                weight = max(1.0 - math.sqrt(max(squared, 0.0)), 0.0)
                weights[e - first] = weight
                total += weight
            if total <= 0.0:
                alone[k] = 1
                continue
        for c in range(width):
            share[c] = signal[k, c] / total
        if with_slip:
            for c in range(4):
                share[width + c] = extra[k, c] / total
        for e in range(first, last):
            weight = weights[e - first]
            if weight <= 0.0:
                continue
            row = base[k] + (taxel[e] if forced[k] < 0 else forced[k])
            if marks[row] == 0:
                marks[row] = 1
                touched[count] = row
                count += 1
            for c in range(width):
                values[row, c] += weight * share[c]
            if with_slip:
                for c in range(4):
                    sums[row, c] += weight * share[width + c]
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


def _signature(nb):
    integers = nb.types.Array(nb.int64, 1, 'A', readonly=True)
    writable = nb.types.Array(nb.int64, 1, 'A')
    flags = nb.types.Array(nb.uint8, 1, 'A')
    return nb.int64(integers, integers, float_array(nb, 2), integers, float_array(nb, 2),
                    float_array(nb, 2), float_array(nb, 2), integers, integers,
                    float_array(nb, 2, readonly=False), float_array(nb, 2, readonly=False),
                    float_array(nb, 2, readonly=False), flags, writable, nb.int64, nb.int64,
                    flags, float_array(nb, 1, readonly=False))


SPREAD_BLOCK = Compiled(_spread_block, _signature)
