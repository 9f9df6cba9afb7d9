"""The distance from the origin to the boundary of a wrench set, by expanding a polytope.

The wrench set is given by its support function only (``_support``): the convex hull
of the union of the contact wrenches (L1) or the Minkowski sum of each contact's hull
with the origin (L∞). The expanding
polytope algorithm (EPA, as in collision detection) grows a polytope of support points
inside the set: the facet nearest the origin is a lower bound of the distance, the
support in its normal an upper bound; when they meet, that facet lies on the set's
boundary and the distance is exact. Only the part of the boundary near the answer is
built, not the hull (scipy's ConvexHull builds all of it: thousands of facets in 6-D).

Before that, a simplex of support points is expanded towards the origin from its
centroid (the same steps, planes taken about the centroid) until it holds the origin, or a
facet on the set's boundary separates the origin from it (the origin is outside).

Most of the time goes into the facets each new vertex makes (about 150 in 6-D), so they
are cheap: the arrays are kept between calls (``workspace``), a facet's vertex ids stay
sorted (a ridge's key is a shift of them), each facet knows the slot its neighbours hold
it in, and no array is passed to a call or replaced inside a loop (numba counts array
references atomically).

Written for numba (``kernel``); without numba the same code runs as Python, slowly.
"""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable

import numpy as np

_log = logging.getLogger(__name__)

#: Statuses the kernel returns (lower-dimensional: the set lies in a hyperplane).
OK, LOWER_DIMENSIONAL, ORIGIN_OUTSIDE, DEGENERATE, LIMIT = range(5)
#: Bits of a vertex id in a facet's packed ids (five in an int64; a ridge key holds four).
_ID_BITS = 12
#: Vertices of a polytope, at most (2 ** _ID_BITS).
MAX_VERTICES = 1 << _ID_BITS


def _support(points: np.ndarray, linf: bool, u: np.ndarray, out: np.ndarray) -> float:
    """Write the support point of the set in direction ``u`` into ``out``; return its value.

    ``points`` (K, E, 6): E wrenches of each of K contacts. L1: the largest u·w over all;
    L∞: the sum over contacts of each one's largest or 0 (a contact may push less).
    """
    for c in range(6):
        out[c] = 0.0
    if linf:
        total = 0.0
        for k in range(points.shape[0]):
            best, bj = 0.0, -1
            for j in range(points.shape[1]):
                v = 0.0
                for c in range(6):
                    v += points[k, j, c] * u[c]
                if v > best:
                    best, bj = v, j
            if bj >= 0:
                total += best
                for c in range(6):
                    out[c] += points[k, bj, c]
        return total
    best, bk, bj = -np.inf, 0, 0
    for k in range(points.shape[0]):
        for j in range(points.shape[1]):
            v = 0.0
            for c in range(6):
                v += points[k, j, c] * u[c]
            if v > best:
                best, bk, bj = v, k, j
    for c in range(6):
        out[c] = points[bk, bj, c]
    return best


def _plane(vertices: np.ndarray, ids: np.ndarray, center: np.ndarray, a: np.ndarray,
           m: np.ndarray) -> bool:
    """Solve ``a·(v - center) = 1`` for the six vertices ``ids``; False if singular."""
    for r in range(6):
        for c in range(6):
            m[r, c] = vertices[ids[r], c] - center[c]
        m[r, 6] = 1.0
    for c in range(6):
        p, best = c, abs(m[c, c])
        for r in range(c + 1, 6):
            if abs(m[r, c]) > best:
                p, best = r, abs(m[r, c])
        if best < 1e-300:
            return False
        if p != c:
            for q in range(7):
                m[c, q], m[p, q] = m[p, q], m[c, q]
        for r in range(c + 1, 6):
            f = m[r, c] / m[c, c]
            for q in range(c, 7):
                m[r, q] -= f * m[c, q]
    norm = 0.0
    for r in range(5, -1, -1):
        s = m[r, 6]
        for q in range(r + 1, 6):
            s -= m[r, q] * a[q]
        a[r] = s / m[r, r]
        norm += a[r] * a[r]
    return bool(np.isfinite(norm)) and norm > 0.0


def _push(keys: np.ndarray, ids: np.ndarray, n: int, key: float, item: int) -> None:
    """Add ``item`` at ``key`` to the binary min-heap of ``n`` entries (room for one more)."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        keys[i], ids[i] = keys[parent], ids[parent]
        i = parent
    keys[i], ids[i] = key, item


def _pop(keys: np.ndarray, ids: np.ndarray, n: int) -> None:
    """Remove the top of the binary min-heap of ``n`` > 0 entries (read it first)."""
    n -= 1
    key, item = keys[n], ids[n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        keys[i], ids[i] = keys[child], ids[child]
        i = child
    keys[i], ids[i] = key, item


def _grown_int(x: np.ndarray, n: int, fill: int) -> np.ndarray:
    y = np.empty((n,) + x.shape[1:], x.dtype)
    y[:] = fill
    y[:x.shape[0]] = x
    return y


def _grown_float(x: np.ndarray, n: int) -> np.ndarray:
    y = np.zeros((n,) + x.shape[1:])
    y[:x.shape[0]] = x
    return y


def _reject(u: np.ndarray, basis: np.ndarray, dim: int) -> float:
    """Remove from ``u`` (6,) its parts along the first ``dim`` rows of ``basis``; return |u|²."""
    for b in range(dim):
        p = 0.0
        for c in range(6):
            p += u[c] * basis[b, c]
        for c in range(6):
            u[c] -= p * basis[b, c]
    n = 0.0
    for c in range(6):
        n += u[c] * u[c]
    return n


def _distance(points: np.ndarray, linf: bool, tol: float, max_vertices: int,
              axes: np.ndarray, vertices: np.ndarray, facet_vertices: np.ndarray,
              neighbours: np.ndarray, neighbour_slots: np.ndarray, planes: np.ndarray,
              alive: np.ndarray, tags: np.ndarray, heap_distances: np.ndarray,
              heap_facets: np.ndarray, stack: np.ndarray, visible: np.ndarray,
              horizon_facets: np.ndarray, horizon_slots: np.ndarray,
              horizon_beyond: np.ndarray, table_keys: np.ndarray, table_owners: np.ndarray,
              table_searches: np.ndarray, state: np.ndarray) -> tuple[float, int, int]:
    """Return (distance, status, vertices) of the origin to the set's boundary.

    Args:
        points: (K, E, 6) the contact wrenches.
        linf: L∞ (Minkowski sum) rather than L1 (hull of the union).
        tol: relative gap between the bounds at which the distance is taken.
        max_vertices: vertices of the polytope, at most (``LIMIT`` beyond: the lower bound).
        axes: (6, 6) orthonormal directions for the first simplex (generic ones).
        vertices ... state: the arrays of a ``workspace.Workspace``, in its order; arrays too
            small are replaced inside, their sizes noted in ``state`` for ``fitted``.

    Returns:
        The distance (0 unless ``OK`` or ``LIMIT``), the status and the vertices used.
    """
    # short names: the loops below read them on every line
    fv, fn, fm, fa, tag = facet_vertices, neighbours, neighbour_slots, planes, tags
    heap_d, heap_f = heap_distances, heap_facets
    hf, hr, hg = horizon_facets, horizon_slots, horizon_beyond
    table_key, table_owner, table_step = table_keys, table_owners, table_searches
    u, s, a = np.zeros(6), np.zeros(6), np.zeros(6)
    m = np.zeros((6, 7))
    center = np.zeros(6)
    # --- seven affinely independent support points
    basis = np.zeros((6, 6))
    _support(points, linf, axes[0], s)
    for c in range(6):
        vertices[0, c] = s[c]
    scale = 0.0
    for k in range(points.shape[0]):
        for j in range(points.shape[1]):
            v = 0.0
            for c in range(6):
                v += points[k, j, c] * points[k, j, c]
            scale = max(scale, np.sqrt(v))
    if scale == 0.0:
        return 0.0, LOWER_DIMENSIONAL, 0
    for dim in range(6):
        best = 0.0
        for axis in range(6):  # the axis farthest from the span so far
            for c in range(6):
                u[c] = axes[axis, c]
            n = _reject(u, basis, dim)
            if n > best:
                best = n
                for c in range(6):
                    a[c] = u[c]
        up = _support(points, linf, a, s)
        off_up = up
        for c in range(6):
            off_up -= a[c] * vertices[0, c]
            vertices[dim + 1, c] = s[c]
            u[c] = -a[c]
        down = _support(points, linf, u, s)
        off_down = down
        for c in range(6):
            off_down += a[c] * vertices[0, c]
        if off_down > off_up:
            for c in range(6):
                vertices[dim + 1, c] = s[c]
        if max(off_up, off_down) <= 1e-9 * scale * np.sqrt(best):
            return 0.0, LOWER_DIMENSIONAL, dim + 1
        for c in range(6):
            u[c] = vertices[dim + 1, c] - vertices[0, c]
        n = np.sqrt(_reject(u, basis, dim))
        if n <= 1e-9 * scale:
            return 0.0, LOWER_DIMENSIONAL, dim + 1
        for c in range(6):
            basis[dim, c] = u[c] / n
    for v in range(7):
        for c in range(6):
            center[c] += vertices[v, c] / 7.0
    # --- the simplex's facets, planes about the centroid
    cap = fv.shape[0]
    for j in range(7):
        slot = 0
        for q in range(7):
            if q != j:
                fv[j, slot] = q
                fn[j, slot] = q
                fm[j, slot] = j if j < q else j - 1  # where vertex j is in facet q
                slot += 1
        if not _plane(vertices, fv[j], center, a, m):
            return 0.0, DEGENERATE, 7
        for c in range(6):
            fa[j, c] = a[c]
        alive[j] = True
    nf, nv = 7, 7
    upper = np.inf  # the least support seen in a unit direction: epsilon is at most that
    nheap = 0  # entries in the heap (once inside: facets by distance)
    inside = False
    stamp = state[0]  # one per search for the visible facets (tag, the table)
    d = 0.0
    for step in range(4 * max_vertices):
        if not inside:
            # the facet the segment from the centroid to the origin leaves through
            k, reach = -1, -np.inf
            for f in range(nf):
                if alive[f]:
                    v = 0.0
                    for c in range(6):
                        v -= fa[f, c] * center[c]
                    if v > reach:
                        k, reach = f, v
            if reach < 1.0 - 1e-12:  # the origin is inside: planes about it from now on
                inside = True
                for f in range(nf):
                    if alive[f]:
                        v = 1.0
                        for c in range(6):
                            v += fa[f, c] * center[c]
                        n = 0.0
                        for c in range(6):
                            fa[f, c] /= v
                            n += fa[f, c] * fa[f, c]
                        _push(heap_d, heap_f, nheap, 1.0 / np.sqrt(n), f)
                        nheap += 1
                for c in range(6):
                    center[c] = 0.0
                continue
            n = 0.0
            for c in range(6):
                n += fa[k, c] * fa[k, c]
            n = np.sqrt(n)
            offset = 0.0
            for c in range(6):
                u[c] = fa[k, c] / n
                offset += u[c] * center[c]
            h = _support(points, linf, u, s)
            if h - offset <= (1.0 + 1e-9) / n:  # a facet of the set keeps the origin out
                return 0.0, ORIGIN_OUTSIDE, nv
        else:
            k = -1
            while nheap > 0:
                d, k = heap_d[0], heap_f[0]
                _pop(heap_d, heap_f, nheap)
                nheap -= 1
                if alive[k]:
                    break
                k = -1
            if k < 0:  # every facet is at least the least support away: that is it
                return (upper, OK, nv) if upper < np.inf else (d, DEGENERATE, nv)
            for c in range(6):
                u[c] = fa[k, c] * d
            h = _support(points, linf, u, s)
            upper = min(upper, h)  # the set's support in a unit direction bounds it above
            if upper - d <= tol * upper:
                return d, OK, nv
        if nv == max_vertices:
            return (d if inside else 0.0), LIMIT, nv
        if nv == vertices.shape[0]:
            vertices = _grown_float(vertices, min(2 * nv, max_vertices))
            state[1] = vertices.shape[0]
        for c in range(6):
            vertices[nv, c] = s[c]
            s[c] -= center[c]
        # the facets that see the new vertex (a connected region from k), their horizon;
        # no array is replaced inside the search (numba would count references each pass):
        # a full horizon stops it, and it runs again with room for twice as many
        while True:
            stamp += 1
            state[0] = stamp
            stack[0] = k
            top, nvis, nh = 1, 0, 0
            seen_in, seen_out = 2 * stamp + 1, 2 * stamp
            tag[k] = seen_in
            full = False
            while top > 0 and not full:
                top -= 1
                f = stack[top]
                visible[nvis] = f  # stack and visible hold each live facet once at most
                nvis += 1
                for r in range(6):
                    g = fn[f, r]
                    tg = tag[g]
                    if tg == seen_in:
                        continue
                    see = False
                    if tg != seen_out:
                        v = 0.0
                        for c in range(6):
                            v += fa[g, c] * s[c]
                        if v > 1.0 + 1e-12:
                            see = True
                        else:
                            tag[g] = seen_out
                    if see:
                        tag[g] = seen_in
                        stack[top] = g
                        top += 1
                    elif nh == hf.shape[0]:
                        full = True
                        break
                    else:
                        hf[nh], hr[nh], hg[nh] = f, r, g
                        nh += 1
            if not full:
                break
            hf = _grown_int(hf, 2 * nh, 0)
            hr = _grown_int(hr, 2 * nh, 0)
            hg = _grown_int(hg, 2 * nh, 0)
            state[3] = hf.shape[0]
        if nf + nh > cap:
            cap = 2 * (nf + nh)
            fv = _grown_int(fv, cap, 0)
            fn = _grown_int(fn, cap, 0)
            fm = _grown_int(fm, cap, 0)
            fa = _grown_float(fa, cap)
            grown = np.zeros(cap, np.bool_)
            grown[:nf] = alive[:nf]
            alive = grown
            tag = _grown_int(tag, cap, -1)
            heap_d = _grown_float(heap_d, cap)  # at most one entry per facet
            heap_f = _grown_int(heap_f, cap, 0)
            stack = _grown_int(stack, cap, 0)
            visible = _grown_int(visible, cap, 0)
            state[2] = cap
        size = 16
        while size < 10 * nh:
            size *= 2
        if table_key.shape[0] < size:
            table_key = np.zeros(size, np.int64)
            table_owner = np.zeros(size, np.int64)
            table_step = np.zeros(size, np.int64)
            state[4] = size
        paired = 0
        for e in range(nh):
            f, r, g = hf[e], hr[e], hg[e]
            new = nf + e
            # f's vertices but the one across from g, in order, then the new vertex (the
            # largest id): rows stay sorted, so a ridge's key is a shift, not a sort
            packed = 0
            for w in range(5):
                id_ = fv[f, w + (w >= r)]  # no branch on r: it is anywhere
                fv[new, w] = id_
                # int, not np.int64: the hash's product wraps in numba; in Python it
                # grows (np.int64 would warn of the overflow)
                packed |= int(id_) << (_ID_BITS * w)
            fv[new, 5] = nv
            t = fm[f, r]
            fn[new, 5], fm[new, 5] = g, t
            fn[g, t], fm[g, t] = new, 5
            # the plane through the ridge and the vertex: one of the pencil of f and g
            af, ag = 0.0, 0.0
            for c in range(6):
                af += fa[f, c] * s[c]
                ag += fa[g, c] * s[c]
            if af - ag > 1e-9 * af:
                alpha = (1.0 - ag) / (af - ag)
                for c in range(6):
                    a[c] = fa[g, c] + alpha * (fa[f, c] - fa[g, c])
            elif not _plane(vertices, fv[new], center, a, m):
                return d, DEGENERATE, nv
            n = 0.0
            for c in range(6):
                fa[new, c] = a[c]
                n += a[c] * a[c]
            if not (np.isfinite(n) and n > 0.0):
                return d, DEGENERATE, nv
            alive[new] = True
            if inside and n * upper * upper > 1.0:  # a facet beyond the least support
                # seen never needs expanding
                _push(heap_d, heap_f, nheap, 1.0 / np.sqrt(n), new)
                nheap += 1
            for q in range(5):  # each ridge through the new vertex joins two new facets
                # its key: the four other vertices' ids (all but slot q), packed in order
                low = packed & ((1 << (_ID_BITS * q)) - 1)
                key = low | ((packed >> (_ID_BITS * (q + 1))) << (_ID_BITS * q))
                # mix every id into the low bits: a plain product's low bits hold only the
                # smallest id, and ridges sharing it would probe in a line
                h = (key ^ (key >> 17) ^ (key >> 31)) * 0x2545F4914F6CDD1D
                h = (h ^ (h >> 32)) & (size - 1)
                while table_step[h] == stamp and table_key[h] != key:
                    h = (h + 1) & (size - 1)
                if table_step[h] != stamp:
                    table_step[h] = stamp
                    table_key[h] = key
                    table_owner[h] = new * 8 + q
                else:
                    other = table_owner[h]
                    fn[new, q], fm[new, q] = other >> 3, other & 7
                    fn[other >> 3, other & 7], fm[other >> 3, other & 7] = new, q
                    table_key[h] = -2  # paired: later keys probe past it
                    paired += 1
        if 2 * paired != 5 * nh:
            return d, DEGENERATE, nv
        for e in range(nvis):
            alive[visible[e]] = False
        nf += nh
        nv += 1
    return d, LIMIT, nv


@functools.cache
def kernel() -> Callable[..., Any]:
    """Return ``_distance`` compiled with numba (imported here, on first use), else as Python."""
    try:
        import numba  # here: see core.compiled on numba's memory
    except ImportError:
        _log.warning('numba is not installed: the grasp quality runs as Python, about 100 '
                     'times slower (pip install numba, or the python3-numba package)')
        return _distance
    global _support, _plane, _reject, _push, _pop, _grown_int, _grown_float
    # numpy error model: no zero-division checks (a zero divisor gives inf, caught as such)
    jit = functools.partial(numba.njit, cache=True, nogil=True, error_model='numpy')
    _support, _plane = jit(_support), jit(_plane)
    _reject = jit(_reject, inline='always')
    _push, _pop = jit(_push, inline='always'), jit(_pop, inline='always')
    _grown_int, _grown_float = jit(_grown_int), jit(_grown_float)
    return jit(_distance)
