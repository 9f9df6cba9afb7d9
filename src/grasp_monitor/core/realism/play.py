"""The play operator (backlash, and hysteresis of the simplest kind) over frames."""

from __future__ import annotations

import numpy as np


def play(inputs: np.ndarray, state: np.ndarray, half_width: float) -> np.ndarray:
    """Run the play operator of half-width ``r`` over frames, updating ``state`` in place.

    Each output follows its input only once the input leaves the band of
    half-width ``r`` around it: ``y[s] = clip(y[s - 1], x[s] - r, x[s] + r)``.
    Rising and falling branches are ``2 r`` apart (the loop's width).

    Args:
        inputs: (S, ...) inputs of S consecutive frames.
        state: (...) output of the frame before the first; overwritten with the last.
        half_width: r >= 0, in the inputs' units.

    Returns:
        (S, ...) outputs, float.
    """
    outputs = np.empty(inputs.shape, dtype=float)
    low = inputs - half_width
    high = inputs + half_width
    # A loop over frames, vector ops over everything else: each frame needs the last.
    # maximum and minimum, not clip: clip's checks cost more than its work here.
    for frame in range(inputs.shape[0]):
        np.maximum(state, low[frame], out=state)
        np.minimum(state, high[frame], out=outputs[frame])
        state[...] = outputs[frame]
    return outputs
