"""Slip as the simulator knows it: the sliding speed at the pads' contacts, the object's drift.

Read from the offline pipeline's recorded rows (``sim.offline.SensorLayout``): the
pads' contact sensors with ``linvel`` (a pad with ``slip`` on records it: the other
body's velocity relative to the pad, in the contact frame) and the bodies' poses.
A tick *slips* when a pad contact slides faster than ``SLIP_SPEED_M_PER_S``; the
grasp *slips grossly* once the object moved more than ``GROSS_SLIP_M`` relative
to the pads since the grasp was established (a reference row).
"""

from __future__ import annotations

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_conjugate, rotate
from grasp_monitor.sim.offline import SensorLayout
import numpy as np

#: A contact slides when its relative tangential speed exceeds this, m/s.
SLIP_SPEED_M_PER_S = 1e-3
#: The grasp slipped grossly once the object moved this far relative to the pads, m.
GROSS_SLIP_M = 2e-3


def tangential_speed(velocity_in_contact: np.ndarray) -> np.ndarray:
    """Return (K,) the speed across the contact of (K, 3) velocities in contact frames, m/s.

    A contact frame's first axis is the normal, the other two span the tangent plane.
    """
    return np.hypot(velocity_in_contact[:, 1], velocity_in_contact[:, 2])


def contact_slip_speed(layout: SensorLayout, record: np.ndarray) -> np.ndarray:
    """Return (S,) per recorded row the fastest relative tangential speed at a pad contact, m/s.

    0 where no pad touches anything. Every contact of the pads counts: the pads must
    touch only the object (as in pick_lift, where they meet nothing else).

    Raises:
        ConfigError: the layout records no contact velocities (no pad with ``slip`` on).
    """
    if not layout.velocities:
        raise ConfigError("slip ground truth needs the contact velocities: turn a pad's "
                          'slip setting on')
    inputs, _ = layout.contact_inputs(record)
    rows, velocity = inputs[1], inputs[-1]
    fastest = np.zeros(record.shape[0])
    np.maximum.at(fastest, rows, tangential_speed(velocity))
    return fastest


def object_in_pad(layout: SensorLayout, record: np.ndarray, object_body: str,
                  pad: int = 0) -> np.ndarray:
    """Return (S, 3) the position of ``object_body`` in pad ``pad``'s body frame, m.

    Raises:
        ConfigError: ``object_body`` has no ground truth in the layout.
    """
    if object_body not in layout.truth:
        raise ConfigError(f'{object_body!r} has no ground truth here; valid: '
                          f'{", ".join(layout.truth)}')
    _, position, quaternion = layout.pad_columns[pad]
    offset = record[:, layout.truth[object_body][0]] - record[:, position]
    return rotate(quat_conjugate(record[:, quaternion]), offset)


def drift_m(object_in_pad_m: np.ndarray, reference: int) -> np.ndarray:
    """Return (S,) how far the object moved in the pad frame since row ``reference``, m."""
    moved = object_in_pad_m - object_in_pad_m[reference]
    return np.sqrt(np.einsum('si,si->s', moved, moved))
