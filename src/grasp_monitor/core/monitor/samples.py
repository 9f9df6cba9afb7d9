"""What the monitor sees at one instant: :class:`GraspSample`."""

from __future__ import annotations

from dataclasses import dataclass
import functools
import itertools
import math
from typing import Any

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.slip_signals import SIGNALS
import numpy as np
import numpy.typing as npt


def _vector(value: npt.ArrayLike, dtype: type, name: str) -> np.ndarray:
    array: np.ndarray = np.array(value, dtype=dtype)
    if array.ndim != 1:
        raise ConfigError(f'{name} must be one-dimensional, got shape {array.shape}')
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class GraspSample:
    """What the monitor sees at one instant.

    Works with ground truth (simulation: object speed and body distances known)
    and without (hardware: contact from tactile pads, stillness from the finger
    joint speeds).

    Attributes:
        time_s: time stamp of the reading, s (sim or wall clock).
        in_contact: (B,) bool, robot body b touches the object (with at least
            1e-3 N, see ``trial.summarize_contacts``).
        palm_index: which of the B bodies is the palm; -1 when there is none.
        object_speed_m_per_s: speed of the object's COG, m/s; NaN when unknown
            (no ground truth).
        finger_speeds: (J,) finger joint speeds, rad/s or m/s per joint; used
            for stillness only when the object speed is unknown; may be empty.
        distances_from_base_m: (B,) distance of each robot body from the base
            body, m, NaN meaning infinitely far; empty when unknown.
        stale: the source flags the reading as stale.
        age_s: how old the reading is when the monitor gets it, s.
        pad_signals: (B, 5) each body's tactile slip signals (``slip_signals.SIGNALS``);
            empty when unknown.
        timeline: the timeline of the readings (``StampGrid.epoch``): one later than the
            trial's is a reset whatever the stamp (a restarted source heard late).
    """

    time_s: float
    in_contact: np.ndarray
    palm_index: int = -1
    object_speed_m_per_s: float = math.nan
    finger_speeds: np.ndarray = ()  # type: ignore[assignment]
    distances_from_base_m: np.ndarray = ()  # type: ignore[assignment]
    stale: bool = False
    age_s: float = 0.0
    pad_signals: np.ndarray = ()  # type: ignore[assignment]
    timeline: int = 0

    def __post_init__(self) -> None:
        if not math.isfinite(self.time_s):
            raise ConfigError(f'time_s must be finite, got {self.time_s}')
        mask = _vector(self.in_contact, bool, 'in_contact')
        object.__setattr__(self, 'in_contact', mask)
        n_bodies = mask.size
        if not -1 <= self.palm_index < n_bodies:
            raise ConfigError(
                f'palm_index must be -1 (no palm) or in [0, {n_bodies - 1}], '
                f'got {self.palm_index}')
        if self.object_speed_m_per_s < 0:
            raise ConfigError(
                f'object_speed_m_per_s must be >= 0 or NaN (unknown), '
                f'got {self.object_speed_m_per_s}')
        object.__setattr__(
            self, 'finger_speeds', _vector(self.finger_speeds, float, 'finger_speeds'))
        distances = _vector(self.distances_from_base_m, float, 'distances_from_base_m')
        if distances.size not in (0, n_bodies):
            raise ConfigError(
                f'distances_from_base_m must have 0 or {n_bodies} values (one per body), '
                f'got {distances.size}')
        object.__setattr__(self, 'distances_from_base_m', distances)
        signals = np.array(self.pad_signals, dtype=float)
        if signals.size and signals.shape != (n_bodies, len(SIGNALS)):
            raise ConfigError(f'pad_signals must be empty or ({n_bodies}, {len(SIGNALS)}) '
                              f'(one row per body), got shape {signals.shape}')
        signals.setflags(write=False)
        object.__setattr__(self, 'pad_signals', signals)
        if math.isnan(self.age_s):
            raise ConfigError('age_s must be a number of seconds, got nan')

    # Every event of a monitor reads these: computed once per sample (the values are frozen).
    @functools.cached_property
    def bodies_in_contact(self) -> int:
        """Number of robot bodies touching the object, palm included."""
        return int(np.count_nonzero(self.in_contact))

    @functools.cached_property
    def non_palm_in_contact(self) -> int:
        """Number of robot bodies other than the palm touching the object."""
        palm = self.palm_index >= 0 and bool(self.in_contact[self.palm_index])
        return self.bodies_in_contact - int(palm)

    def contact_count(self, count_palm: bool) -> int:
        """Return how many robot bodies touch the object, the palm only if ``count_palm``."""
        return self.bodies_in_contact if count_palm else self.non_palm_in_contact

    @functools.cached_property
    def farthest_from_base_m(self) -> float:
        """The largest of ``distances_from_base_m``, m: NaN if one is NaN, -inf if none."""
        distances = self.distances_from_base_m
        return float(distances.max()) if distances.size else -math.inf

    @classmethod
    def trusted_series(cls, time_s: np.ndarray, in_contact: np.ndarray,
                       object_speed_m_per_s: np.ndarray,
                       distances_from_base_m: np.ndarray,
                       palm_index: int = -1,
                       pad_signals: np.ndarray | None = None) -> list['GraspSample']:
        """Return T samples from arrays, unchecked: row t of each array is sample t.

        Only for values a caller computes itself from a simulation (the
        offline pipeline's blocks): finite increasing times, speeds >= 0 or
        NaN. Outside input goes through the constructor, which refuses bad
        values. No finger speeds, never stale.

        Args:
            time_s: (T,) time stamps, s.
            in_contact: (T, B) bool, robot body b touches the object.
            object_speed_m_per_s: (T,) the object's speed, m/s.
            distances_from_base_m: (T, B) each body's distance from the base, m.
            palm_index: which of the B bodies is the palm; -1 when there is none.
            pad_signals: (T, B, 5) each body's tactile slip signals (None: none).
        """
        in_contact = np.array(in_contact, dtype=bool)
        distances = np.array(distances_from_base_m, dtype=float)
        in_contact.setflags(write=False)
        distances.setflags(write=False)
        counts = np.count_nonzero(in_contact, axis=1)
        non_palm = (counts - in_contact[:, palm_index] if palm_index >= 0 else counts).tolist()
        counts = counts.tolist()
        farthest = (distances.max(axis=1) if distances.shape[1] else
                    np.full(distances.shape[0], -math.inf)).tolist()
        # Frozen: each sample's fields go straight into its instance, as __init__ would
        # set them, in one dict (half the cost of updating the instance's own).
        new, set_values = cls.__new__, object.__setattr__
        finger_speeds = _NO_FINGER_SPEEDS
        if pad_signals is None:
            rows: Any = itertools.repeat(_NO_PAD_SIGNALS)
        else:
            rows = np.array(pad_signals, dtype=float)
            rows.setflags(write=False)
        samples = []
        for stamp, contact, speed, distance, count, non_palm_count, far, signals in zip(
                time_s.tolist(), in_contact, object_speed_m_per_s.tolist(), distances, counts,
                non_palm, farthest, rows):
            sample = new(cls)
            set_values(sample, '__dict__', {
                'time_s': stamp, 'in_contact': contact, 'object_speed_m_per_s': speed,
                'distances_from_base_m': distance, 'bodies_in_contact': count,
                'non_palm_in_contact': non_palm_count, 'farthest_from_base_m': far,
                'palm_index': palm_index, 'finger_speeds': finger_speeds, 'stale': False,
                'age_s': 0.0, 'pad_signals': signals})
            samples.append(sample)
        return samples


#: The empty arrays of every sample ``GraspSample.trusted_series`` returns.
_NO_FINGER_SPEEDS = _vector((), float, 'finger_speeds')
_NO_PAD_SIGNALS = _vector((), float, 'pad_signals')
