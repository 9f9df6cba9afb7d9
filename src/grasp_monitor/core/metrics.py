"""Grasp metrics over a trial: the energy metric every sample, the criteria at the end.

Inputs are what a ROS graph carries: object and pad poses (ground truth) and
the tactile arrays of the pads (taxel positions and the force on each taxel,
in the pad frame). Taxels become contacts: a taxel carrying force f on the pad
is a contact pushing -f on the object at that taxel's world position.

Samples come stamped (on the monitor's grid) and the trial's bounds come as
the stamps of its first and last samples, so a trial holds exactly the
samples stamped within it, whichever arrives first: recent samples are kept
for a trial that opens late, and the end waits for the samples it covers.
"""

from __future__ import annotations

from collections import deque
import dataclasses
import math
from typing import Sequence

from grasp_monitor.core.criteria import (
    CriteriaConfig, CriteriaReport, CriteriaWeights, evaluate_criteria,
)
from grasp_monitor.core.energy import EnergySample, EnergyTracker, EnergyTrackerConfig
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.events import EventRecord, TIME_TOLERANCE_S
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


def _stamped(time_s: float, obj: BodyState, pads: Sequence[BodyState]
             ) -> tuple[BodyState, list[BodyState]]:
    """Return the readings of a sample as of its stamp, s."""
    return (dataclasses.replace(obj, time_s=time_s),
            [dataclasses.replace(pad, time_s=time_s) for pad in pads])


class TrialMetrics:
    """Energy every sample and criteria at the end of each trial."""

    def __init__(self, config: MetricsConfig, history: int = 1000) -> None:
        """Make the metrics; ``history`` samples are kept for a trial that opens late."""
        self.config = config
        self.tracker = EnergyTracker(EnergyTrackerConfig(
            (config.object_name,), config.object_mass_kg,
            np.asarray([config.object_inertia_kg_m2], float), config.pads,
            dt_s=config.sample_period_s))
        self.record: TrialRecord | None = None
        self.last_energy: EnergySample | None = None
        self.report: CriteriaReport | None = None
        self.report_trial_id = 0  # the trial of ``report``
        #: the samples of ``report``: how many, the first's and the last's stamps, s
        self.report_samples: tuple[int, float, float] = (0, math.nan, math.nan)
        self._history: deque[tuple] = deque(maxlen=history)  # samples of one timeline
        self._start_s = -math.inf
        self._end_s = math.inf
        self._energy_from_s = math.inf  # stamp of the sample the energy is referred to
        # Timelines (a simulator reset starts one) number the samples' time lines: the
        # latest sample's, the open trial's (None: the first sample's), and the one the
        # next trial opens on once a reset ended the last (None: any)
        self._timeline = 0
        self._trial_timeline: int | None = None
        self._next_timeline: int | None = None

    def start(self, trial_id: int, start_time_s: float = -math.inf, timeline: int | None = 0
              ) -> tuple[list[EnergySample], CriteriaReport | None]:
        """Open a trial of the samples stamped from ``start_time_s``, s, on ``timeline``.

        With ``energy_from='trial_start'`` the first of them sets the energy
        reference; with ``'grasp'`` the sample of the trial's grasp event does. A
        trial that opened when a reset ended the last one waits for a later
        timeline than that one's.

        Args:
            trial_id: the trial's id.
            start_time_s: stamp of its first sample, s.
            timeline: the latest timeline the inputs are on (None: none seen yet).

        Returns:
            The energy of the kept samples stamped since then, oldest first, and
            the criteria of an ended trial still waiting for its last samples.
        """
        report = self.finish() if self.record is not None and self._end_s < math.inf else None
        self.record = TrialRecord(2, trial_id, self.config.pads,
                                  start_time_s if math.isfinite(start_time_s) else None)
        self._start_s, self._end_s = start_time_s, math.inf
        self._energy_from_s = start_time_s if self.config.energy_from == 'trial_start' \
            else math.inf
        self.tracker.reset()
        self.last_energy = None
        known = [t for t in (timeline, self._next_timeline) if t is not None]
        self._trial_timeline = max(known) if known else None
        self._next_timeline = None
        energies = [self.update(*sample) for sample in self._kept(start_time_s)]
        return [energy for energy in energies if energy is not None], report

    def _kept(self, from_s: float) -> list[tuple]:
        """Return the kept samples of the open trial stamped from ``from_s``, s."""
        if self._trial_timeline != self._timeline:
            return []
        return [sample for sample in self._history
                if from_s - TIME_TOLERANCE_S <= sample[0] <= self._end_s + TIME_TOLERANCE_S]

    def end(self, end_time_s: float, time_reset: bool = False) -> CriteriaReport | None:
        """End the open trial at its last sample's stamp, s.

        Args:
            end_time_s: the stamp of the trial's last sample, s.
            time_reset: time went back; the next trial opens on a later timeline.

        Returns:
            The criteria, once every sample up to then is in (else :meth:`add`
            returns them when it is); None without samples.
        """
        if time_reset and self._trial_timeline is not None:
            self._next_timeline = self._trial_timeline + 1
        if self.record is None:
            return None
        self._end_s = end_time_s
        self.record.drop_after(end_time_s)  # samples taken before the end was known
        latest_s = self._history[-1][0] if self._history else -math.inf
        if self._trial_timeline is not None and self._timeline > self._trial_timeline or \
                latest_s >= end_time_s - TIME_TOLERANCE_S:
            return self.finish()
        return None

    def add(
        self, time_s: float, obj: BodyState, pads: Sequence[BodyState],
        taxel_positions_in_pad: Sequence[np.ndarray], taxel_forces_in_pad: Sequence[np.ndarray],
        timeline: int = 0,
    ) -> tuple[EnergySample | None, CriteriaReport | None]:
        """Take the sample stamped ``time_s``, s, on ``timeline``, kept for a later trial.

        Returns:
            Its energy if the open trial covers it, and the criteria if it
            completes an ended trial.
        """
        sample = (time_s, obj, pads, taxel_positions_in_pad, taxel_forces_in_pad)
        if timeline != self._timeline:
            self._history.clear()
            self._timeline = timeline
        self._history.append(sample)
        if self.record is not None and self._trial_timeline is None:
            self._trial_timeline = timeline
        if self.record is None or timeline < self._trial_timeline or \
                time_s < self._start_s - TIME_TOLERANCE_S:
            return None, None
        if timeline > self._trial_timeline:  # its timeline is over: no more samples
            return None, self.finish() if self._end_s < math.inf else None
        if time_s > self._end_s + TIME_TOLERANCE_S:
            return None, self.finish()
        energy = self.update(*sample)
        return energy, self.finish() if time_s >= self._end_s - TIME_TOLERANCE_S else None

    def update(
        self, time_s: float, obj: BodyState, pads: Sequence[BodyState],
        taxel_positions_in_pad: Sequence[np.ndarray], taxel_forces_in_pad: Sequence[np.ndarray],
    ) -> EnergySample | None:
        """Take one sample at ``time_s`` into the open trial; return the energy (None outside).

        The readings are taken as of ``time_s`` whatever their own stamps, so a
        reading that has not changed since the last sample counts as still true.
        """
        if self.record is None:
            return None
        obj, pads = _stamped(time_s, obj, pads)
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
        return self._energy(time_s, obj, pads)

    def _energy(self, time_s: float, obj: BodyState,
                pads: Sequence[BodyState]) -> EnergySample | None:
        """Return the energy of a stamped sample from the reference on, else None."""
        if time_s < self._energy_from_s - TIME_TOLERANCE_S:
            return None
        self.last_energy = self.tracker.update([obj], pads[0], pads[1])
        return self.last_energy

    def add_event(self, record: EventRecord) -> list[EnergySample]:
        """Note an event of the open trial (grasp and slip-out shape the criteria).

        With ``energy_from='grasp'`` the grasp's sample becomes the energy reference.

        Returns:
            The energy of the kept samples from the grasp on, oldest first (the
            samples may come before the grasp's record).
        """
        if self.record is None or record.trial_id != self.record.trial_id:
            return []
        self.record.add_event(record)
        if record.kind != 'grasp' or self.config.energy_from != 'grasp' or \
                math.isfinite(self._energy_from_s):
            return []
        self._energy_from_s = record.time_s
        self.tracker.reset()
        energies = [self._energy(sample[0], *_stamped(*sample[:3]))
                    for sample in self._kept(record.time_s)]
        return [energy for energy in energies if energy is not None]

    def finish(self) -> CriteriaReport | None:
        """Close the trial and evaluate its criteria (None without samples)."""
        record, self.record = self.record, None
        self._end_s = math.inf
        if record is None or len(record) == 0:
            return None
        self.report = evaluate_criteria(record, self.config.criteria, self.config.weights)
        self.report_trial_id = record.trial_id
        self.report_samples = (len(record), float(record.time_s[0]), float(record.time_s[-1]))
        return self.report
