"""The grasp monitor: rostok's simulation flags as events run on a stream of samples.

Each event watches one condition and fires at most once per trial; its ``check``
returns a :class:`Command`: STOP ends the trial at once (later events are not
checked for that sample), ACTIVATE asks for the external force test, CONTINUE
does nothing. Events always run in rostok's order, :data:`EVENT_ORDER`.
How they differ from rostok's: docs/deviations.md.

``samples`` is what the monitor sees, ``inputs`` builds samples from stamped
readings on a ``stamp_grid``, ``records`` and ``log`` are what it says, ``state``
is the open trial, ``event`` the base of the seven events (``contact``,
``flying_apart``, ``slip_out``, ``grasp``, ``incipient_slip``, ``stop_external_force``;
``slip_signals`` is what a tactile pad tells the last of slip), ``event_set``
and ``config`` choose them, and ``monitor`` runs them.
"""

from grasp_monitor.core.monitor.config import MonitorConfig
from grasp_monitor.core.monitor.contact import ContactEvent, ContactTimeoutEvent
from grasp_monitor.core.monitor.event import MonitorEvent
from grasp_monitor.core.monitor.event_set import EventSet
from grasp_monitor.core.monitor.flying_apart import FlyingApartEvent
from grasp_monitor.core.monitor.grasp import GraspEvent
from grasp_monitor.core.monitor.incipient_slip import IncipientSlipEvent
from grasp_monitor.core.monitor.inputs import InputsConfig, MonitorInputs
from grasp_monitor.core.monitor.log import EventLog
from grasp_monitor.core.monitor.monitor import GraspMonitor, MonitorStatus, MonitorUpdate
from grasp_monitor.core.monitor.records import (
    Command, DetailValue, EVENT_ORDER, EventRecord, PREREQUISITES, RECORD_KINDS,
    RESERVED_KEYS, STATUS_KINDS)
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.slip_out import SlipOutEvent
from grasp_monitor.core.monitor.slip_signals import pad_slip_signals, SIGNALS
from grasp_monitor.core.monitor.stamp_grid import GridPoint, STAMP_TOLERANCE_S, StampGrid
from grasp_monitor.core.monitor.state import TIME_TOLERANCE_S, TrialState
from grasp_monitor.core.monitor.stop_external_force import StopExternalForceEvent

__all__ = [
    # what the monitor sees, and how it is sampled from stamped readings
    'GraspSample', 'GridPoint', 'InputsConfig', 'MonitorInputs', 'pad_slip_signals',
    'SIGNALS', 'STAMP_TOLERANCE_S', 'StampGrid',
    # what it says, and its log
    'Command', 'DetailValue', 'EVENT_ORDER', 'EventLog', 'EventRecord', 'PREREQUISITES',
    'RECORD_KINDS', 'RESERVED_KEYS', 'STATUS_KINDS',
    # the open trial
    'TIME_TOLERANCE_S', 'TrialState',
    # the events
    'ContactEvent', 'ContactTimeoutEvent', 'EventSet', 'FlyingApartEvent', 'GraspEvent',
    'IncipientSlipEvent', 'MonitorEvent', 'SlipOutEvent', 'StopExternalForceEvent',
    # configuration and the monitor
    'GraspMonitor', 'MonitorConfig', 'MonitorStatus', 'MonitorUpdate',
]
