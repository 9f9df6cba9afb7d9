"""Refused inputs: a message that cannot be read, or whose stamp leaves its stream.

Each is counted by kind (``refusal_counts``), logged throttled (or once per input, for
stamps) and dropped; the node lives on.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, TypeVar

from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.monitor import StampGrid
from rclpy.node import Node

T = TypeVar('T')


def read_input(node: Node, refused: Counter, topic: str, read: Callable[[], T]) -> T | None:
    """Return ``read()``; a refused input is counted by kind, logged (throttled), gives None."""
    try:
        return read()
    except GraspMonitorError as error:
        refused[getattr(error, 'kind', 'invalid')] += 1
        node.get_logger().warning(f'dropped {topic}: {error}', throttle_duration_sec=1.0)
        return None


def log_refused_stamps(node: Node, grid: StampGrid, names: tuple[str, ...]) -> None:
    """Log the first reading of each input ``grid`` refuses for its stamp, once per input.

    The rest are counted only (``refused_stamps``): a flood must not flood the log too.
    """
    warned: set[int] = set()

    def on_refused(index: int, stamp_s: float, last_s: float) -> None:
        if index not in warned:
            warned.add(index)
            node.get_logger().warning(
                f'refused {names[index]} stamped {stamp_s:.6f} s: off its stream (last '
                f'{last_s:.6f} s) and its next reading went on from there; further ones '
                'are counted in refused_stamps, not logged')
    grid.stamps.on_refused = on_refused


def refusal_counts(refused: Counter, total_key: str) -> dict[str, int]:
    """Return diagnostic values of refusals: their total under ``total_key``, then by kind."""
    return {total_key: sum(refused.values())} | {
        f'refused.{kind}': count for kind, count in refused.items()}
