"""What a node's diagnostics say of its inputs: refused by kind, lost by topic, each stream."""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, TypeVar

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.core.streams import StreamWatch
from grasp_monitor.nodes.diagnostics_timer import stream_statuses, wall_now_s
from grasp_monitor.nodes.input_refusals import read_input, refusal_counts
from grasp_monitor.nodes.lost_inputs import lost_counts
from rclpy.node import Node

T = TypeVar('T')


class InputWatch:
    """A node's input streams: each read through ``read_input``, each watched for silence.

    Each input is due at least once a sample period: one silent 10 periods (and at
    least 0.5 s, ``StreamWatch``) is STALE.
    """

    def __init__(self, node: Node, topics: Iterable[str], period_s: float) -> None:
        self.node = node
        self.refused: Counter[str] = Counter()
        self.streams = StreamWatch(dict.fromkeys(topics, period_s))

    def read(self, topic: str, read: Callable[[], T], stream: str | None = None) -> T | None:
        """Return what ``read`` reads (None: refused, ``read_input``); news of ``stream``.

        Args:
            topic: what a refusal's log line names.
            read: reads the message.
            stream: the watched stream it comes on (default ``topic``; '' = none).
        """
        value = read_input(self.node, self.refused, topic, read)
        if value is not None:
            self.heard(topic if stream is None else stream)
        return value

    def heard(self, stream: str) -> None:
        """Note a reading of ``stream`` now ('' = none)."""
        if stream:
            self.streams.heard(stream, wall_now_s())

    def counts(self) -> dict[str, int]:
        """Return the refused (``refused_inputs``, by kind) and the lost inputs (by topic)."""
        return refusal_counts(self.refused, 'refused_inputs') | lost_counts(self.node)

    def silent(self) -> list[str]:
        """Return the streams that stopped (STALE)."""
        return [s.name for s in self.streams.statuses(wall_now_s()) if s.stale]

    def statuses(self) -> list[DiagnosticStatus]:
        """Return one status per stream: OK while it flows, STALE once it stopped."""
        return stream_statuses(self.node, self.streams)

    def array(self, statuses: list[DiagnosticStatus]) -> DiagnosticArray:
        """Return ``/diagnostics``' message: ``statuses``, then each stream's, stamped now."""
        msg = DiagnosticArray()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.status = statuses + self.statuses()
        return msg
