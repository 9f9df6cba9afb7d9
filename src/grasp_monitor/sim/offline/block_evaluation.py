"""One block of recorded steps evaluated at once: tactile, energy, monitor and metrics.

Every block: the tactile arrays of every step of the block
(``PadGroup.compute_block``, all pads in one call; equal to
``SimTactileArrays.compute`` after each step), ``EnergyTracker.update_block``
over its steps, and one ``GraspMonitor`` sample per monitor period built from the
pads' contacts with the object (a pad touches when one of them reaches
``contact_force_n``, as the monitor node reads ``contacts``), the object's speed and
the pads' distances from the base, and, for ``incipient_slip``, each pad's slip
signals from its taxels as a tactile cloud carries them (float32, the slip channel
where the pad has one). Without ``contacts`` the monitor is fed as the node is
(``taxel_feed``): each pad's clouds through the tactile realism model, the joint
states through the encoders', the object's speed and the pads' distances, tick by
tick into ``MonitorInputs`` (tare, noise floor, contact hysteresis). The metrics'
samples come from the contacts with the object or from the (true) taxels.
Samples are stamped with the time after their step, as the ROS graph stamps them;
the energy metric keeps the benchmark's stamps (the state's own time).
"""

from __future__ import annotations

import logging
from typing import Any, Iterator, Sequence

from grasp_monitor.core.energy import EnergySample, EnergyTracker
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics import MetricsConfig, TrialMetrics
from grasp_monitor.core.metrics.criteria import CriteriaReport
from grasp_monitor.core.monitor import Command, EventRecord, GraspMonitor, GraspSample, \
    pad_slip_signals
from grasp_monitor.core.quality import GraspQuality
from grasp_monitor.core.tactile import PadGroup
from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.offline.sensor_layout import SensorLayout
from grasp_monitor.sim.offline.taxel_feed import TaxelFeed
from grasp_monitor.sim.offline.values import PipelineConfig
from grasp_monitor.sim.sensors import SimTactileArrays
import numpy as np

_log = logging.getLogger(__name__)


class BlockEvaluation:
    """What the monitor, the energy metric and the metrics made of the blocks so far.

    Args:
        config: the pipeline's configuration.
        sim: the simulator (its force test starts and stops on the monitor's commands).
        arrays: the tactile pads.
        layout: where the recorded sensors sit.
        tracker: the energy metric.
        monitor: the grasp monitor.
        steps_per_monitor_sample: physics steps between two monitor samples.
        metrics: the grasp criteria's configuration (None: none).
        feed: without ``contacts``, the monitor's inputs fed tick by tick, with
            ``steps_per_tick`` physics steps a tick (None: with ``contacts``).
        steps_per_tick: physics steps per simulator tick.

    Attributes:
        tactile: the pads as one group, computed together every block.
        metrics: the trial's metrics (None without a ``metrics`` config).
        report: the criteria of the trial, once it ended (None before).
        values: per pad, the (S, N, width) taxel values of the last block.
        events: every record the monitor emitted, in order.
        peak_contact_force_n: per pad, the highest norm of its summed taxel forces, N.
        contact_overflows: steps in which a pad had more contacts than slots.
        qualities: the grasp quality of each metrics sample of the trial: (stamp s,
            ``GraspQuality``), as the metrics node publishes it.
        metrics_energy: the energy of each metrics sample of the trial, as the metrics
            node publishes it on ``grasp_metrics/energy`` (``EnergySample``).
    """

    def __init__(self, config: PipelineConfig, sim: Simulator, arrays: SimTactileArrays,
                 layout: SensorLayout, tracker: EnergyTracker, monitor: GraspMonitor,
                 steps_per_monitor_sample: int, metrics: MetricsConfig | None = None,
                 feed: TaxelFeed | None = None, steps_per_tick: int = 1) -> None:
        self.config = config
        self.feed = feed
        self.steps_per_tick = steps_per_tick
        self.sim = sim
        self.arrays = arrays
        self.tactile = PadGroup(arrays.pads)
        self.layout = layout
        self.tracker = tracker
        self.monitor = monitor
        self.steps_per_monitor_sample = steps_per_monitor_sample
        specs = arrays.specs
        self.metrics = TrialMetrics(metrics) if metrics is not None else None
        if (feed is None) != config.contacts:
            raise ConfigError('a monitor that reads taxels (contacts off) is fed their clouds '
                              'tick by tick: give it a feed, and only it')
        if not config.contacts and any(pad.to_geom is not None for pad in arrays.pads):
            raise ConfigError('the monitor and metrics read taxel forces in the pad frame '
                              '(contacts ""): force_frame must be pad')
        self.report: CriteriaReport | None = None
        if metrics is not None:
            self._metrics_pads = [[spec.name for spec in specs].index(pad)
                                  for pad in metrics.pads]
            if not config.contacts and any(
                    specs[i].settings['touch'] not in PAD_FRAME_TOUCH_FUNCTIONS
                    for i in self._metrics_pads):
                raise ConfigError('the metrics read taxel forces in the pad frame: touch must '
                                  f'be one of {", ".join(PAD_FRAME_TOUCH_FUNCTIONS)}')
            # as a tactile cloud carries them: float32
            self._taxels_in_pad = [
                as_cloud(arrays.pads[i].positions_in_pad) for i in self._metrics_pads]
            self.steps_per_sample = max(1, round(metrics.sample_period_s / sim.timestep_s))
        self.values: tuple[np.ndarray, ...] = ()
        self.events: list[EventRecord] = []
        self.peak_contact_force_n = np.zeros(len(specs))
        self.contact_overflows = 0
        self.qualities: list[tuple[float, GraspQuality]] = []
        self.metrics_energy: list[EnergySample] = []
        self._grasped = False
        # the pads' taxel positions as clouds carry them, where incipient_slip needs them
        self._slip_positions = [as_cloud(pad.positions_in_pad) for pad in arrays.pads] \
            if 'incipient_slip' in monitor.config.events else None

    def state(self) -> tuple:
        """Return what an evaluation that stops at a command changes, for ``restore``.

        Besides ``events`` (which only grow): the monitor, its inputs (``feed``), the
        energy metric and the per-block tallies. The metrics, the report and the
        qualities are not in it: they change only once the monitor has gone through the
        whole block without such a command (``evaluate``), and they grow with the trial,
        so copying them at every block cost more than the physics.
        """
        return (self.monitor, self.feed, self.tracker, self._grasped,
                self.peak_contact_force_n, self.contact_overflows)

    def restore(self, state: tuple, events: int) -> None:
        """Go back to a (copied) ``state`` and the first ``events`` events."""
        (self.monitor, self.feed, self.tracker, self._grasped, self.peak_contact_force_n,
         self.contact_overflows) = state
        del self.events[events:]

    def contact_inputs(self, record: np.ndarray) -> tuple[Any, ...]:
        """Return the ``PadGroup.compute_block`` arguments of every pad from recorded rows.

        Counts the steps in which a pad had more contacts than slots.
        """
        inputs, found = self.layout.contact_inputs(record)
        slots = self.config.contact_slots
        for pad, contacts in enumerate(found):
            overflows = int(np.count_nonzero(contacts > slots))
            if overflows and not self.contact_overflows:
                _log.warning('pad %r had %d contacts, more than its %d sensor slots; the rest '
                             'are lost (raise contact_slots)', self.arrays.specs[pad].name,
                             int(contacts.max()), slots)
            self.contact_overflows += overflows
        return inputs

    def evaluate(self, record: np.ndarray, state_time_s: np.ndarray, first_step: int,
                 stop_at_command: bool = False) -> int | None:
        """Tactile, energy and monitor samples of one block of recorded rows.

        Args:
            record: the block's rows, one per step.
            state_time_s: (S,) the time of the state each row holds, s.
            first_step: steps of the run before the block.
            stop_at_command: a command of the monitor that changes the physics before
                the block's last sample ends the evaluation there (the block is to be
                stepped again).

        Returns:
            After which step of the run the last such command came (None: none).
        """
        command_step = None
        # Nothing of the metrics may change before the monitor's loop below ends (state()).
        self.values = self.tactile.compute_block(*self.contact_inputs(record))
        events_before = len(self.events)
        layout = self.layout
        self.tracker.update_block(state_time_s, *layout.frame_arrays(record))
        every = _norms([pad.value_sum for pad in self.arrays.pads])
        np.maximum(self.peak_contact_force_n, every.max(axis=0), out=self.peak_contact_force_n)
        if self.feed is not None:
            # (row of the tick that completed it, sample), as the node's inputs give them
            samples = self._fed_samples(record, state_time_s, first_step)
        else:
            # One monitor sample every steps_per_monitor_sample steps of the run.
            ticks = np.flatnonzero((first_step + np.arange(1, record.shape[0] + 1))
                                   % self.steps_per_monitor_sample == 0)
            at_ticks = record[ticks]
            samples = zip(ticks.tolist(), GraspSample.trusted_series(
                state_time_s[ticks] + self.sim.timestep_s,
                layout.strongest_object_contacts(at_ticks) >= self.config.contact_force_n,
                layout.object_speed(at_ticks), layout.pad_distances(at_ticks),
                self.monitor.config.palm_index, self._slip_signals(ticks)))
        update, carry_on = self.monitor.update, Command.CONTINUE
        for row, sample in samples:
            result = update(sample)
            if result.records:
                self.events.extend(result.records)
            # the usual CONTINUE: no call to ask whether it acts
            if result.command is not carry_on and self._acts(result.command):
                command_step = first_step + row + 1
                if stop_at_command and row < record.shape[0] - 1:
                    return command_step
                self._react(result.command)
        if self.metrics is not None:
            self._measure(record, state_time_s, first_step, self.events[events_before:])
        return command_step

    def _fed_samples(self, record: np.ndarray, state_time_s: np.ndarray,
                     first_step: int) -> Iterator[tuple[int, GraspSample]]:
        """Feed the block's simulator ticks to the monitor's inputs; yield (row, sample)."""
        feed, layout = self.feed, self.layout
        assert feed is not None
        rows = np.flatnonzero((first_step + np.arange(1, record.shape[0] + 1))
                              % self.steps_per_tick == 0)
        at_rows = record[rows]
        config = feed.inputs.config
        slip = [None if pad.slip is None else pad.slip[rows] for pad in self.arrays.pads]
        # joint_states carries the scene's joints: the first recorded
        positions, velocities = (joints[:, :len(feed.joints)]
                                 for joints in layout.joint_states(at_rows))
        for tick, sample in feed.feed(
                state_time_s[rows] + self.sim.timestep_s, [block[rows] for block in self.values],
                slip, at_rows[:, layout.speed_columns] if config.use_object else None,
                layout.pad_distances(at_rows) if config.use_distances else None,
                positions, velocities):
            yield int(rows[tick]), sample

    def _slip_signals(self, ticks: np.ndarray) -> np.ndarray | None:
        """Return (T, pads, 5) the pads' slip signals at ``ticks`` (None: not needed)."""
        if self._slip_positions is None:
            return None
        return cloud_slip_signals(self.arrays.pads, self._slip_positions, self.values, ticks,
                                  self.monitor.config.incipient_slip_normal_axis)

    def _measure(self, record: np.ndarray, state_time_s: np.ndarray, first_step: int,
                 records: Sequence[EventRecord]) -> None:
        """Take the block's metrics samples and monitor records in stamp order.

        At one stamp: the trial's start and events, then the sample, then its end,
        as the metrics node orders them by stamp whatever the order they came in.
        """
        per_sample = self.steps_per_sample
        rows = np.flatnonzero((first_step + np.arange(1, record.shape[0] + 1)) % per_sample == 0)
        stamps = state_time_s + self.sim.timestep_s
        queue = [(r.time_s, 2 if r.kind == 'trial_end' else 0, index, r)
                 for index, r in enumerate(records)]
        queue += [(float(stamps[row]), 1, int(row), None) for row in rows]
        for _, order, row, event in sorted(queue, key=lambda item: item[:3]):
            if event is not None:
                self._metrics_event(event)
            elif self.report is None:  # one trial per run
                stamp = float(stamps[row])
                sample = self._metrics_sample(record[row], row)
                if self.config.contacts:
                    energies = self.metrics.add_contacts(stamp, *sample[:5],
                                                         normals_in_world=sample[5])[0]
                else:
                    energies = self.metrics.add(stamp, *sample)[0]
                self.metrics_energy += energies
                self.qualities.append(self.metrics.last_quality)

    def _metrics_sample(self, values: np.ndarray, row: int) -> tuple[Any, ...]:
        """Return one row as the metrics node's inputs: object, pads, taxels in the pads.

        With ``contacts``: object, pads, and the contacts of the pads with the object
        (points, forces, pad indices, normals).
        """
        config = self.metrics.config
        obj, *pads = (self.layout.body_state(values, body)
                      for body in (config.object, *config.pads))
        if self.config.contacts:
            return (obj, pads, *self.layout.object_contacts(values, self._metrics_pads))
        forces = []
        for pad in self._metrics_pads:
            force = self.values[pad][row]
            if force.shape[1] == 1:  # a scalar touch function: the cloud's fz
                force = np.concatenate([np.zeros((force.shape[0], 2)), force], axis=1)
            forces.append(as_cloud(force))
        return obj, pads, self._taxels_in_pad, forces

    def _metrics_event(self, record: EventRecord) -> None:
        """Pass a monitor record to the metrics, as the node takes them from the topic."""
        if record.kind == 'trial_start':
            self.metrics_energy += self.metrics.start(record.trial_id, record.time_s,
                                                      record.reset_from_s)[0]
        elif record.kind == 'trial_end':
            self.metrics.add_event(record)
            self.metrics_energy += self.metrics.add_event(record)
            energies, reports = self.metrics.end(record.time_s,
                                                 record.details.get('reason') == 'time_reset')
            self.metrics_energy += energies
            if reports:
                self.report = reports[-1]
        else:
            self.metrics_energy += self.metrics.add_event(record)

    def end_trial(self, reason: str = 'end of run') -> tuple[EventRecord, ...]:
        """End the open trial (as the monitor's stop service does); return its records."""
        records = tuple(self.monitor.stop_trial(reason))
        self.events.extend(records)
        if self.metrics is not None:
            for record in records:
                self._metrics_event(record)
        if records and self.sim.force_test_active:
            self.sim.stop_force_test()
        return records

    @property
    def trial_ended(self) -> bool:
        """Whether the monitor ended a trial (its verdict)."""
        return any(record.kind == 'trial_end' for record in self.events)

    def may_act(self) -> bool:
        """Whether a command of the monitor may change the physics (``_acts``) at all."""
        return self.config.force_test is not None

    def _acts(self, command: Command) -> bool:
        """Whether ``command`` changes the physics: starts or stops the force test."""
        if command is Command.ACTIVATE:
            return self.config.force_test is not None and self.config.force_on_grasp \
                and not self._grasped
        return command is Command.STOP and self.sim.force_test_active

    def _react(self, command: Command) -> None:
        """Start the force test on a grasp, stop it when the trial stops."""
        test = self.config.force_test
        if command is Command.ACTIVATE and test is not None and self.config.force_on_grasp \
                and not self._grasped:
            self._grasped = True
            self.sim.start_force_test(test, self.config.force_test_body)
        elif command is Command.STOP and self.sim.force_test_active:
            self.sim.stop_force_test()


def cloud_slip_signals(pads: Sequence[Any], positions: Sequence[np.ndarray],
                       values: Sequence[np.ndarray], rows: np.ndarray,
                       normal_axis: str) -> np.ndarray:
    """Return (R, pads, 5) each pad's slip signals at a block's ``rows``, from its clouds.

    As the monitor node computes them from ``tactile/<pad>``: float32 forces (a scalar
    touch function's values as fz) at the taxels' float32 ``positions``, and the slip
    channel where the pad has one (``pad.slip``, the block's).
    """
    signals = []
    for pad, at, block in zip(pads, positions, values):
        forces = block[rows]
        if forces.shape[2] == 1:  # a scalar touch function: the cloud's fz
            forces = np.concatenate([np.zeros(forces.shape[:2] + (2,)), forces], axis=2)
        slip = None if pad.slip is None else as_cloud(pad.slip[rows])
        signals.append(pad_slip_signals(at, as_cloud(forces), normal_axis, slip))
    return np.stack(signals, axis=1)


def as_cloud(values: np.ndarray) -> np.ndarray:
    """Return ``values`` rounded to float32, as a tactile cloud carries them."""
    return np.asarray(values, np.float32).astype(float)


def _norms(value_sums: list[np.ndarray]) -> np.ndarray:
    """Return (S, pads) the magnitude of each pad's summed taxel values (S, width), N."""
    if all(value_sum.shape[1] == 3 for value_sum in value_sums):
        both = np.stack(value_sums, axis=1)  # one pass for every pad
        return np.sqrt(np.einsum('spi,spi->sp', both, both))
    return np.stack([np.abs(value_sum[:, 0]) if value_sum.shape[1] == 1 else
                     np.sqrt(np.einsum('si,si->s', value_sum, value_sum))
                     for value_sum in value_sums], axis=1)
