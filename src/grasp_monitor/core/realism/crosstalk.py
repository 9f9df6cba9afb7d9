"""Crosstalk between neighbouring taxels: who is a neighbour, and the sum they add."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.spatial import cKDTree

#: Neighbours lie within this many times the array's nearest-taxel spacing.
NEIGHBOUR_SPACINGS = 1.5


def neighbour_matrix(positions: np.ndarray) -> sparse.csr_array:
    """Return the (N, N) 0/1 matrix of neighbouring taxels.

    The spacing is the median over taxels of the distance to the nearest other
    taxel (robust to a few odd ones on a pad's edges); neighbours lie within
    ``NEIGHBOUR_SPACINGS`` times it: on a square grid, the 8 around a taxel; on
    a line, the 2 beside it.

    Args:
        positions: (N, 3) taxel positions, m.
    """
    count = positions.shape[0]
    if count < 2:
        return sparse.csr_array((count, count))
    tree = cKDTree(positions)
    nearest = tree.query(positions, k=2)[0][:, 1]
    spacing = float(np.median(nearest))
    pairs = tree.query_pairs(NEIGHBOUR_SPACINGS * spacing, output_type='ndarray')
    rows = np.concatenate((pairs[:, 0], pairs[:, 1]))
    columns = np.concatenate((pairs[:, 1], pairs[:, 0]))
    ones = np.ones(rows.size)
    return sparse.csr_array((ones, (rows, columns)), shape=(count, count))


def leak_matrix(neighbours: sparse.csr_array, share: float,
                components: int) -> sparse.csr_array:
    """Return the (N C, N C) symmetric matrix adding ``share`` of each neighbour's component."""
    return sparse.csr_array(sparse.kron(share * neighbours, sparse.identity(components),
                                        format='csr'))


def add_crosstalk(forces: np.ndarray, leak: sparse.csr_array) -> np.ndarray:
    """Return (S, N, C) forces plus their leak into neighbours (``leak_matrix``)."""
    flat = forces.reshape(forces.shape[0], -1)
    # The matrix is symmetric: (leak @ flat.T).T is flat @ leak, without a copy of flat.
    return forces + (leak @ flat.T).T.reshape(forces.shape)
