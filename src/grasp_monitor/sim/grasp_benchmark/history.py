"""The frame sensors' samples in MuJoCo's history buffer, read a block at a time.

Each sensor of ``with_frame_sensors`` keeps a block of samples, which ``mj_step`` fills at
every step without Python. ``mj_step`` computes the sensors before it integrates, so the
sample of step i holds the state at ``t_i = i dt`` the step started from, and is stamped so.
"""

from __future__ import annotations

from grasp_monitor.core.compiled import Compiled, float_array
from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.sim.frame_sensors import FRAME_SENSORS
import mujoco
import numpy as np


def _first_kept_slot(history: np.ndarray, cursors: np.ndarray, stamps: np.ndarray,
                     times: np.ndarray) -> int:
    """Return the ring slot of the sample of ``times[0]``, or -1 if any time has none.

    The ring's slots run oldest first from the one after the cursor; the
    samples of ``times`` must be consecutive there, each stamped with its
    time (to 1e-6 relative), and every sensor's cursor the same (sampled
    together). One compiled pass: the same checks as numpy calls would cost
    more than the block's energies, each call slowed by the cache that
    stepping took.
    """
    n, count = stamps.shape[0], times.shape[0]
    cursor = history[cursors[0]]
    for i in range(cursors.shape[0]):
        if history[cursors[i]] != cursor:
            return -1
    if count == 0 or count > n:
        return -1
    largest = 1.0
    for i in range(count):
        largest = max(largest, abs(times[i]))
    tolerance = 1e-6 * largest
    oldest = int(cursor) + 1
    start = 0  # the first kept sample not older than times[0] (stamps rise along the ring)
    while start < n and stamps[(oldest + start) % n] < times[0] - tolerance:
        start += 1
    if start + count > n:
        return -1
    for i in range(count):
        if not abs(stamps[(oldest + start + i) % n] - times[i]) <= tolerance:
            return -1
    return (oldest + start) % n


_FIRST_KEPT_SLOT = Compiled(_first_kept_slot, lambda nb: nb.int64(
    float_array(nb, 1), nb.types.Array(nb.int64, 1, 'A', readonly=True), float_array(nb, 1),
    float_array(nb, 1)))


class FrameHistory:
    """Reads the samples MuJoCo kept of the ``with_frame_sensors`` sensors, a block at a time.

    MuJoCo inserts every sensor's value, stamped with the time of the state it
    was computed from, into its history buffer at every step (``nsample``
    samples, oldest overwritten; each buffer is ``[tick, cursor, times,
    values]``, ``cursor`` the newest slot). Reading them after a block
    replaces a Python copy of ``sensordata`` per step.

    Args:
        model: the model with the sensors, each keeping ``nsample`` > 0 samples.
        history: its ``MjData.history``.
        objects: the number of objects (the sensors of ``objects + 2`` bodies
            are the model's last ones).

    Raises:
        ConfigError: if the model's last sensors are not those, or keep no samples.
    """

    def __init__(self, model: mujoco.MjModel, history: np.ndarray, objects: int) -> None:
        bodies = objects + 2
        ids = np.arange(model.nsensor - len(FRAME_SENSORS) * bodies, model.nsensor)
        kinds = [getattr(mujoco.mjtSensor, f'mjSENS_{kind.upper()}') for kind, _ in FRAME_SENSORS]
        nsample = model.sensor_history[ids, 0] if ids.size and ids[0] >= 0 else np.zeros(1)
        if (ids.size == 0 or ids[0] < 0
                or list(model.sensor_type[ids]) != kinds * bodies
                or not np.all(nsample == nsample[0]) or nsample[0] < 1):
            raise ConfigError('the last sensors of the model must be the frame sensors of '
                              'with_frame_sensors, each keeping nsample > 0 samples')
        self.nsample = n = int(nsample[0])
        self.objects = objects
        self.width = int(model.sensor_dim[ids].sum())
        start = model.sensor_historyadr[ids].reshape(bodies, len(FRAME_SENSORS))
        # One body's buffers follow another's at a fixed distance: each kind of
        # sensor is then one strided (bodies, n, width) view of the history.
        group = start[1:, 0] - start[:-1, 0] if bodies > 1 else np.zeros(0, int)
        if np.any(start - start[:, :1] != start[0] - start[0, 0]) or np.any(group != group[:1]):
            raise ConfigError('the frame sensors of with_frame_sensors are not laid out '
                              'body after body')
        stride = history.strides[0]
        body_stride = int(group[0]) * stride if bodies > 1 else 0
        self._values = [np.lib.stride_tricks.as_strided(
            history[int(start[0, j]) + 2 + n:], (bodies, n, width),
            (body_stride, width * stride, stride), writeable=False)
            for j, (_, width) in enumerate(FRAME_SENSORS)]
        self._history = history
        self._cursors = (start.ravel() + 1).astype(np.int64)
        self._stamps = history[int(start[0, 0]) + 2:int(start[0, 0]) + 2 + n]
        _FIRST_KEPT_SLOT.compiled  # now, not in the first read

    def read(self, times: np.ndarray) -> tuple[np.ndarray, ...]:
        """Return the samples of the states at ``times`` (N,) as ``update_block`` arrays.

        Samples are found by their stamps (MuJoCo keeps them in time order: it
        files none older than the newest). Samples in one run of the ring come
        as views of the history, valid until the next step. The arrays are those of
        ``split_frame_sensors``: the objects' position, quaternion, linear and
        angular velocity, then the pads'.

        Raises:
            SimulationError: if a sample is not kept (any more), or the
                sensors were not sampled together.
        """
        n, count = self.nsample, times.size
        first = _FIRST_KEPT_SLOT(self._history, self._cursors, self._stamps, times)
        if first < 0:
            cursors = self._history[self._cursors]
            together = bool(np.all(cursors == cursors[0]))
            span = f'{times[0]:.4f}..{times[-1]:.4f} s' if count else 'no time'
            raise SimulationError(f'the frame sensors hold no samples of t = {span} '
                                  f'(kept: {n}, together: {together})')
        k = self.objects
        if first + count <= n:  # one run of the ring: views, valid until the next step
            kept = slice(first, first + count)
            fields = [values[:, kept].swapaxes(0, 1) for values in self._values]
            return (*(f[:, :k] for f in fields), *(f[:, k:] for f in fields))
        # Two runs around the ring's end: copies.
        split = n - first
        runs = ((slice(0, split), slice(first, n)), (slice(split, count), slice(0, count - split)))
        fields = []
        for values in self._values:
            # Body by body: each a contiguous run of the buffer, copied as one.
            field = np.empty((values.shape[0], count, values.shape[2]))
            for out, kept in runs:
                field[:, out] = values[:, kept]
            fields.append(field.swapaxes(0, 1))
        return (*(f[:, :k] for f in fields), *(f[:, k:] for f in fields))
