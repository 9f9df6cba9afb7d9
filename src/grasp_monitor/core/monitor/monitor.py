"""The grasp monitor: runs the events over a stream of samples, trial after trial."""

from __future__ import annotations

from dataclasses import dataclass
import enum
import math
from typing import Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.config import MonitorConfig
from grasp_monitor.core.monitor.event import MonitorEvent
from grasp_monitor.core.monitor.records import Command, DetailValue, EventRecord
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.state import TIME_TOLERANCE_S, TrialState

# Read at every sample: a module name costs less than the enum's attribute.
_CONTINUE, _STOP, _ACTIVATE = Command.CONTINUE, Command.STOP, Command.ACTIVATE


class MonitorStatus(enum.Enum):
    """What the monitor made of the last sample."""

    IDLE = 'idle'                   # no trial is open
    OK = 'ok'                       # events checked
    STALE = 'stale'                 # sample not trusted; sensor events paused
    PAUSED = 'paused'               # time did not advance; sample ignored
    OUT_OF_ORDER = 'out_of_order'   # slightly older than the last one; dropped
    ENDED = 'ended'                 # the trial was stopped by an event


@dataclass(frozen=True, init=False)
class MonitorUpdate:
    """What the monitor made of one sample.

    Attributes:
        status: how the sample was treated.
        command: STOP if an event stopped the trial, ACTIVATE if the grasp
            fired, else CONTINUE.
        records: records emitted, in order (events, and trial/sensor status).
        trial_id: the trial (0 when none is open).
        step: the sample's step in the trial (-1 when none is open).
    """

    status: MonitorStatus
    command: Command
    records: tuple[EventRecord, ...]
    trial_id: int
    step: int

    def __init__(self, status: MonitorStatus, command: Command,
                 records: tuple[EventRecord, ...], trial_id: int, step: int) -> None:
        # One per sample: straight into the instance, as the generated __init__ would
        # through object.__setattr__ (frozen), at half its cost.
        values = self.__dict__
        values['status'] = status
        values['command'] = command
        values['records'] = records
        values['trial_id'] = trial_id
        values['step'] = step


class GraspMonitor:
    """Runs the enabled events over a stream of samples, trial after trial.

    A trial opens on the first sample after construction (with ``auto_start``)
    or after :meth:`start_trial`; it ends when an event says STOP, on
    :meth:`stop_trial`, or when time goes back (a simulator reset: reason
    'time_reset'), after which the monitor waits for :meth:`start_trial`, or
    with ``restart_on_reset`` opens the next trial by itself.
    Not thread-safe: call it from one thread (in a node, one mutually
    exclusive callback group for the samples and the services).

    Args:
        config: the parameters and the events to run.
        last_trial_id: trials are numbered from this + 1 (a node resumes its log's).

    Attributes:
        counters: samples, stale, paused, out_of_order, time_resets, trials.
    """

    def __init__(self, config: MonitorConfig | None = None, last_trial_id: int = 0) -> None:
        self.config = config if config is not None else MonitorConfig()
        self.events = self.config.build_events()
        self._enabled = dict.fromkeys(self.events.names, True)
        self._trial: TrialState | None = None
        self._last_trial_id = max(0, int(last_trial_id))
        self._pending_id = self._last_trial_id + 1 if self.config.auto_start else 0
        self._latest_s = -math.inf  # the latest sample's stamp, trial or not
        self._reset_from_s = -math.inf  # where time last went back from
        self._timeline = 0  # the latest sample's (GraspSample.timeline)
        self.status = MonitorStatus.IDLE
        self.counters = dict.fromkeys(
            ('samples', 'stale', 'paused', 'out_of_order', 'time_resets', 'trials'), 0)
        # What update reads of the (frozen) configuration at every sample.
        config = self.config
        self._bodies = len(config.robot_bodies)
        self._palm_index = config.palm_index if config.palm else None
        self._reset_after_s = max(TIME_TOLERANCE_S, config.time_reset_tolerance_s)
        self._max_age_s = config.max_sample_age_s
        # The events that may still act in the trial (enabled, not fired), in order;
        # None after a change, rebuilt by the next sample.
        self._watching: list[MonitorEvent] | None = None

    # -- control ---------------------------------------------------------------------
    @property
    def trial_id(self) -> int:
        """The open trial, or the one the next sample opens; 0 when none."""
        if self._pending_id:
            return self._pending_id
        return self._trial.trial_id if self._trial is not None else 0

    @property
    def trial(self) -> TrialState | None:
        """Return the state of the current or last ended trial; None when there is none."""
        return self._trial

    def enabled(self, name: str) -> bool:
        """Whether event ``name`` runs.

        Raises:
            ConfigError: unknown event or not in this monitor.
        """
        return self._enabled[self.events[name].name]

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Enable or disable event ``name`` from the next sample on.

        Re-enabling restarts its timers (it did not watch meanwhile).

        Raises:
            ConfigError: unknown event, or the change would leave an enabled
                event without its enabled prerequisite.
        """
        event = self.events[name]
        if enabled:
            missing = [req for req in event.requires if not self._enabled[req]]
            if missing:
                raise ConfigError(
                    f"cannot enable '{name}': it needs {', '.join(missing)} enabled")
            if not self._enabled[name] and self._trial is not None:
                event.resume(self._trial)
        else:
            dependents = [other.name for other in self.events
                          if name in other.requires and self._enabled[other.name]]
            if dependents:
                raise ConfigError(
                    f"cannot disable '{name}': enabled events need it: {', '.join(dependents)}")
        self._enabled[name] = bool(enabled)
        self._watching = None

    def start_trial(self) -> list[EventRecord]:
        """End the open trial (reason 'restarted'); the next sample opens a new one.

        Returns:
            The 'trial_end' record of the trial it ended, if any.
        """
        records = self._close('restarted')
        self._pending_id = self._last_trial_id + 1
        return records

    def stop_trial(self, reason: str = 'stopped') -> list[EventRecord]:
        """End the open trial and wait for :meth:`start_trial`.

        Returns:
            The 'trial_end' record, if a trial was running.
        """
        records = self._close(reason)
        self._pending_id = 0
        self.status = MonitorStatus.IDLE
        return records

    def _close(self, reason: str) -> list[EventRecord]:
        trial, self._trial = self._trial, None
        if trial is None or trial.ended:
            return []
        trial.ended = True
        return [self._record(trial, 'trial_end', Command.CONTINUE, {'reason': reason})]

    def _open(self, time_s: float) -> EventRecord:
        trial_id = self._pending_id or self._last_trial_id + 1
        self._pending_id = 0
        self._last_trial_id = trial_id
        self._trial = TrialState(trial_id, start_time_s=time_s, time_s=time_s,
                                 dt_s=self.config.sensor_period_s)
        for event in self.events:
            event.reset()
        self._watching = None
        self.counters['trials'] += 1
        # where time went back from tells a node that has not yet seen the reset that
        # the trial is on the next timeline, not on the one it is still reading
        reset = {'reset_from_s': self._reset_from_s} if math.isfinite(self._reset_from_s) \
            else {}
        return self._record(self._trial, 'trial_start', Command.CONTINUE,
                            {'start_time_s': time_s} | reset)

    @staticmethod
    def _record(trial: TrialState, kind: str, command: Command,
                details: Mapping[str, DetailValue]) -> EventRecord:
        return EventRecord(kind, trial.time_s, trial.trial_time_s, trial.step, trial.trial_id,
                           command, details)

    # -- the stream ------------------------------------------------------------------
    def update(self, sample: GraspSample) -> MonitorUpdate:
        """Take one sample, run the events, and say what happened.

        Raises:
            ConfigError: the sample's number of bodies differs from ``robot_bodies``,
                or its palm from ``palm``.
        """
        # Called for every sample (a hundred a second per trial, thousands of trials
        # in a sweep): the configuration's values come from __init__, not its properties.
        if self._bodies and sample.in_contact.size != self._bodies:
            bodies = self.config.robot_bodies
            raise ConfigError(
                f'sample has {sample.in_contact.size} bodies, the monitor watches '
                f'{len(bodies)}: {", ".join(bodies)}')
        if self._palm_index is not None and sample.palm_index != self._palm_index:
            raise ConfigError(f'sample has its palm at index {sample.palm_index}, the '
                              f"monitor's palm {self.config.palm!r} is at "
                              f'{self._palm_index}')
        counters = self.counters
        counters['samples'] += 1
        time_s = sample.time_s
        # a later timeline is a reset even where its stamps go on (a source restarted)
        new_timeline = sample.timeline > self._timeline
        self._timeline = max(self._timeline, sample.timeline)
        if new_timeline or self._latest_s - time_s > self._reset_after_s:
            self._reset_from_s = self._latest_s
            self._latest_s = time_s
        elif time_s > self._latest_s:
            self._latest_s = time_s
        records: list[EventRecord] = []
        trial = self._trial
        if trial is not None and (new_timeline or time_s < trial.time_s - TIME_TOLERANCE_S):
            if not new_timeline and \
                    trial.time_s - time_s <= self.config.time_reset_tolerance_s:
                counters['out_of_order'] += 1
                return self._result(MonitorStatus.OUT_OF_ORDER, _CONTINUE, records)
            counters['time_resets'] += 1
            records += self._close('time_reset')
            if self.config.restart_on_reset and not self._pending_id:
                self._pending_id = self._last_trial_id + 1
            # a start asked for since stays pending: it opens the new timeline's trial
            trial = None
        first = trial is None
        if first:
            if not self._pending_id:
                return self._result(MonitorStatus.IDLE, _CONTINUE, records)
            records.append(self._open(time_s))
            trial = self._trial
        assert trial is not None
        if trial.ended:
            if time_s > trial.time_s:
                trial.time_s = time_s
            return self._result(MonitorStatus.ENDED, _CONTINUE, records)
        if not first:
            dt_s = time_s - trial.time_s
            if dt_s <= TIME_TOLERANCE_S:
                counters['paused'] += 1
                return self._result(MonitorStatus.PAUSED, _CONTINUE, records)
            trial.step += 1
            trial.dt_s = dt_s
            trial.time_s = time_s
            trial.trial_time_s = time_s - trial.start_time_s
        stale = sample.stale or sample.age_s > self._max_age_s
        if stale:
            counters['stale'] += 1
            if not first:
                trial.stale_time_s += trial.dt_s
            if not trial.stale:
                trial.stale = True
                trial.stale_since_s = trial.trial_time_s
                records.append(self._record(
                    trial, 'sensor_stale', _CONTINUE,
                    {'flagged': bool(sample.stale), 'age_s': float(sample.age_s)}))
        elif trial.stale:
            trial.stale = False
            records.append(self._record(
                trial, 'sensor_fresh', _CONTINUE,
                {'stale_for_s': trial.trial_time_s - trial.stale_since_s}))
        trial.monitored_time_s = trial.trial_time_s - trial.stale_time_s
        command = self._run_events(sample, trial, stale, records)
        self.status = status = MonitorStatus.STALE if stale else MonitorStatus.OK
        return MonitorUpdate(status, command, tuple(records), trial.trial_id, trial.step)

    def _run_events(self, sample: GraspSample, trial: TrialState, stale: bool,
                    records: list[EventRecord]) -> Command:
        command = _CONTINUE
        watching = self._watching
        if watching is None:
            enabled = self._enabled
            watching = self._watching = [
                event for event in self.events if not event.fired and enabled[event.name]]
        for event in watching:
            if stale and event.needs_fresh_data:
                continue
            result = event.check(sample, trial)
            if result is _CONTINUE and not event.fired:
                continue  # the usual case, at every sample
            if event.fired:
                self._watching = None
                trial.fired[event.name] = event.fired_time_s
                records.append(self._record(trial, event.name, result, event.details))
            elif result is _STOP:
                records.append(self._record(trial, event.stop_kind, result, event.details))
            if result is _STOP:
                trial.ended = True
                records.append(self._record(
                    trial, 'trial_end', _CONTINUE, {'reason': records[-1].kind}))
                return _STOP
            if result is _ACTIVATE:
                command = _ACTIVATE
        return command

    def _result(self, status: MonitorStatus, command: Command,
                records: list[EventRecord]) -> MonitorUpdate:
        self.status = status
        trial = self._trial
        return MonitorUpdate(status, command, tuple(records),
                             trial.trial_id if trial is not None else 0,
                             trial.step if trial is not None else -1)

    def diagnostics(self) -> dict[str, str]:
        """Return the monitor's state as a flat dict of strings (for /diagnostics)."""
        trial = self._trial
        values = {
            'status': self.status.value,
            'trial': str(self.trial_id),
            'trial_time_s': repr(trial.trial_time_s) if trial is not None else 'nan',
            'fired': ','.join(trial.fired) if trial is not None else '',
            'enabled': ','.join(name for name, on in self._enabled.items() if on),
        }
        values.update((name, str(count)) for name, count in self.counters.items())
        return values
