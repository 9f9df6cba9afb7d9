"""A sample the metrics take, and its reading as contacts on the object.

The reading is either the pads' contacts with the object (the simulator's:
points and forces in the world frame, the criteria as rostok defines them) or,
where only taxels exist, the tactile arrays of the pads (taxel positions and
the force on each taxel, in the pad frame): each loaded taxel is then taken as
a contact pushing -f on the object at its world position, whatever the pad
touches (an estimate).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from grasp_monitor.core.metrics.trial import ContactSummary, summarize_contacts
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.values import BodyState
import numpy as np

Sample = tuple  # (time_s, object, pads, reading: ('taxels' | 'contacts', arrays...))


def taxel_summary(pads: Sequence[BodyState], taxel_positions_in_pad: Sequence[np.ndarray],
                  taxel_forces_in_pad: Sequence[np.ndarray]) -> ContactSummary:
    """Summarise the loaded taxels as contacts on the object (the taxel estimate)."""
    rotations = quat_to_matrix(np.stack([pad.quaternion_in_world for pad in pads]))
    points = np.concatenate([
        positions @ rotation.T + pad.position_in_world
        for positions, rotation, pad in zip(taxel_positions_in_pad, rotations, pads)])
    forces_on_object = -np.concatenate([
        forces @ rotation.T for forces, rotation in zip(taxel_forces_in_pad, rotations)])
    body_index = np.concatenate([
        np.full(len(positions), i) for i, positions in enumerate(taxel_positions_in_pad)])
    return summarize_contacts(points, forces_on_object, body_index, 2)


def stamped(time_s: float, obj: BodyState, pads: Sequence[BodyState]
            ) -> tuple[BodyState, list[BodyState]]:
    """Return the readings of a sample as of its stamp, s."""
    return (dataclasses.replace(obj, time_s=time_s),
            [dataclasses.replace(pad, time_s=time_s) for pad in pads])
