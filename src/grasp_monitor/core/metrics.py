"""Grasp metrics over a trial: the energy metric every sample, the criteria at the end.

Inputs are what a ROS graph carries: object and pad poses (ground truth) and
the tactile arrays of the pads (taxel positions and the force on each taxel,
in the pad frame). Taxels become contacts: a taxel carrying force f on the pad
is a contact pushing -f on the object at that taxel's world position.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from grasp_monitor.core.criteria import (
    CriteriaConfig, CriteriaReport, CriteriaWeights, evaluate_criteria,
)
from grasp_monitor.core.energy import EnergySample, EnergyTracker, EnergyTrackerConfig
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.events import EventRecord
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.trial import summarize_contacts, TrialRecord
from grasp_monitor.core.values import BodyState
import numpy as np


#: When the energy metric takes its reference (see ``MetricsConfig.energy_from``).
ENERGY_REFERENCES = ('trial_start', 'grasp')


@dataclasses.dataclass(frozen=True)
class MetricsConfig:
    """What the metrics are computed on.

    Attributes:
        object_name: the grasped object.
        pads: the (left, right) gripper pads; also the robot bodies of the criteria.
        object_mass_kg: mass of the object, kg.
        object_inertia_kg_m2: (3,) principal moments of inertia about its COG, kg·m².
        sample_period_s: nominal interval between samples, s.
        criteria: constants of the criteria.
        weights: weights of the total reward.
        energy_from: when the energy metric takes its reference pose of the object in
            each pad: ``trial_start`` (the benchmark's case: the object held from the
            start) or ``grasp`` (a pick: before the grasp the object is not in the hand,
            so no energy is reported, and the grasp event sets the reference).
    """

    object_name: str
    pads: tuple[str, str]
    object_mass_kg: float
    object_inertia_kg_m2: tuple[float, float, float]
    sample_period_s: float = 0.01
    criteria: CriteriaConfig = CriteriaConfig()
    weights: CriteriaWeights = CriteriaWeights()
    energy_from: str = 'trial_start'

    def __post_init__(self) -> None:
        object.__setattr__(self, 'pads', tuple(self.pads))
        if self.energy_from not in ENERGY_REFERENCES:
            raise ConfigError(f'energy_from must be one of {", ".join(ENERGY_REFERENCES)}, '
                              f'got {self.energy_from!r}')
        if len(self.pads) != 2:
            raise ConfigError(f'pads must be two names (left, right), got {list(self.pads)}')
        if not self.object_mass_kg > 0:
            raise ConfigError(f'object_mass_kg must be > 0, got {self.object_mass_kg}')
        if not self.sample_period_s > 0:
            raise ConfigError(f'sample_period_s must be > 0, got {self.sample_period_s}')


class TrialMetrics:
    """Energy every sample and criteria at the end of each trial."""

    def __init__(self, config: MetricsConfig) -> None:
        self.config = config
        self.tracker = EnergyTracker(EnergyTrackerConfig(
            (config.object_name,), config.object_mass_kg,
            np.asarray([config.object_inertia_kg_m2], float), config.pads,
            dt_s=config.sample_period_s))
        self.record: TrialRecord | None = None
        self.last_energy: EnergySample | None = None
        self.report: CriteriaReport | None = None
        self._energy_on = False

    def start(self, trial_id: int) -> None:
        """Open a trial: a fresh record; the next sample sets the energy reference.

        With ``energy_from='grasp'`` the energy waits for the trial's grasp event.
        """
        self.record = TrialRecord(2, trial_id, self.config.pads)
        self.tracker.reset()
        self.last_energy = None
        self._energy_on = self.config.energy_from == 'trial_start'

    def update(
        self, time_s: float, obj: BodyState, pads: Sequence[BodyState],
        taxel_positions_in_pad: Sequence[np.ndarray], taxel_forces_in_pad: Sequence[np.ndarray],
    ) -> EnergySample | None:
        """Take one sample at ``time_s``; return the energy (None outside a trial).

        The readings are taken as of ``time_s`` whatever their own stamps, so a
        reading that has not changed since the last sample counts as still true.
        """
        if self.record is None:
            return None
        obj = dataclasses.replace(obj, time_s=time_s)
        pads = [dataclasses.replace(pad, time_s=time_s) for pad in pads]
        rotations = quat_to_matrix(np.stack([pad.quaternion_in_world for pad in pads]))
        points = np.concatenate([
            positions @ rotation.T + pad.position_in_world
            for positions, rotation, pad in zip(taxel_positions_in_pad, rotations, pads)])
        forces_on_object = -np.concatenate([
            forces @ rotation.T for forces, rotation in zip(taxel_forces_in_pad, rotations)])
        body_index = np.concatenate([
            np.full(len(positions), i) for i, positions in enumerate(taxel_positions_in_pad)])
        summary = summarize_contacts(points, forces_on_object, body_index, 2)
        self.record.append(time_s, obj.position_in_world, obj.linear_velocity_in_world,
                           summary)
        if not self._energy_on:
            return None
        self.last_energy = self.tracker.update([obj], pads[0], pads[1])
        return self.last_energy

    def add_event(self, record: EventRecord) -> None:
        """Note an event of the open trial (grasp and slip-out shape the criteria)."""
        if self.record is not None and record.trial_id == self.record.trial_id:
            self.record.add_event(record)
            if record.kind == 'grasp' and self.config.energy_from == 'grasp':
                self.tracker.reset()  # the next sample is the object's pose in the hand
                self._energy_on = True

    def finish(self) -> CriteriaReport | None:
        """Close the trial and evaluate its criteria (None without samples)."""
        record, self.record = self.record, None
        if record is None or len(record) == 0:
            return None
        self.report = evaluate_criteria(record, self.config.criteria, self.config.weights)
        return self.report
