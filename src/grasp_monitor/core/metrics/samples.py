"""A sample the metrics take, and its reading as contacts on the object.

The reading is either the pads' contacts with the object (the simulator's:
points and forces in the world frame, the criteria as rostok defines them) or,
where only taxels exist, the tactile arrays of the pads (taxel positions and
the force on each taxel, in the pad frame): each loaded taxel is then taken as
a contact pushing -f on the object at its world position, whatever the pad
touches (an estimate).
"""

from __future__ import annotations

from typing import Sequence

from grasp_monitor.core.metrics.trial import (
    ContactSummary, MIN_CONTACT_FORCE_N, summarize_contacts)
from grasp_monitor.core.quality import EpsilonConfig, grasp_quality, GraspQuality
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.values import BodyState
import numpy as np

Sample = tuple  # (time_s, object, pads, reading: ('taxels' | 'contacts', arrays...), quality)


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


def contacts_quality(obj: BodyState, points_in_world: np.ndarray,
                     forces_on_object_in_world: np.ndarray,
                     normals_in_world: np.ndarray | None,
                     config: EpsilonConfig) -> GraspQuality:
    """Return the epsilon (``config.variant``) of the contacts of ``MIN_CONTACT_FORCE_N`` on.

    Normals point into the object; without them, each force's direction stands in.
    """
    forces = np.asarray(forces_on_object_in_world, float).reshape(-1, 3)
    keep = np.einsum('ki,ki->k', forces, forces) >= MIN_CONTACT_FORCE_N ** 2
    normals = forces if normals_in_world is None else np.asarray(normals_in_world, float)
    return grasp_quality(np.asarray(points_in_world, float).reshape(-1, 3)[keep],
                         normals.reshape(-1, 3)[keep], obj.position_in_world, config,
                         (config.variant,), forces[keep])


def taxel_quality(obj: BodyState, pads: Sequence[BodyState],
                  taxel_positions_in_pad: Sequence[np.ndarray],
                  taxel_forces_in_pad: Sequence[np.ndarray],
                  config: EpsilonConfig) -> GraspQuality:
    """Return the epsilon of the loaded taxels taken as contacts (an estimate).

    A taxel's normal is its pad's z axis, turned the way its force pushes the object.
    Of each pad's loaded taxels only the extreme ones in the pad plane are kept (along
    x, y and the diagonals): the L1 wrenches of a flat patch's inner taxels are mixtures
    of those of its rim, so they add nothing but time.
    """
    points, normals = [], []
    for pad, positions, forces in zip(pads, taxel_positions_in_pad, taxel_forces_in_pad):
        positions = np.asarray(positions, float).reshape(-1, 3)
        forces = np.asarray(forces, float).reshape(-1, 3)
        loaded = np.flatnonzero(np.einsum('ki,ki->k', forces, forces)
                                >= MIN_CONTACT_FORCE_N ** 2)
        if loaded.size == 0:
            continue
        x, y = positions[loaded, 0], positions[loaded, 1]
        rim = np.unique(loaded[[f(v) for v in (x, y, x + y, x - y)
                                for f in (np.argmin, np.argmax)]])
        rotation = quat_to_matrix(pad.quaternion_in_world)
        points.append(positions[rim] @ rotation.T + pad.position_in_world)
        # the force on the object is -f: its normal part pushes along -sign(f_z) z
        normals.append(-np.sign(forces[rim, 2])[:, None] * rotation[:, 2][None, :])
    if not points:
        return grasp_quality(np.zeros((0, 3)), np.zeros((0, 3)), obj.position_in_world,
                             config, (config.variant,))
    return grasp_quality(np.concatenate(points), np.concatenate(normals),
                         obj.position_in_world, config, (config.variant,))


def stamped(time_s: float, obj: BodyState, pads: Sequence[BodyState]
            ) -> tuple[BodyState, list[BodyState]]:
    """Return the readings of a sample as of its stamp, s."""
    return obj.at(time_s), [pad.at(time_s) for pad in pads]
