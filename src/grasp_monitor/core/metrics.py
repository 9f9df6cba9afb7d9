"""Grasp metrics over a trial: the energy metric every sample, the criteria at the end.

Inputs are what a ROS graph carries: object and pad poses (ground truth) and
either the pads' contacts with the object (the simulator's: points and forces
in the world frame, the criteria as rostok defines them) or, where only taxels
exist, the tactile arrays of the pads (taxel positions and the force on each
taxel, in the pad frame): each loaded taxel is then taken as a contact pushing
-f on the object at its world position, whatever the pad touches (an estimate).

Samples come stamped (on the monitor's grid), each on a numbered timeline (a
simulator reset opens one), and a trial's bounds come as the stamps of the
monitor's trial_start and trial_end records. Which timeline a trial is on is
found from stamps alone, never from when its records arrived: a trial that a
reset separates from the one before is on a later timeline; one a reset ended
is on a timeline that ended at its end; one the monitor started after time
went back from a stamp is on the timeline that reset opened (waiting for it
if this node has not seen it yet); otherwise it is on the newest timeline
whose samples reach its start. Recent samples of each timeline are
kept, so a trial holds exactly the samples stamped within its bounds on its
timeline, whichever of samples and records arrives first.
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
from grasp_monitor.core.monitor import EventRecord, TIME_TOLERANCE_S
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.trial import ContactSummary, summarize_contacts, TrialRecord
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


def _taxel_summary(pads: Sequence[BodyState], taxel_positions_in_pad: Sequence[np.ndarray],
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


def _stamped(time_s: float, obj: BodyState, pads: Sequence[BodyState]
             ) -> tuple[BodyState, list[BodyState]]:
    """Return the readings of a sample as of its stamp, s."""
    return (dataclasses.replace(obj, time_s=time_s),
            [dataclasses.replace(pad, time_s=time_s) for pad in pads])


#: Two nodes' first samples of one timeline differ by less, s (the grid's time_back_s).
TIMELINE_SLACK_S = 0.05
#: A timeline a reset ended: the monitor's last sample and the metrics' differ by less, s
#: (the grid drops the samples its slowest input had not reached when another went back).
RESET_SLACK_S = 1.0

Sample = tuple  # (time_s, object, pads, reading: ('taxels' | 'contacts', arrays...))


class _Timeline:
    """The samples of one timeline the metrics took: its first stamp and the latest ones.

    ``after_s`` is the last stamp of the timeline before it, where time went back from
    (-inf for the first this node had: it does not know where that one began).
    """

    def __init__(self, epoch: int, first_s: float, depth: int, samples: Sequence = (),
                 after_s: float = -math.inf) -> None:
        self.epoch, self.first_s, self.after_s = epoch, first_s, after_s
        self.samples: deque[Sample] = deque(samples, maxlen=depth)

    @property
    def last_s(self) -> float:
        return self.samples[-1][0]

    def between(self, from_s: float, to_s: float) -> list[Sample]:
        return [sample for sample in self.samples
                if from_s - TIME_TOLERANCE_S <= sample[0] <= to_s + TIME_TOLERANCE_S]


class _Trial:
    """One trial's bounds, its timeline once known, its record and its energy tracker."""

    def __init__(self, record: TrialRecord, start_s: float, tracker: EnergyTracker,
                 energy_from_s: float, after: '_Trial | None', separated: bool,
                 reset_from_s: float) -> None:
        self.record, self.start_s, self.tracker = record, start_s, tracker
        # the monitor saw time go back from this stamp before the trial: its timeline
        # is the one that reset opened
        self.reset_from_s = reset_from_s
        self.energy_from_s = energy_from_s
        self.end_s = math.inf
        self.reset_end = False  # a reset ended it: its timeline ended there too
        self.timeline: int | None = None
        self.before_known = False  # on a timeline older than every one kept
        # the trial before it, and whether a reset came between them
        self.after, self.separated = after, separated


class TrialMetrics:
    """Energy every sample and criteria at the end of each trial."""

    def __init__(self, config: MetricsConfig, history: int = 1000) -> None:
        """Make the metrics; ``history`` samples per timeline are kept for late records."""
        self.config = config
        self.history = history
        self.last_energy: EnergySample | None = None
        self.report: CriteriaReport | None = None
        self.report_trial_id = 0  # the trial of ``report``
        #: the samples of ``report``: how many, the first's and the last's stamps, s
        self.report_samples: tuple[int, float, float] = (0, math.nan, math.nan)
        self._timelines: list[_Timeline] = []  # the latest three
        self._trials: list[_Trial] = []  # opened, or ended and waiting for samples
        self._previous: _Trial | None = None  # the trial started last
        self._last_record_s = -math.inf
        self._reset_seen = False  # a reset ended the last trial

    def _tracker(self) -> EnergyTracker:
        config = self.config
        return EnergyTracker(EnergyTrackerConfig(
            (config.object_name,), config.object_mass_kg,
            np.asarray([config.object_inertia_kg_m2], float), config.pads,
            dt_s=config.sample_period_s))

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
        trial = _Trial(
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
        pad_index: np.ndarray, timeline: int = 0,
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
        """
        return self._add((time_s, obj, pads,
                          ('contacts', points_in_world, forces_on_object_in_world, pad_index)),
                         timeline)

    def _add(self, sample: Sample, timeline: int
             ) -> tuple[list[EnergySample], list[CriteriaReport]]:
        time_s = sample[0]
        if not self._timelines or timeline != self._timelines[-1].epoch:
            # of a timeline that ended, only its last samples can still join a trial
            kept = [_Timeline(t.epoch, t.first_s, max(2, self.history // 5), t.samples,
                              t.after_s) for t in self._timelines[-2:]]
            after_s = self._timelines[-1].last_s if self._timelines else -math.inf
            self._timelines = kept + [_Timeline(timeline, time_s, self.history, (), after_s)]
        self._timelines[-1].samples.append(sample)
        energies = []
        for trial in self._trials:
            if trial.timeline == timeline and \
                    trial.start_s - TIME_TOLERANCE_S <= time_s <= trial.end_s + TIME_TOLERANCE_S:
                energies += self._take(trial, [sample])
        settled = self._settle()
        return energies + settled[0], settled[1]

    def _take(self, trial: _Trial, samples: list[Sample]) -> list[EnergySample]:
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
            if trial.timeline is None and self._place(trial) and trial.timeline is not None:
                timeline = next(t for t in self._timelines if t.epoch == trial.timeline)
                energies += self._take(trial, timeline.between(trial.start_s, trial.end_s))
            if trial.end_s < math.inf and self._complete(trial):
                self._trials.remove(trial)
                report = self._finish(trial)
                if report is not None:
                    reports.append(report)
        return energies, reports

    def _complete(self, trial: _Trial) -> bool:
        if trial.before_known:
            return True
        if trial.timeline is None:
            return False
        newest = self._timelines[-1]
        return newest.epoch > trial.timeline or newest.last_s >= trial.end_s - TIME_TOLERANCE_S

    def _place(self, trial: _Trial) -> bool:
        """Find the trial's timeline from stamps; return False while it may still come."""
        if trial.timeline is not None or trial.before_known:
            return True
        lowest = -1
        if trial.after is not None:
            if not self._place(trial.after):
                return False  # the trial before goes first
            if trial.after.timeline is not None:
                lowest = trial.after.timeline + int(trial.separated)
        candidates = [t for t in self._timelines if t.epoch >= lowest]
        if not candidates:
            return False
        current = self._timelines[-1]
        for timeline in reversed(candidates):
            if timeline.first_s > trial.start_s + TIMELINE_SLACK_S and \
                    timeline is not candidates[0]:
                continue  # it began after the trial did (the oldest: before this node)
            if math.isfinite(trial.reset_from_s):
                opened = self._opened_by(timeline, trial)
                if opened is None:
                    return False  # the timeline the reset opened may be still to come
                if not opened:
                    continue
            if trial.reset_end:  # a timeline that ended where the trial did
                if timeline is not current and \
                        abs(timeline.last_s - trial.end_s) <= RESET_SLACK_S:
                    trial.timeline = timeline.epoch
                    return True
                continue
            if timeline is current and timeline.last_s < trial.start_s - TIME_TOLERANCE_S:
                return False  # the trial's samples are still to come
            if timeline is current or trial.start_s <= timeline.last_s + TIMELINE_SLACK_S:
                trial.timeline = timeline.epoch
                return True
        if trial.reset_end and current.last_s > trial.end_s + RESET_SLACK_S and \
                len(candidates) == len(self._timelines):
            # the newest timeline ran on past the trial's reset, and no older one ended
            # there: the trial's timeline came before every one this node had
            trial.before_known = True
            return True
        return False

    def _opened_by(self, timeline: _Timeline, trial: _Trial) -> bool | None:
        """Whether the reset before ``trial`` opened ``timeline``; None while unknown."""
        reset_from_s = trial.reset_from_s
        if math.isfinite(timeline.after_s):  # this node saw it open
            return abs(timeline.after_s - reset_from_s) <= RESET_SLACK_S
        # it opened before this node's first sample
        if timeline.last_s > reset_from_s + RESET_SLACK_S:
            return True  # it ran on past where the reset came from
        if timeline is not self._timelines[-1]:  # it ended: the reset's if not there
            return abs(timeline.last_s - reset_from_s) > RESET_SLACK_S
        if trial.end_s < math.inf and timeline.last_s >= trial.end_s - TIME_TOLERANCE_S:
            return True  # it holds the whole trial, and no reset came
        return None

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
        return self._update(self._trials[-1], time_s, obj, pads,
                            ('taxels', taxel_positions_in_pad, taxel_forces_in_pad))

    def _update(self, trial: _Trial, time_s: float, obj: BodyState,
                pads: Sequence[BodyState], reading: tuple) -> EnergySample | None:
        obj, pads = _stamped(time_s, obj, pads)
        if reading[0] == 'contacts':
            summary = summarize_contacts(*reading[1:], 2)
        else:
            summary = _taxel_summary(pads, *reading[1:])
        trial.record.append(time_s, obj.position_in_world, obj.linear_velocity_in_world,
                            summary)
        return self._energy(trial, time_s, obj, pads)

    def _energy(self, trial: _Trial, time_s: float, obj: BodyState,
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
        return [self._energy(trial, sample[0], *_stamped(*sample[:3]))
                for sample in timeline.between(record.time_s, min(taken_s, trial.end_s))]

    def finish(self) -> CriteriaReport | None:
        """Close the open trial now and evaluate its criteria (None without samples)."""
        trial = self._trials[-1] if self._trials else None
        if trial is None:
            return None
        self._trials.remove(trial)
        return self._finish(trial)

    def _finish(self, trial: _Trial) -> CriteriaReport | None:
        record = trial.record
        if len(record) == 0:
            return None
        self.report = evaluate_criteria(record, self.config.criteria, self.config.weights)
        self.report_trial_id = record.trial_id
        self.report_samples = (len(record), float(record.time_s[0]), float(record.time_s[-1]))
        return self.report
