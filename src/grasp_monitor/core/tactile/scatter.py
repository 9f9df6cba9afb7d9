"""A taxel's slip from the shares of the contacts that reach it (per-step and ``nearest``)."""

from __future__ import annotations

import numpy as np


def _slip(summed: np.ndarray, rows: np.ndarray | slice, out: np.ndarray) -> None:
    """Set ``out[rows]`` (m/s) to (normal force x velocity) / normal force, 0 without force.

    ``summed`` holds those two sums per row: (R, 4).
    """
    # 1 / load, 0 without load; then component by component: 1-D gathers and scatters
    # cost a third of row-wise ones
    scale = summed[:, 3].copy()
    loaded = scale > 0.0
    np.divide(1.0, scale, out=scale, where=loaded)
    scale[~loaded] = 0.0
    for component in range(3):
        out[:, component][rows] = summed[:, component] * scale
