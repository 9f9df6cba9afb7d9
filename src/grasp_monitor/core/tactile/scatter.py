"""Sums by sample of a block's contacts and slip from summed shares, in few numpy calls."""

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


def _sum_by_sample(sample: np.ndarray, rows: np.ndarray, samples: int) -> np.ndarray:
    """Return (S, C) the sums over each sample of the (C, K) ``rows`` (one bincount)."""
    width = rows.shape[0]
    bins = sample + np.arange(0, width * samples, samples)[:, None]
    return np.ascontiguousarray(np.bincount(
        bins.reshape(-1), rows.reshape(-1), minlength=samples * width).reshape(width, -1).T)


def _combine(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Return (3, K) ``sum_i weights[i] * rows[i]`` of (3, K) weights and (3, 3, K) rows."""
    out = rows[0] * weights[0]
    out += rows[1] * weights[1]
    out += rows[2] * weights[2]
    return out
