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
from rclpy.guard_condition import GuardCondition
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


class _StopRequest:
    """SIGINT or SIGTERM as Python sees it: ends the spin whether or not the context is down.

    rclpy's handler wakes the executor, then shuts the context down from its own thread. An
    executor that wakes in between finds the context up, waits again, and nothing wakes it
    a second time: the node never exits (seen about once in 20 demos). This handler runs in
    the main thread once it is awake, and its guard condition gives the executor work to
    return on. It also keeps KeyboardInterrupt, raised wherever the interpreter happens to be
    (a finalizer, a message being converted), from adding tracebacks to a clean exit.
    """

    def __init__(self) -> None:
        self.requested = False
        self.guard: GuardCondition | None = None

    def __call__(self, signum: int, frame: object) -> None:
        self.requested = True
        if self.guard is not None:
            self.guard.trigger()


def run_node(factory: Callable[[], Node | list[Node]], args: list[str] | None = None) -> int:
    """Create the node(s), spin them in one executor until shutdown, clean up (Humble to Kilted).

    Args:
        factory: creates one node, or several that share the process.
        args: command-line arguments, ROS arguments included.

    Returns:
        0, or 2 after a configuration error or arguments rcl cannot read (the reason
        on stderr).
    """
    stop = _StopRequest()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)  # before rclpy.init, whose handlers call these first
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
        stop.guard = nodes[0].create_guard_condition(lambda: None)
        while not stop.requested and rclpy.ok():
            executor.spin_once()
    except GraspMonitorError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RCLError:
        if rclpy.ok():
            raise  # a real failure; otherwise a signal's shutdown raced the executor
    finally:
        stop.guard = None  # a second signal must not touch a destroyed guard
        for node in reversed(nodes):
            node.destroy_node()
        try:
            rclpy.try_shutdown()
        except RCLError:
            if rclpy.ok():
                raise  # otherwise rclpy's signal thread shut the context down first
    return 0
