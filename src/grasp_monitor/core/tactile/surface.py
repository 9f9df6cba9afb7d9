"""A contact point moved onto the sensing surface, as mimoTouch does: ``on_surface_offset``."""

from __future__ import annotations

import numpy as np


def on_surface_offset(normal_into_pad: np.ndarray, distance_m: np.ndarray) -> np.ndarray:
    """Return (K, 3) what moves each contact point onto the pad's surface, m.

    MuJoCo's point lies midway between the surfaces: a penetration ``-distance_m``
    puts it half that deep inside the pad, along the normal. Separated surfaces
    (distance >= 0) leave it where it is.

    Args:
        normal_into_pad: (K, 3) unit contact normals pointing into the pad.
        distance_m: (K,) signed distances between the surfaces, m.
    """
    return normal_into_pad * (0.5 * np.minimum(distance_m, 0.0))[:, None]
