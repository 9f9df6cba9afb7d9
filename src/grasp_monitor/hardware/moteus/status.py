"""The health of a moteus bank as diagnostics say it: the loop's, then each servo's."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from grasp_monitor.hardware.moteus.config import MoteusConfig
from grasp_monitor.hardware.moteus.observation import (
    LIMIT_DESCRIPTIONS, LoopStats, MoteusObservation)
import moteus

#: Controller modes by number, as diagnostics name them.
MODE_NAMES = {int(mode): mode.name.lower() for mode in moteus.Mode}


@dataclass(frozen=True)
class Status:
    """One diagnostic status: ``name`` is the part after the node's name ('loop', a joint).

    Attributes:
        name: 'loop' or the joint's name.
        level: 'OK', 'WARN', 'ERROR' or 'STALE'.
        message: what the level means.
        values: the key values.
        hardware_id: the transport (the loop) or the controller's id and bus.
    """

    name: str
    level: str
    message: str
    values: dict[str, Any]
    hardware_id: str


def bank_statuses(config: MoteusConfig, observation: MoteusObservation | None,
                  stats: LoopStats, counts: Mapping[str, int],
                  running: bool = True) -> list[Status]:
    """Return the loop's status, then each servo's (a latched fault: ERROR with its code).

    Args:
        config: the bank.
        observation: the latest cycle's (None before the first).
        stats: the loop's statistics.
        counts: more values of the loop's status (refused and lost commands).
        running: whether the loop still runs.
    """
    faults = observation.faults if observation is not None else ()
    if not running:
        level, message = 'ERROR', 'the servo loop has ended' + (
            f': {stats.last_error}' if stats.last_error else '')
    elif faults:
        level, message = 'ERROR', 'servos stopped until ~/resume: ' + '; '.join(
            fault.message for fault in faults)
    elif observation is None:
        level, message = 'WARN', 'no cycle yet'
    elif observation.stopped or observation.watchdog_tripped:
        level, message = 'WARN', 'stopped by ~/stop' if observation.stopped else \
            f'watchdog: no command for {config.command_timeout_s} s, servos stopped'
    else:
        level, message = 'OK', 'read-only' if config.read_only else \
            'commanding' if observation.commanding else 'holding a stop until the first command'
    values = asdict(stats) | {
        'target_rate_hz': config.rate_hz, 'read_only': config.read_only,
        'stopped': bool(observation and observation.stopped),
        'watchdog_tripped': bool(observation and observation.watchdog_tripped)} | dict(counts)
    statuses = [Status('loop', level, message, values, config.transport)]
    for i, (joint, servo_id) in enumerate(zip(config.joints, config.ids)):
        hardware_id = f'moteus id {servo_id} on bus {config.buses[i]}'  # type: ignore[index]
        if observation is None:
            statuses.append(Status(joint, 'STALE', 'no reply yet', {}, hardware_id))
            continue
        own = [fault for fault in faults if fault.joint == joint]
        mode, code = int(observation.mode[i]), int(observation.fault_code[i])
        name = MODE_NAMES.get(mode, f'mode {mode}')
        if own:
            level, message = 'ERROR', '; '.join(fault.message for fault in own)
            code = next((fault.code for fault in own if fault.code), code)
        elif not observation.fresh[i]:
            level, message = 'WARN', 'no reply this cycle'
        else:
            level, message = 'OK', name + (f', limited by {LIMIT_DESCRIPTIONS[code]}'
                                           if code in LIMIT_DESCRIPTIONS else '')
        statuses.append(Status(joint, level, message, {
            'position_rad': observation.position[i], 'velocity_rad_s': observation.velocity[i],
            'torque_nm': observation.torque[i], 'temperature_c': observation.temperature_c[i],
            'voltage_v': observation.voltage_v[i], 'mode': mode, 'mode_name': name,
            'fault_code': code, 'fresh': bool(observation.fresh[i])}, hardware_id))
    return statuses
