"""A trial's epsilon series in three numbers, as the offline run and the demo report it."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
import numpy.typing as npt

#: Times within this of each other are the same sample, s.
_SAME_S = 1e-9


def epsilon_summary(times_s: npt.ArrayLike, values: npt.ArrayLike,
                    grasp_s: Optional[float]) -> dict[str, float]:
    """Return epsilon at the grasp, its peak, and its mean from the grasp on.

    Args:
        times_s: (N,) stamps of the samples, s, in order.
        values: (N,) epsilon of each sample.
        grasp_s: the grasp's stamp, s (None: no grasp; at_grasp and the mean are NaN).

    Returns:
        ``at_grasp`` (the first sample at or after the grasp), ``peak`` (over every
        sample), ``mean_after_grasp`` (the force test follows the grasp),
        ``min_after_grasp`` (its least: how far a load lowers it), ``samples``.
    """
    times = np.asarray(times_s, float).reshape(-1)
    eps = np.asarray(values, float).reshape(-1)
    summary = {'at_grasp': math.nan, 'peak': float(eps.max()) if eps.size else math.nan,
               'mean_after_grasp': math.nan, 'min_after_grasp': math.nan,
               'samples': float(eps.size)}
    if grasp_s is not None:
        after = np.flatnonzero(times >= grasp_s - _SAME_S)
        if after.size:
            summary['at_grasp'] = float(eps[after[0]])
            summary['mean_after_grasp'] = float(eps[after].mean())
            summary['min_after_grasp'] = float(eps[after].min())
    return summary
