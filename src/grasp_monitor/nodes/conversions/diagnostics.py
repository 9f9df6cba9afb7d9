"""Diagnostics, the monitor's verdicts, and single values with their stamps."""

from __future__ import annotations

from typing import Mapping, Sequence

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.nodes.conversions.clock import time_from_msg, time_to_msg

#: DiagnosticStatus levels by name.
LEVELS = {
    'OK': DiagnosticStatus.OK, 'WARN': DiagnosticStatus.WARN,
    'ERROR': DiagnosticStatus.ERROR, 'STALE': DiagnosticStatus.STALE,
}


def diagnostic_status(
    name: str, level: str, message: str, values: Mapping[str, object], hardware_id: str = ''
) -> DiagnosticStatus:
    """Build a DiagnosticStatus with ``values`` as key/value strings."""
    return DiagnosticStatus(
        level=LEVELS[level], name=name, message=message, hardware_id=hardware_id,
        values=[KeyValue(key=str(k), value=str(v)) for k, v in values.items()])


#: The verdict's status name and keys, on ``grasp_monitor/verdicts``.
VERDICT = 'verdict'


def verdict_to_msg(time_s: float, command: str, next_s: float, stale: bool,
                   node: str) -> DiagnosticArray:
    """Build the monitor's verdict on the sample at ``time_s``: command, next sample due.

    A stale sample's verdict is STALE-level: the clock, not the inputs, made it.
    """
    msg = DiagnosticArray()
    msg.header.stamp = time_to_msg(time_s)
    msg.status = [diagnostic_status(f'{node}: {VERDICT}', 'STALE' if stale else 'OK', command,
                                    {'next_s': repr(next_s)})]
    return msg


def verdict_from_msg(msg: DiagnosticArray) -> tuple[float, str, float, bool] | None:
    """Return (sample time s, command, next sample s, stale), or None for another message."""
    for status in msg.status:
        if status.name.endswith(f': {VERDICT}'):
            values = {kv.key: kv.value for kv in status.values}
            try:
                return (time_from_msg(msg.header.stamp), status.message,
                        float(values['next_s']), status.level == DiagnosticStatus.STALE)
            except (KeyError, ValueError):
                return None
    return None


def stamped_value_to_msg(value: float, stamp: Time) -> Vector3Stamped:
    """Carry one number with its stamp: the value in ``vector.x``, y and z 0, no frame.

    No standard message holds a stamped scalar; a Vector3Stamped plots in PlotJuggler and
    Foxglove against its header stamp, on the same axis as every other stamped topic.
    """
    msg = Vector3Stamped()
    msg.header.stamp = stamp
    msg.vector.x = float(value)
    return msg


def stamped_vector_to_msg(values: Sequence[float], stamp: Time) -> Vector3Stamped:
    """Carry three numbers with their stamp in ``vector.x``, ``y`` and ``z``, no frame."""
    msg = Vector3Stamped()
    msg.header.stamp = stamp
    msg.vector.x, msg.vector.y, msg.vector.z = (float(value) for value in values)
    return msg


def stamped_value_from_msg(msg: Vector3Stamped) -> tuple[float, float]:
    """Return (value, stamp in s) of a message made by ``stamped_value_to_msg``."""
    return msg.vector.x, time_from_msg(msg.header.stamp)
