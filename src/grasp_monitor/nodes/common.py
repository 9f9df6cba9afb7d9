"""What every node's process does the same way: QoS, spinning, exit codes."""

from __future__ import annotations

from collections import Counter
import signal
import sys
from typing import Callable, TypeVar

from grasp_monitor.core.errors import CommandError, GraspMonitorError
from grasp_monitor.core.servo import ServoCommand
import rclpy
from rclpy._rclpy_pybind11 import RCLError
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy

T = TypeVar('T')


def sensor_qos(best_effort: bool, depth: int = 10) -> QoSProfile:
    """Return the QoS of sensor streams: reliable by default, best effort on request."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth,
        reliability=ReliabilityPolicy.BEST_EFFORT if best_effort
        else ReliabilityPolicy.RELIABLE)


def read_input(node: Node, refused: Counter, topic: str, read: Callable[[], T]) -> T | None:
    """Return ``read()``; a refused input is counted by kind, logged (throttled), gives None."""
    try:
        return read()
    except GraspMonitorError as error:
        refused[getattr(error, 'kind', 'invalid')] += 1
        node.get_logger().warning(f'dropped {topic}: {error}', throttle_duration_sec=1.0)
        return None


def refusal_counts(refused: Counter, total_key: str) -> dict[str, int]:
    """Return diagnostic values of refusals: their total under ``total_key``, then by kind."""
    return {total_key: sum(refused.values())} | {
        f'refused.{kind}': count for kind, count in refused.items()}


def accept_servo_command(node: Node, refused: Counter, make: Callable[[], ServoCommand],
                         apply: Callable[[ServoCommand], object]) -> None:
    """Apply the command ``make`` builds; count a refused one by kind and log it (throttled)."""
    try:
        apply(make())
    except CommandError as error:
        refused[error.kind] += 1
        node.get_logger().warning(f'refused servo command: {error}', throttle_duration_sec=1.0)


def run_node(factory: Callable[[], Node | list[Node]], args: list[str] | None = None) -> int:
    """Create the node(s), spin them in one executor until shutdown, clean up (Humble to Kilted).

    Args:
        factory: creates one node, or several that share the process.
        args: command-line arguments, ROS arguments included.

    Returns:
        0, or 2 after a configuration error or arguments rcl cannot read (the reason
        on stderr).
    """
    # rclpy's own handler shuts the context down, which ends the spin; Python's
    # KeyboardInterrupt, raised wherever the interpreter is at the time (a finalizer, a
    # message being converted), would only add tracebacks to a clean exit.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        rclpy.init(args=args)
    except RCLError as error:  # e.g. a params file that does not parse
        print(f'error: {error}', file=sys.stderr)
        return 2
    nodes: list[Node] = []
    try:
        made = factory()
        nodes = made if isinstance(made, list) else [made]
        # One thread: a node's callbacks share one mutually exclusive group anyway, and a
        # pool's hand-offs under the GIL cost CPU and starve callbacks on a loaded machine.
        executor = SingleThreadedExecutor()
        for node in nodes:
            executor.add_node(node)
        executor.spin()
    except GraspMonitorError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RCLError:
        if rclpy.ok():
            raise  # a real failure; otherwise a signal's shutdown raced the executor
    finally:
        for node in reversed(nodes):
            node.destroy_node()
        rclpy.try_shutdown()
    return 0
