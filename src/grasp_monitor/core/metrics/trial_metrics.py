"""Grasp metrics over a trial: the energy metric every sample, the criteria at the end.

Inputs are what a ROS graph carries: object and pad poses (ground truth) and
either the pads' contacts with the object or the pads' tactile arrays
(``samples``), stamped on numbered timelines (``timelines`` places each trial).
Every sample given also has its grasp quality (``core.quality``: the Ferrari–Canny
epsilon of its contacts about the object's centre of mass), in or out of a trial.
"""

from __future__ import annotations

import math
from typing import Sequence

from grasp_monitor.core.energy import EnergySample, EnergyTracker, EnergyTrackerConfig
from grasp_monitor.core.metrics.config import MetricsConfig
from grasp_monitor.core.metrics.criteria import CriteriaReport, evaluate_criteria
from grasp_monitor.core.metrics.samples import (
    contacts_quality, Sample, stamped, taxel_quality, taxel_summary)
from grasp_monitor.core.metrics.timelines import (
    add_sample, complete, place, Timeline, TIMELINE_SLACK_S, Trial)
from grasp_monitor.core.metrics.trial import summarize_contacts, TrialRecord
from grasp_monitor.core.monitor import EventRecord, TIME_TOLERANCE_S
from grasp_monitor.core.quality import GraspQuality
from grasp_monitor.core.values import BodyState
import numpy as np


class TrialMetrics:
    """Energy every sample and criteria at the end of each trial."""

    def __init__(self, config: MetricsConfig, history: int = 1000) -> None:
        """Make the metrics; ``history`` samples per timeline are kept for late records."""
        self.config = config
        self.history = history
        self.last_energy: EnergySample | None = None
        #: the stamp, s, and the grasp quality of the last sample given (None before one)
        self.last_quality: tuple[float, GraspQuality] | None = None
        self.report: CriteriaReport | None = None
        self.report_trial_id = 0  # the trial of ``report``
        #: the samples of ``report``: how many, the first's and the last's stamps, s
        self.report_samples: tuple[int, float, float] = (0, math.nan, math.nan)
        #: the reason of the monitor's trial_end of ``report`` ('time_reset', ...; '' none)
        self.report_end_reason = ''
        self._timelines: list[Timeline] = []  # the latest three
        self._trials: list[Trial] = []  # opened, or ended and waiting for samples
        self._previous: Trial | None = None  # the trial started last
        self._last_record_s = -math.inf
        self._reset_seen = False  # a reset ended the last trial

    def _tracker(self) -> EnergyTracker:
        config = self.config
        return EnergyTracker(EnergyTrackerConfig(
            (config.object,), config.object_mass,
            np.asarray([config.object_inertia], float), config.pads,
            dt_s=config.energy_dt, desired_velocity=config.energy_desired_velocity))

    @property
    def record(self) -> TrialRecord | None:
        """The record of the open trial (None between trials)."""
        if self._trials and self._trials[-1].end_s == math.inf:
            return self._trials[-1].record
        return None

    def start(self, trial_id: int, start_time_s: float = -math.inf,
              reset_from_s: float = -math.inf
              ) -> tuple[list[EnergySample], list[CriteriaReport]]:
        """Open a trial of the samples stamped from ``start_time_s``, s.

        With ``energy_from='trial_start'`` its first sample sets the energy
        reference; with ``'grasp'`` the sample of its grasp event does. An open
        trial without an end is dropped (its monitor restarted). ``reset_from_s``
        is where the monitor last saw time go back from, s, before the trial
        (-inf: never): the trial is on the timeline that reset opened, which
        this node may not have seen yet.

        Returns:
            The energy of the kept samples of the trial, oldest first, and the
            criteria of ended trials this completes.
        """
        separated = self._reset_seen or start_time_s < self._last_record_s - TIMELINE_SLACK_S
        self._reset_seen, self._last_record_s = False, start_time_s
        self._trials = [trial for trial in self._trials if trial.end_s < math.inf]
        if self._previous is not None:
            self._previous.after = None  # one trial back is enough to place the next
        trial = Trial(
            TrialRecord(2, trial_id, self.config.pads,
                        start_time_s if math.isfinite(start_time_s) else None),
            start_time_s, self._tracker(),
            start_time_s if self.config.energy_from == 'trial_start' else math.inf,
            self._previous, separated, reset_from_s)
        self._trials.append(trial)
        while len(self._trials) > 3:  # ended long ago, their timeline never came: close
            self._finish(self._trials.pop(0))
        self._previous = trial
        self.last_energy = None
        return self._settle()

    def end(self, end_time_s: float, time_reset: bool = False
            ) -> tuple[list[EnergySample], list[CriteriaReport]]:
        """End the open trial at its last sample's stamp, s.

        Args:
            end_time_s: the stamp of the trial's last sample, s.
            time_reset: time went back: the trial's timeline ended, and the next
                trial is on a later one.

        Returns:
            The energy of samples it placed, and the criteria of the trials
            complete (every sample up to their end is in); :meth:`add` returns
            those of a trial whose samples are still to come.
        """
        self._last_record_s = max(self._last_record_s, end_time_s)
        self._reset_seen = time_reset
        trial = self._trials[-1] if self._trials else None
        if trial is None or trial.end_s < math.inf:
            return [], []
        trial.end_s, trial.reset_end = end_time_s, time_reset
        # a reset ended it before any sample came: the records of a past timeline (a
        # late subscriber's), whose samples this node never had
        trial.before_known = time_reset and trial.timeline is None and not self._timelines
        trial.record.drop_after(end_time_s)  # samples taken before the end was known
        return self._settle()

    def add(
        self, time_s: float, obj: BodyState, pads: Sequence[BodyState],
        taxel_positions_in_pad: Sequence[np.ndarray], taxel_forces_in_pad: Sequence[np.ndarray],
        timeline: int = 0,
    ) -> tuple[list[EnergySample], list[CriteriaReport]]:
        """Take the sample stamped ``time_s``, s, on ``timeline`` (numbers only grow).

        Returns:
            The energy of the samples it adds to trials (itself, or kept ones of
            a trial it placed), and the criteria of the trials it completes.
        """
        return self._add((time_s, obj, pads,
                          ('taxels', taxel_positions_in_pad, taxel_forces_in_pad)), timeline)

    def add_contacts(
        self, time_s: float, obj: BodyState, pads: Sequence[BodyState],
        points_in_world: np.ndarray, forces_on_object_in_world: np.ndarray,
        pad_index: np.ndarray, timeline: int = 0, normals_in_world: np.ndarray | None = None,
    ) -> tuple[list[EnergySample], list[CriteriaReport]]:
        """As :meth:`add`, from the pads' contacts with the object.

        Args:
            time_s: the sample's stamp, s.
            obj: the object's ground truth.
            pads: the (left, right) pads' ground truth.
            points_in_world: (K, 3) contact points, m.
            forces_on_object_in_world: (K, 3) force of each contact on the object, N.
            pad_index: (K,) the pad (0 left, 1 right) making each contact.
            timeline: as :meth:`add`.
            normals_in_world: (K, 3) contact normals into the object (None: the forces'
                directions stand in, for the grasp quality).
        """
        reading = ('contacts', points_in_world, forces_on_object_in_world, pad_index,
                   normals_in_world)
        return self._add((time_s, obj, pads, reading), timeline)

    def _quality(self, obj: BodyState, pads: Sequence[BodyState],
                 reading: tuple) -> GraspQuality:
        if reading[0] == 'contacts':
            return contacts_quality(obj, reading[1], reading[2], reading[4],
                                    self.config.epsilon)
        return taxel_quality(obj, pads, *reading[1:], self.config.epsilon)

    def _add(self, sample: Sample, timeline: int
             ) -> tuple[list[EnergySample], list[CriteriaReport]]:
        time_s = sample[0]
        quality = self._quality(*sample[1:])
        self.last_quality = (time_s, quality)
        sample = (*sample, quality)
        self._timelines = add_sample(self._timelines, sample, timeline, self.history)
        energies = []
        for trial in self._trials:
            if trial.timeline == timeline and \
                    trial.start_s - TIME_TOLERANCE_S <= time_s <= trial.end_s + TIME_TOLERANCE_S:
                energies += self._take(trial, [sample])
        settled = self._settle()
        return energies + settled[0], settled[1]

    def _take(self, trial: Trial, samples: list[Sample]) -> list[EnergySample]:
        energies = []
        for sample in samples:
            energy = self._update(trial, *sample)
            if energy is not None:
                energies.append(energy)
        return energies

    def _settle(self) -> tuple[list[EnergySample], list[CriteriaReport]]:
        """Place the trials whose timeline is now known; finish those complete."""
        energies: list[EnergySample] = []
        reports: list[CriteriaReport] = []
        for trial in list(self._trials):
            if trial.timeline is None and place(trial, self._timelines) and \
                    trial.timeline is not None:
                timeline = next(t for t in self._timelines if t.epoch == trial.timeline)
                energies += self._take(trial, timeline.between(trial.start_s, trial.end_s))
            if trial.end_s < math.inf and complete(trial, self._timelines):
                self._trials.remove(trial)
                report = self._finish(trial)
                if report is not None:
                    reports.append(report)
        return energies, reports

    def update(
        self, time_s: float, obj: BodyState, pads: Sequence[BodyState],
        taxel_positions_in_pad: Sequence[np.ndarray], taxel_forces_in_pad: Sequence[np.ndarray],
    ) -> EnergySample | None:
        """Take one sample at ``time_s`` into the open trial, whatever its timeline.

        For a caller that knows the sample is the trial's (offline). The readings
        are taken as of ``time_s`` whatever their own stamps, so a reading that
        has not changed since the last sample counts as still true.

        Returns:
            Its energy; None outside a trial or before the energy reference.
        """
        if self.record is None:
            return None
        reading = ('taxels', taxel_positions_in_pad, taxel_forces_in_pad)
        quality = self._quality(obj, pads, reading)
        self.last_quality = (time_s, quality)
        return self._update(self._trials[-1], time_s, obj, pads, reading, quality)

    def _update(self, trial: Trial, time_s: float, obj: BodyState,
                pads: Sequence[BodyState], reading: tuple,
                quality: GraspQuality) -> EnergySample | None:
        obj, pads = stamped(time_s, obj, pads)
        if reading[0] == 'contacts':
            summary = summarize_contacts(*reading[1:4], 2)
        else:
            summary = taxel_summary(pads, *reading[1:])
        trial.record.append(time_s, obj.position_in_world, obj.linear_velocity_in_world,
                            summary, quality.value(self.config.epsilon.variant))
        return self._energy(trial, time_s, obj, pads)

    def _energy(self, trial: Trial, time_s: float, obj: BodyState,
                pads: Sequence[BodyState]) -> EnergySample | None:
        """Return the energy of a stamped sample from the reference on, else None."""
        if time_s < trial.energy_from_s - TIME_TOLERANCE_S:
            return None
        self.last_energy = trial.tracker.update([obj], pads[0], pads[1])
        return self.last_energy

    def add_event(self, record: EventRecord) -> list[EnergySample]:
        """Note an event of the open trial (grasp and slip-out shape the criteria).

        With ``energy_from='grasp'`` the grasp's sample becomes the energy reference.

        Returns:
            The energy of the samples taken from the grasp on, oldest first (the
            samples may come before the grasp's record).
        """
        self._last_record_s = max(self._last_record_s, record.time_s)
        trial = self._trials[-1] if self._trials else None
        if trial is None or record.trial_id != trial.record.trial_id:
            return []
        trial.record.add_event(record)
        if record.kind != 'grasp' or self.config.energy_from != 'grasp' or \
                math.isfinite(trial.energy_from_s):
            return []
        trial.energy_from_s = record.time_s
        timeline = next((t for t in self._timelines if t.epoch == trial.timeline), None)
        if timeline is None:
            return []
        taken_s = trial.record.time_s[-1] if len(trial.record) else -math.inf
        return [self._energy(trial, sample[0], *stamped(*sample[:3]))
                for sample in timeline.between(record.time_s, min(taken_s, trial.end_s))]

    def finish(self) -> CriteriaReport | None:
        """Close the open trial now and evaluate its criteria (None without samples)."""
        trial = self._trials[-1] if self._trials else None
        if trial is None:
            return None
        self._trials.remove(trial)
        return self._finish(trial)

    def _finish(self, trial: Trial) -> CriteriaReport | None:
        record = trial.record
        if len(record) == 0:
            return None
        self.report = evaluate_criteria(record, self.config.criteria, self.config.weights)
        self.report_trial_id = record.trial_id
        self.report_samples = (len(record), float(record.time_s[0]), float(record.time_s[-1]))
        end = record.first_event('trial_end')
        self.report_end_reason = str(end.details.get('reason', '')) if end is not None else ''
        return self.report
