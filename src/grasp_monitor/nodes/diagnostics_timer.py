"""What every node's ``/diagnostics`` share: a wall-time timer and its input streams' status."""

from __future__ import annotations

import time
from typing import Callable

from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.core.streams import StreamWatch
from grasp_monitor.nodes import conversions
from rclpy.clock import Clock, ClockType
from rclpy.node import Node


def wall_now_s() -> float:
    """Return the wall (steady) time streams are watched on, s."""
    return time.monotonic()


def diagnostics_timer(node: Node, callback: Callable[[], None], group=None,
                      period_s: float = 1.0):
    """Call ``callback`` every ``period_s`` of wall time, whatever the node's clock.

    With ``use_sim_time`` a timer on the node clock stops with a paused simulator; this
    one goes on, so the node's status goes on arriving (and can say STALE).
    """
    return node.create_timer(period_s, callback, callback_group=group,
                             clock=Clock(clock_type=ClockType.STEADY_TIME))


def stream_statuses(node: Node, watch: StreamWatch) -> list[DiagnosticStatus]:
    """Return one status per watched stream: OK while it flows, STALE once it stopped."""
    statuses = []
    for stream in watch.statuses(wall_now_s()):
        silent = f'{stream.silent_s:.3f}' if stream.messages else 'never heard'
        statuses.append(conversions.diagnostic_status(
            f'{node.get_fully_qualified_name()}: input {stream.name}',
            'STALE' if stream.stale else 'OK',
            ('no message for ' + (f'{stream.silent_s:.1f} s' if stream.messages
                                  else 'ever')) if stream.stale else 'flowing',
            {'silent_s': silent, 'messages': stream.messages,
             'stale_after_s': repr(watch.limits_s[stream.name])}))
    return statuses
