"""Crosstalk between neighbouring taxels: who is a neighbour of whom."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

#: Neighbours lie within this many times the array's nearest-taxel spacing.
NEIGHBOUR_SPACINGS = 1.5


def neighbours(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return each taxel's neighbours as CSR rows: ``indptr`` (N + 1,), ``indices``.

    The spacing is the median over taxels of the distance to the nearest other
    taxel (robust to a few odd ones on a pad's edges); neighbours lie within
    ``NEIGHBOUR_SPACINGS`` times it: on a square grid, the 8 around a taxel; on
    a line, the 2 beside it. Each row lists its neighbours in increasing order.

    Args:
        positions: (N, 3) taxel positions, m.
    """
    count = positions.shape[0]
    if count < 2:
        return np.zeros(count + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    tree = cKDTree(positions)
    nearest = tree.query(positions, k=2)[0][:, 1]
    spacing = float(np.median(nearest))
    pairs = tree.query_pairs(NEIGHBOUR_SPACINGS * spacing, output_type='ndarray')
    rows = np.concatenate((pairs[:, 0], pairs[:, 1]))
    columns = np.concatenate((pairs[:, 1], pairs[:, 0]))
    order = np.lexsort((columns, rows))
    indptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=count), out=indptr[1:])
    return indptr, columns[order].astype(np.int64)
