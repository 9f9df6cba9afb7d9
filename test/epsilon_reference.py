"""The reference epsilon: scipy's ConvexHull of the contact wrenches, straightforward.

L1: the hull of every contact wrench; L∞: the hull of the Minkowski sum of each
contact's wrenches and the origin, built one contact at a time (sums of the hull's
vertices so far with the next contact's wrenches), so only for a few contacts. Epsilon
is the smallest facet offset, 0 when the origin is not strictly inside or the wrenches
span fewer than 6 dimensions.
"""

import numpy as np
from scipy.spatial import ConvexHull, QhullError


def _hull(points):
    try:
        return ConvexHull(points)
    except QhullError:  # flat: fewer than 6 dimensions
        return None


def _offset(hull):
    if hull is None:
        return 0.0
    # each facet: normal·x + offset <= 0 inside; the origin's distance is -offset
    return max(0.0, float(-hull.equations[:, -1].max()))


def epsilon_l1(wrenches):
    """Return the L1 epsilon of (K, E, 6) contact wrenches."""
    return _offset(_hull(np.asarray(wrenches, float).reshape(-1, 6)))


def epsilon_linf(wrenches):
    """Return the L∞ epsilon of (K, E, 6) contact wrenches (a few contacts only)."""
    wrenches = np.asarray(wrenches, float)
    zero = np.zeros((wrenches.shape[0], 1, 6))
    wrenches = np.concatenate([zero, wrenches], axis=1)  # each normal force from 0 to 1
    points = wrenches[0]
    for contact in wrenches[1:]:
        points = (points[:, None, :] + contact[None, :, :]).reshape(-1, 6)
        hull = _hull(points)
        if hull is not None:  # flat sums so far are kept whole
            points = points[hull.vertices]
    return _offset(_hull(points))


def random_grasp(rng, contacts, radius_m=0.05):
    """Return points (K, 3) on a sphere about the origin and their inward normals."""
    directions = rng.normal(size=(contacts, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return radius_m * directions, -directions
