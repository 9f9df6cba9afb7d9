"""Which taxels may lie within the spread radius of a point, looked up by grid cell.

Distances are straight lines in the pad frame. A grid of cells (side: half
the spread radius), built once, lists per cell every taxel within the radius
of any point of the cell; a contact's candidates are those of its cell, so a
pad works on the contacts' candidates only, exact and far fewer than
(contacts x taxels).
"""

from __future__ import annotations

import math

import numpy as np


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
