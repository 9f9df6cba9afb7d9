"""The metrics' inputs as a graph carries them, sampled on the monitor's grid of stamps.

Samples are taken on the grid ``k * period`` from the inputs stamped up to each (as
the monitor does), so they do not depend on when messages arrive.
"""

from __future__ import annotations

from typing import Any

from grasp_monitor.core.energy import EnergySample
from grasp_monitor.core.metrics import TrialMetrics
from grasp_monitor.core.metrics.criteria import CriteriaReport
from grasp_monitor.core.monitor import EventRecord, GridPoint, InputsConfig, StampGrid
from grasp_monitor.core.monitor.stamp_grid import stamp_counts
from grasp_monitor.core.pad_contacts import basis_name, ObjectContacts, PadContacts
from grasp_monitor.core.quality import GraspQuality
from grasp_monitor.core.values import BodyState
import numpy as np

#: What the metrics give back: energies of samples, criteria of completed trials.
Output = tuple[list[EnergySample], list[CriteriaReport]]


class MetricsFeed:
    """Feeds ``TrialMetrics`` ground truth, contacts or taxels and the monitor's records.

    Args:
        metrics: the metrics fed.
        contacts: the pads' contacts with the object, or None: each pad's taxels.
        thresholds_j: energy reported as WARN from the first, as ERROR above the second, J.

    Attributes:
        names: the inputs: the object's and each pad's ground truth, then ``contacts``
            or ``tactile/<pad>`` of each pad.
        samples: samples taken.
    """

    def __init__(self, metrics: TrialMetrics, contacts: ObjectContacts | None,
                 thresholds_j: tuple[float, float]) -> None:
        config = metrics.config
        self.metrics, self.contacts, self.thresholds_j = metrics, contacts, thresholds_j
        self.basis = basis_name(contacts is not None)
        self.names = (config.object, *config.pads, *(
            ('contacts',) if contacts else (f'tactile/{pad}' for pad in config.pads)))
        self.grid = StampGrid(len(self.names), config.sample_period_s, InputsConfig.time_back_s)
        self.samples = 0

    def add_body(self, body: str, state: BodyState) -> None:
        """Take a body's ground truth."""
        self.grid.add(self.names.index(body), state.time_s, state)

    def add_taxels(self, pad: str, positions: np.ndarray, forces: np.ndarray,
                   time_s: float) -> None:
        """Take a pad's taxel positions and forces in the pad frame, read at ``time_s``."""
        self.grid.add(self.names.index(f'tactile/{pad}'), time_s, (positions, forces))

    def add_contacts(self, contacts: PadContacts) -> None:
        """Take the pads' contacts (their body names known)."""
        self.grid.add(self.names.index('contacts'), contacts.time_s,
                      self.contacts.select_with_normals(contacts))

    def latest(self, name: str) -> Any:
        """Return the latest reading of an input (one of ``names``), None before one."""
        return self.grid.latest()[0][self.names.index(name)]

    def due(self) -> list[GridPoint]:
        """Return the samples owed on the grid, oldest first (``take`` each)."""
        return self.grid.due()

    def take(self, point: GridPoint) -> Output:
        """Give a sample to the metrics; return its energies and the criteria it completes.

        Raises:
            GraspMonitorError: bad readings (the metrics wait for the next trial).
        """
        self.samples += 1
        obj, left, right, *readings = point.values
        if self.contacts is not None:
            points, forces, pad, normals = readings[0]
            return self.metrics.add_contacts(
                point.time_s, obj, (left, right), points, forces, pad, self.grid.epoch,
                normals)
        left_cloud, right_cloud = readings
        return self.metrics.add(
            point.time_s, obj, (left, right), (left_cloud[0], right_cloud[0]),
            (left_cloud[1], right_cloud[1]), self.grid.epoch)

    def add_record(self, record: EventRecord) -> Output:
        """Take a monitor record: a trial's start or end, or an event in it."""
        if record.kind == 'trial_start':
            return self.metrics.start(record.trial_id, record.time_s, record.reset_from_s)
        if record.kind == 'trial_end':
            self.metrics.add_event(record)
            return self.metrics.end(record.time_s, record.details.get('reason') == 'time_reset')
        return self.metrics.add_event(record), []

    def energy_status(self) -> tuple[str, str, dict[str, object]]:
        """Return the level, message and values of the energy status."""
        energy = self.metrics.last_energy
        energy_j = float(energy.max_energy_j) if energy is not None else 0.0
        warn_j, fail_j = self.thresholds_j
        level = 'ERROR' if energy_j > fail_j else 'WARN' if energy_j >= warn_j else 'OK'
        return level, {'ERROR': 'grasp failed', 'WARN': 'object moving in the hand',
                       'OK': 'held'}[level], {
            'energy_j': f'{energy_j:.6g}', 'threshold_j': fail_j, 'samples': self.samples,
            'dropped_samples': self.grid.dropped, 'old_timeline_inputs': self.grid.ignored,
            **stamp_counts(self.grid)}

    def quality(self, time_s: float) -> GraspQuality | None:
        """Return the grasp quality of the sample stamped ``time_s`` (None: not taken)."""
        last = self.metrics.last_quality
        return last[1] if last is not None and last[0] == time_s else None

    def quality_status(self) -> tuple[str, str, dict[str, str]]:
        """Return the level, message and values of the grasp quality status."""
        last = self.metrics.last_quality
        if last is None:
            return 'OK', 'no sample yet', {}
        quality = last[1]
        variant = self.metrics.config.epsilon.variant
        value = quality.value(variant)
        values = {'epsilon': repr(value), 'variant': variant,
                  'contacts': str(quality.contacts), 'time_s': repr(last[0]),
                  'reason': quality.reason}
        return 'OK', (f'epsilon {value:.4g}' if value > 0 else
                      f'epsilon 0: {quality.reason}'), values

    def criteria_status(self) -> tuple[str, dict[str, str]] | None:
        """Return the message and values of the last criteria report (None before one)."""
        report = self.metrics.report
        if report is None:
            return None
        # full precision: a replay is compared with the live run to 1e-6
        values = {name: repr(float(value)) for name, value in report.partials.items()}
        values['total'] = repr(float(report.total))
        values['trial'] = str(self.metrics.report_trial_id)
        values['basis'] = self.basis
        values.update(zip(('samples', 'first_sample_s', 'last_sample_s'),
                          map(repr, self.metrics.report_samples)))
        values['end_reason'] = self.metrics.report_end_reason
        return f'reward {report.total:.3f}', values
