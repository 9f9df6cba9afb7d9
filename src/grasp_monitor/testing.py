"""Scripted sample sequences for testing grasp monitors, without a simulator.

Every sequence is a deterministic generator of :class:`GraspSample` for a
gripper with a palm and two fingers (:data:`BODIES`, palm first). Sample ``i``
of a sequence is taken at ``start_s + i * period_s`` (computed, not summed,
so times are exact multiples); phases are given as durations, and a phase of
duration ``d`` holds ``round(d / period_s)`` samples. The helpers at the end
compose sequences: mark a window stale, shift or repeat times.

Depends on numpy and the core only, so installed code and tests can use it.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Iterable, Iterator, Sequence

from grasp_monitor.core.monitor import GraspSample
import numpy as np
import numpy.typing as npt

#: The scripted gripper's bodies, in sample order.
BODIES = ('palm', 'finger_left', 'finger_right')
#: Index of the palm in :data:`BODIES`.
PALM_INDEX = 0
#: Contact masks over :data:`BODIES`.
NO_CONTACT = (False, False, False)
PALM_ONLY = (True, False, False)
ONE_FINGER = (False, True, False)
TWO_FINGERS = (False, True, True)
#: Distances of the bodies from the base while nothing flies apart, m.
NEAR_BASE_M = (0.0, 0.05, 0.05)
#: A speed well above the 0.01 m/s still threshold, m/s.
MOVING_M_PER_S = 0.05


def make_sample(
    time_s: float,
    in_contact: npt.ArrayLike = NO_CONTACT,
    object_speed_m_per_s: float = 0.0,
    distances_from_base_m: npt.ArrayLike = NEAR_BASE_M,
    stale: bool = False,
    finger_speeds: npt.ArrayLike = (),
    age_s: float = 0.0,
) -> GraspSample:
    """Return one sample of the scripted gripper (palm index 0)."""
    return GraspSample(
        time_s=float(time_s), in_contact=np.asarray(in_contact, bool), palm_index=PALM_INDEX,
        object_speed_m_per_s=object_speed_m_per_s, finger_speeds=np.asarray(finger_speeds, float),
        distances_from_base_m=np.asarray(distances_from_base_m, float), stale=stale, age_s=age_s)


Phase = tuple[float, dict]


def phases(period_s: float, script: Sequence[Phase],
           start_s: float = 0.0) -> Iterator[GraspSample]:
    """Yield the samples of consecutive phases.

    Args:
        period_s: interval between samples, s.
        script: (duration_s, keyword arguments of :func:`make_sample` but time).
        start_s: time of the first sample, s.
    """
    index = 0
    for duration_s, values in script:
        for _ in range(int(round(duration_s / period_s))):
            yield make_sample(start_s + index * period_s, **values)
            index += 1


def never_contact(period_s: float = 0.001, duration_s: float = 3.0) -> Iterator[GraspSample]:
    """Yield samples where the gripper never touches the object, which rests still."""
    return phases(period_s, [(duration_s, {})])


def approach_then_grasp(period_s: float = 0.001, approach_s: float = 0.5,
                        settle_s: float = 0.05, hold_s: float = 1.0) -> Iterator[GraspSample]:
    """Yield an approach, a settling contact, then a still hold between both fingers.

    No contact for ``approach_s``; both fingers touch while the object still
    moves for ``settle_s``; then it holds still between the fingers for ``hold_s``.
    """
    return phases(period_s, [
        (approach_s, {}),
        (settle_s, {'in_contact': TWO_FINGERS, 'object_speed_m_per_s': MOVING_M_PER_S}),
        (hold_s, {'in_contact': TWO_FINGERS}),
    ])


def grasp_then_slip(period_s: float = 0.001, approach_s: float = 0.2, hold_s: float = 0.3,
                    fall_s: float = 1.5) -> Iterator[GraspSample]:
    """Yield an approach, a still hold, then the object falling out of the grasp.

    The hold lasts ``hold_s`` between both fingers; the fall (no contact,
    moving) lasts ``fall_s``.
    """
    return phases(period_s, [
        (approach_s, {}),
        (hold_s, {'in_contact': TWO_FINGERS}),
        (fall_s, {'object_speed_m_per_s': 0.5}),
    ])


def moving_object(period_s: float = 0.001, approach_s: float = 0.2,
                  contact_s: float = 6.0) -> Iterator[GraspSample]:
    """Yield contact of both fingers with an object that never stops moving."""
    return phases(period_s, [
        (approach_s, {}),
        (contact_s, {'in_contact': TWO_FINGERS, 'object_speed_m_per_s': MOVING_M_PER_S}),
    ])


def stale_sensor(period_s: float = 0.001, approach_s: float = 0.2, moving_s: float = 0.1,
                 stale_still_s: float = 1.0, stale_lost_s: float = 2.0,
                 after_s: float = 0.1) -> Iterator[GraspSample]:
    """Yield a stale stretch whose data would fire a grasp and then a slip-out.

    Contact while moving for ``moving_s``; stale samples of still two-finger
    contact for ``stale_still_s`` (a grasp, were they trusted), then stale
    samples without contact for ``stale_lost_s`` (a slip-out); then fresh
    moving contact for ``after_s``.
    """
    moving = {'in_contact': TWO_FINGERS, 'object_speed_m_per_s': MOVING_M_PER_S}
    return phases(period_s, [
        (approach_s, {}),
        (moving_s, moving),
        (stale_still_s, {'in_contact': TWO_FINGERS, 'stale': True}),
        (stale_lost_s, {'object_speed_m_per_s': 0.5, 'stale': True}),
        (after_s, moving),
    ])


def flying_apart(period_s: float = 0.001, fly_at_s: float = 0.3, duration_s: float = 0.5,
                 distance_m: float = 2.5) -> Iterator[GraspSample]:
    """Yield samples where the right finger is ``distance_m`` from the base from ``fly_at_s``.

    ``distance_m`` may be NaN (a diverged simulation).
    """
    return phases(period_s, [
        (fly_at_s, {}),
        (duration_s - fly_at_s, {'distances_from_base_m': (0.0, 0.05, distance_m)}),
    ])


def hardware_grasp(period_s: float = 0.002, approach_s: float = 0.2, closing_s: float = 0.1,
                   hold_s: float = 0.5) -> Iterator[GraspSample]:
    """Yield a grasp seen without ground truth: tactile pads and finger speeds only.

    Object speed NaN and no distances. The pads touch while the fingers still
    close at 0.02 m/s for ``closing_s``, then the fingers stop for ``hold_s``.
    """
    unknown = {'object_speed_m_per_s': float('nan'), 'distances_from_base_m': ()}
    return phases(period_s, [
        (approach_s, {**unknown, 'finger_speeds': (0.05, 0.05)}),
        (closing_s, {**unknown, 'in_contact': TWO_FINGERS, 'finger_speeds': (0.02, 0.02)}),
        (hold_s, {**unknown, 'in_contact': TWO_FINGERS, 'finger_speeds': (0.0, 0.0)}),
    ])


# -- composition -------------------------------------------------------------------------
def with_stale(samples: Iterable[GraspSample], from_s: float,
               until_s: float) -> Iterator[GraspSample]:
    """Mark the samples with ``from_s <= time_s < until_s`` stale."""
    for sample in samples:
        stale = from_s <= sample.time_s < until_s
        yield dataclasses.replace(sample, stale=True) if stale else sample


def shifted(samples: Iterable[GraspSample], offset_s: float) -> Iterator[GraspSample]:
    """Add ``offset_s`` to every time stamp."""
    for sample in samples:
        yield dataclasses.replace(sample, time_s=sample.time_s + offset_s)


def with_pause(samples: Iterable[GraspSample], at_s: float,
               repeats: int) -> Iterator[GraspSample]:
    """Repeat the sample at ``at_s`` ``repeats`` more times (time stands still)."""
    for sample in samples:
        yield sample
        if abs(sample.time_s - at_s) < 1e-12:
            yield from itertools.repeat(sample, repeats)


def time_reset(first: Iterable[GraspSample], second: Iterable[GraspSample],
               reset_at_s: float) -> Iterator[GraspSample]:
    """Yield ``first`` until ``reset_at_s`` (excluded), then ``second`` from its own start.

    Time jumps back, as at a simulator reset.
    """
    yield from itertools.takewhile(lambda sample: sample.time_s < reset_at_s, first)
    yield from second
