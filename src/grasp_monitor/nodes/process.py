"""How every node's process runs: spinning until a signal, tearing down, exit codes.

For ROS 2 Jazzy and Kilted (rclpy 7 and later): Humble's rclpy has neither
``rclpy.experimental.EventsExecutor`` nor the ``rclpy.event_handler`` module the nodes
import.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Callable

from grasp_monitor.core.errors import GraspMonitorError
import rclpy
from rclpy._rclpy_pybind11 import RCLError
from rclpy.exceptions import InvalidHandle
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.experimental import EventsExecutor
from rclpy.guard_condition import GuardCondition
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

#: Wall seconds an EventsExecutor waits at most before the process looks for a stop request.
STOP_POLL_S = 0.1
#: Wall seconds between two looks at whether the parent process still lives.
PARENT_POLL_S = 0.2
#: The process that started this one, as soon as this module is imported.
_PARENT_PID = os.getppid()


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
        """Wake ``node``'s executor on a signal, with a guard condition of ``node``.

        Not for an EventsExecutor, which refuses guard conditions: it is polled instead.
        """
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


def watch_parent(parent_pid: int = _PARENT_PID, poll_s: float = PARENT_POLL_S) -> None:
    """SIGTERM this process once its parent ``parent_pid`` is gone (it is then reparented).

    A launch stopped by SIGTERM (docker stop, systemd) exits at once and leaves its
    children running. Linux's parent-death signal would fire when the parent *thread*
    that started the child ends, which a launcher's worker thread does; the parent pid
    is what names the launch, so a daemon thread watches it instead (a getppid call per
    ``poll_s``; on any POSIX system). A process whose parent is init from the start
    (pid 1: a service, a container's entry point) has nothing to watch.
    """
    if parent_pid <= 1:
        return

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)  # the usual way out: destroy, shut down, exit 0
    threading.Thread(target=watch, name='parent_watch', daemon=True).start()


def exits_with_parent(node: Node) -> bool:
    """Return the node's ``exit_with_parent`` parameter (True when it declares none)."""
    if node.has_parameter('exit_with_parent'):
        return bool(node.get_parameter('exit_with_parent').value)
    return True


def executor_kind(node: Node) -> str:
    """Return the node's ``executor`` parameter (``events`` when it declares none)."""
    if node.has_parameter('executor'):
        return node.get_parameter('executor').value
    return 'events'


def make_executor(kind: str) -> Executor:
    """Return an executor of ``kind``: ``events`` or ``single_threaded``.

    One thread either way: a node's callbacks share one mutually exclusive group anyway,
    and a pool's hand-offs under the GIL cost CPU and starve callbacks on a loaded machine.
    The EventsExecutor dispatches from C++ (about half rclpy's CPU per message).
    """
    return EventsExecutor() if kind == 'events' else SingleThreadedExecutor()


def run_node(factory: Callable[[], Node | list[Node]], args: list[str] | None = None) -> int:
    """Create the node(s), spin them in one executor until shutdown, clean up (Jazzy, Kilted).

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
        if exits_with_parent(nodes[0]):
            watch_parent()
        kind = executor_kind(nodes[0])
        executor = make_executor(kind)
        for node in nodes:
            executor.add_node(node)
        if kind == 'events':
            # spin() neither ran timers nor returned on a signal (rclpy 7.1.6): spin_once
            # with a timeout does both, and lets the signal's flag be read
            while not stop.requested and rclpy.ok():
                executor.spin_once(timeout_sec=STOP_POLL_S)
        else:
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
