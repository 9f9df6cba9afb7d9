"""What every node's process does the same way: QoS, spinning, exit codes."""

from __future__ import annotations

from collections import Counter
import importlib
import os
import signal
import sys
import threading
from typing import Callable, TypeVar

from grasp_monitor.core.errors import CommandError, ConfigError, GraspMonitorError
from grasp_monitor.core.pad_contacts import ObjectContacts, PadContacts
from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.nodes import conversions
from grasp_monitor.recording import split_type, TopicQos
import rclpy
from rclpy._rclpy_pybind11 import RCLError
from rclpy.exceptions import InvalidHandle
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.guard_condition import GuardCondition
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import PointCloud2
from std_msgs.msg import String

T = TypeVar('T')
#: grasp_monitor/events: reliable and transient local, so a late subscriber gets the trial.
EVENTS_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: grasp_monitor/verdicts: one per sample, none lost while the simulator waits for them.
VERDICTS_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
#: /tf and /tf_static as tf2 uses them: a static broadcaster's one message reaches late
#: listeners, which keep up to 100 (several broadcasters).
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TF_STATIC_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                           durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: A table published once for every late subscriber (contacts/bodies).
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF_STATIC_LISTENER_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                                    durability=DurabilityPolicy.TRANSIENT_LOCAL)


def sensor_qos(best_effort: bool, depth: int = 10) -> QoSProfile:
    """Return the QoS of sensor streams: reliable by default, best effort on request."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth,
        reliability=ReliabilityPolicy.BEST_EFFORT if best_effort
        else ReliabilityPolicy.RELIABLE)


def message_class(type_name: str) -> type:
    """Return the Python class of a message type ``pkg/msg/Name``.

    Raises:
        ConfigError: the type's package is not installed.
    """
    package, name = split_type(type_name)
    try:
        return getattr(importlib.import_module(f'{package}.msg'), name)
    except (ImportError, AttributeError) as error:
        raise ConfigError(f'message type {type_name} is not installed: {error}') from error


def qos_profile(qos: TopicQos, depth: int) -> QoSProfile:
    """Return the rclpy profile of a topic's QoS, keeping the last ``depth`` messages."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST, depth=depth,
        reliability=ReliabilityPolicy.RELIABLE if qos.reliable
        else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if qos.transient_local
        else DurabilityPolicy.VOLATILE)


def resolved(node: Node, names: list[str]) -> tuple[str, ...]:
    """Resolve topic names against the node's namespace ('' entries are dropped)."""
    return tuple(node.resolve_topic_name(name) for name in names if name)


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


def subscribe_contacts(node: Node, refused: Counter, topic: str, contacts: ObjectContacts,
                       qos: QoSProfile, group, sink: Callable[[PadContacts], None]) -> None:
    """Subscribe to the pads' contacts on ``topic`` and their body names on ``topic/bodies``.

    Each sample goes to ``sink`` once the names are known (until then ``contacts`` holds
    it); a malformed one is counted and logged as ``read_input`` does.
    """
    def on_contacts(msg: PointCloud2) -> None:
        sample = read_input(node, refused, 'contacts',
                            lambda: conversions.pad_contacts_from_msg(msg))
        if sample is not None:
            for held in contacts.take(sample):
                sink(held)

    def on_bodies(msg: String) -> None:
        try:
            held = contacts.bodies(conversions.body_names_from_msg(msg))
        except GraspMonitorError as error:
            node.get_logger().error(f'contacts/bodies: {error}')
            return
        for sample in held:
            sink(sample)

    node.create_subscription(PointCloud2, topic, on_contacts, qos, callback_group=group)
    node.create_subscription(String, f'{topic}/bodies', on_bodies, LATCHED_QOS,
                             callback_group=group)


def accept_servo_command(node: Node, refused: Counter, make: Callable[[], ServoCommand],
                         apply: Callable[[ServoCommand], object]) -> None:
    """Apply the command ``make`` builds; count a refused one by kind and log it (throttled)."""
    try:
        apply(make())
    except CommandError as error:
        refused[error.kind] += 1
        node.get_logger().warning(f'refused servo command: {error}', throttle_duration_sec=1.0)


class _StopRequest:
    """SIGINT or SIGTERM: ends the spin, and the process then tears down in one thread.

    rclpy's own handler wakes the executor, then shuts the context down from its own thread:
    an executor that wakes in between finds the context up, waits again, and is never woken
    (seen about once in 20 demos), and one that stops on its own races that shutdown while
    it destroys its entities (seen hanging in ``destroy_timer``). So rclpy's handlers are
    off; Python's handler replaces KeyboardInterrupt (raised wherever the interpreter is)
    with a flag, and the signal's byte on the wakeup fd lets a thread trigger a guard
    condition, which wakes the executor with work to return on; the main thread then
    destroys the nodes and shuts the context down, alone.
    """

    def __init__(self) -> None:
        self.requested = False
        self._lock = threading.Lock()
        self._guard: GuardCondition | None = None
        read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._on_signal)
        signal.set_wakeup_fd(self._write_fd)
        threading.Thread(target=self._wake, args=(read_fd,), daemon=True).start()

    def watch(self, node: Node) -> None:
        """Wake ``node``'s executor on a signal, with a guard condition of ``node``."""
        with self._lock:
            self._guard = node.create_guard_condition(lambda: None)
            if self.requested:  # a signal while the node was being made
                self._guard.trigger()

    def _on_signal(self, signum: int, frame: object) -> None:
        self.requested = True

    def _wake(self, read_fd: int) -> None:
        with os.fdopen(read_fd, 'rb', buffering=0) as wakeups:
            while wakeups.read(1):
                with self._lock:
                    self.requested = True
                    if self._guard is not None:
                        try:
                            self._guard.trigger()
                        except InvalidHandle:
                            pass  # its node went first

    def close(self) -> None:
        """Stop listening, before the guard condition goes with its node; the thread ends."""
        with self._lock:
            self._guard = None
        signal.set_wakeup_fd(-1)
        os.close(self._write_fd)


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
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    except RCLError as error:  # e.g. a params file that does not parse
        stop.close()
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
        stop.watch(nodes[0])
        while not stop.requested and rclpy.ok():
            executor.spin_once()
    except GraspMonitorError as error:
        print(f'error: {error}', file=sys.stderr)
        return 2
    except ExternalShutdownException:
        pass
    finally:
        stop.close()
        for node in reversed(nodes):
            node.destroy_node()
        rclpy.try_shutdown()
    return 0
