"""Scatter-adds and sums by sample of a block's contacts, in as few numpy calls as may be."""

from __future__ import annotations

import numpy as np
from scipy.sparse import csc_array

#: Scatter-adds of at least this many terms go through a sparse product (fixed cost, then
#: cheap per term); fewer through ``np.bincount`` (cheap to start, dearer per term).
SPARSE_SCATTER_TERMS = 4096


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


def _scatter_add(row: np.ndarray, bounds: np.ndarray, weight: np.ndarray,
                 signal: np.ndarray, height: int) -> np.ndarray:
    """Return (height, width): ``out[row[t]] += weight[t] * signal[k]`` for contact k's terms.

    Args:
        row: (T,) output row of each term (int32 or int64, as ``bounds``).
        bounds: (K + 1,) contact k owns terms bounds[k]:bounds[k + 1].
        weight: (T,) weights.
        signal: (K, width) each contact's signal.
        height: rows of the output.
    """
    width = signal.shape[1]
    if weight.size * width < SPARSE_SCATTER_TERMS:
        scatter = row.astype(np.int64)[:, None] * width + np.arange(width)
        terms = weight[:, None] * np.repeat(signal, np.diff(bounds), axis=0)
        return np.bincount(scatter.reshape(-1), terms.reshape(-1),
                           minlength=height * width).reshape(height, width)
    # Column k of the (height, K) matrix holds contact k's weights at its rows.
    matrix = csc_array((weight, row, bounds), shape=(height, signal.shape[0]), copy=False)
    return matrix @ signal


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
