"""The expanding polytope's working arrays (``polytope``), kept from call to call.

Allocating them on each call costs more than the search (fresh pages fault in), so a
caller keeps one ``Workspace`` per thread and passes its arrays to each call.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Workspace(NamedTuple):
    """The kernel's working arrays, kept between calls (``workspace``, ``fitted``).

    V vertices, F facets, H horizon ridges and T ridge-table slots at most; a search
    that needs more replaces an array inside and notes the size in ``state``. The
    kernel takes them as its arguments after ``axes``, in this order (``*work``:
    numba dispatches a call on separate arrays faster than on a named tuple).
    """

    #: (V, 6) the polytope's vertices.
    vertices: np.ndarray
    #: (F, 6) int32 each facet's vertex ids, sorted (int32: less to read).
    facet_vertices: np.ndarray
    #: (F, 6) int32 the facet across each ridge r (the one without vertex r).
    neighbours: np.ndarray
    #: (F, 6) int8 the slot each neighbour holds the facet in.
    neighbour_slots: np.ndarray
    #: (F, 6) each facet's plane a·(x - center) = 1.
    planes: np.ndarray
    #: (F,) bool, whether a facet is on the polytope.
    alive: np.ndarray
    #: (F,) int64 2 s + 1: visible in search s; 2 s: not visible.
    tags: np.ndarray
    #: (F,) the min-heap of facet distances.
    heap_distances: np.ndarray
    #: (F,) int64 the facet of each heap entry.
    heap_facets: np.ndarray
    #: (F,) int64 facets to visit from the new vertex.
    stack: np.ndarray
    #: (F,) int64 the facets the new vertex sees.
    visible: np.ndarray
    #: (H,) int64 each horizon ridge's visible facet.
    horizon_facets: np.ndarray
    #: (H,) int64 the ridge's slot in that facet.
    horizon_slots: np.ndarray
    #: (H,) int64 the facet beyond the ridge.
    horizon_beyond: np.ndarray
    #: (T,) int64 the ridge table: each slot's key.
    table_keys: np.ndarray
    #: (T,) int64 its owner, facet * 8 + slot.
    table_owners: np.ndarray
    #: (T,) int64 the search that wrote it.
    table_searches: np.ndarray
    #: (5,) int64: the search clock, then V, F, H and T the last call needed.
    state: np.ndarray


def workspace(vertices: int = 128, facets: int = 1024, horizon: int = 64, table: int = 64,
              clock: int = 0) -> Workspace:
    """Return the kernel's working arrays, to pass to each call and keep.

    Allocating them on each call costs more than the search (fresh pages fault in): a
    caller keeps them and, when their ``state`` asks for more, takes larger ones
    (``fitted``).
    """
    return Workspace(
        np.zeros((vertices, 6)), np.zeros((facets, 6), np.int32),
        np.zeros((facets, 6), np.int32), np.zeros((facets, 6), np.int8),
        np.zeros((facets, 6)), np.zeros(facets, np.bool_), np.zeros(facets, np.int64),
        np.zeros(facets), np.zeros(facets, np.int64),
        np.zeros(facets, np.int64), np.zeros(facets, np.int64),
        np.zeros(horizon, np.int64), np.zeros(horizon, np.int64), np.zeros(horizon, np.int64),
        np.zeros(table, np.int64), np.zeros(table, np.int64), np.zeros(table, np.int64),
        np.array([clock, vertices, facets, horizon, table], np.int64))


def fitted(work: Workspace) -> Workspace:
    """Return ``work``, or larger arrays if its last call needed more (its state)."""
    state = work.state
    if state[1] > work.vertices.shape[0] or state[2] > work.facet_vertices.shape[0] or \
            state[3] > work.horizon_facets.shape[0] or state[4] > work.table_keys.shape[0]:
        return workspace(*(int(x) for x in state[1:]), clock=int(state[0]))
    return work
