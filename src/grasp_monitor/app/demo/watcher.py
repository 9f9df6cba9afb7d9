"""The demo's own ROS node: it watches the graph's topics and calls its services."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
import threading
import time
from typing import Callable

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.app.demo.pad_forces import pad_inputs, read_pad
from grasp_monitor.app.demo.plan import GraphPlan
from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.qos import EVENTS_QOS, sensor_qos
import rclpy
from rclpy.executors import SingleThreadedExecutor
from sensor_msgs.msg import JointState, PointCloud2
from std_srvs.srv import SetBool, Trigger


#: A stream's first message stamped this close after the reset's time is of the new timeline, s.
NEW_TIMELINE_S = 0.1


@dataclass
class Watched:
    """What the demo's subscriptions saw; guarded by ``Watcher.lock``."""

    counts: Counter = field(default_factory=Counter)
    sim_time_s: float = 0.0
    events: list[dict[str, str]] = field(default_factory=list)
    sim_status: dict[str, str] = field(default_factory=dict)
    sim_status_seq: int = 0
    phase: str = ''
    criteria: dict[str, str] = field(default_factory=dict)
    criteria_seq: int = 0
    energy_j: list[float] = field(default_factory=list)
    #: the stamp of each of ``energy_j``, s
    energy_s: list[float] = field(default_factory=list)
    #: (stamp s, epsilon L1, epsilon L∞) of every metrics sample
    epsilon: list[tuple[float, float, float]] = field(default_factory=list)
    reward: list[float] = field(default_factory=list)
    #: the next sample the monitor's latest verdict says is due, s (this timeline's)
    verdict_next_s: float = 0.0
    pad_force_n: list[float] = field(default_factory=list)
    recorded: dict[str, int] = field(default_factory=dict)
    metrics_samples: int = 0
    #: the latest stamp of each shown stream (joints, a pad), s
    stamps_s: dict[str, float] = field(default_factory=dict)
    #: from ``Watcher.begin_window``: the reset's time, s, and each stream's last old stamp
    window_from_s: float | None = None
    old_end_s: dict[str, float] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)

    def on_new_timeline(self, stream: str, stamp_s: float) -> bool:
        """Whether a reading of ``stream`` is to be shown: none from before the reset.

        A stream's messages arrive in order, so once one is of the new timeline (its
        stamp went back, or is just after the reset's time) all after it are.
        """
        if self.window_from_s is not None and stream not in self.fresh:
            if not (stamp_s < self.old_end_s.get(stream, float('inf')) or
                    stamp_s <= self.window_from_s + NEW_TIMELINE_S):
                return False  # sent before the reset, delivered after it
            self.fresh.add(stream)
        self.stamps_s[stream] = stamp_s
        return True


class Watcher:
    """The demo's own ROS node: subscriptions on the graph's topics and its service clients."""

    def __init__(self, plan: GraphPlan):

        self.rclpy = rclpy
        self.plan = plan
        self.context = rclpy.Context()
        rclpy.init(context=self.context, args=[])
        self.node = rclpy.create_node('grasp_monitor_demo', context=self.context)
        self.lock = threading.Lock()
        self.seen = Watched()
        self.inputs = pad_inputs(plan)
        self._subscribe()
        # one thread: rclpy's multi-threaded executor costs several times more per message
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()

    def _subscribe(self) -> None:

        # QoS as published (reliable, volatile). The view wants the latest sensor sample
        # only (a Python reader cannot take 250 Hz streams on a busy machine and would lag);
        # the figure reads every sample back from the recording. The counted topics get a
        # deep queue, so a slow moment loses none.
        node, latest, qos = self.node, sensor_qos(False, 1), sensor_qos(False, 1000)
        node.create_subscription(JointState, 'joint_states', self._on_joints, latest)
        for pad in self.plan.pads:
            node.create_subscription(PointCloud2, f'tactile/{pad}',
                                     lambda m, pad=pad: self._on_pad(pad, m), latest)
        node.create_subscription(DiagnosticArray, 'grasp_monitor/verdicts', self._on_verdict,
                                 latest)
        node.create_subscription(DiagnosticStatus, 'grasp_monitor/events', self._on_event,
                                 EVENTS_QOS)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics, 50)
        node.create_subscription(Vector3Stamped, 'grasp_metrics/energy', self._on_energy, qos)
        node.create_subscription(Vector3Stamped, 'grasp_metrics/reward', self._on_reward, qos)
        node.create_subscription(Vector3Stamped, 'grasp_metrics/epsilon', self._on_epsilon,
                                 qos)
        self.trigger = {name: node.create_client(Trigger, name) for name in (
            'mujoco_sim/reset', 'grasp_monitor/start', 'grasp_monitor/stop',
            'grasp_controller/start')}
        self.pause_client = node.create_client(SetBool, 'mujoco_sim/pause')
        self.SetBool, self.Trigger = SetBool, Trigger

    def _on_joints(self, msg) -> None:
        try:
            stamp_s = conversions.joint_velocities_from_msg(msg)[2]  # as the monitor reads it
        except GraspMonitorError:
            return  # not the simulator's: the nodes refuse and count it
        with self.lock:
            if self.seen.on_new_timeline('joints', stamp_s):
                self.seen.sim_time_s = stamp_s

    def _on_pad(self, pad: str, msg) -> None:
        with self.lock:
            if self.seen.on_new_timeline(pad, conversions.time_from_msg(msg.header.stamp)) \
                    and read_pad(self.inputs, pad, msg) is not None:
                self.seen.pad_force_n = self.inputs.pad_forces_n().tolist()

    def _on_verdict(self, msg) -> None:
        verdict = conversions.verdict_from_msg(msg)
        if verdict is not None:
            with self.lock:
                if self.seen.on_new_timeline('verdicts', verdict[0]):
                    self.seen.verdict_next_s = verdict[2]

    def _on_event(self, msg) -> None:
        with self.lock:
            self.seen.counts['/grasp_monitor/events'] += 1
            self.seen.events.append({kv.key: kv.value for kv in msg.values})

    def _on_diagnostics(self, msg) -> None:
        with self.lock:
            self.seen.counts['/diagnostics'] += 1
            for status in msg.status:
                values = {kv.key: kv.value for kv in status.values}
                if status.name.endswith(': simulation'):
                    self.seen.sim_status = values
                    self.seen.sim_status_seq += 1
                elif status.name.endswith(': script'):
                    # stamped by the controller's clock, maybe wall time: not filtered; the
                    # window begins seconds after the pause, when none from before is due
                    self.seen.phase = values.get('phase', '')
                elif status.name.endswith(': criteria'):
                    self.seen.criteria = values
                    self.seen.criteria_seq += 1
                elif status.name.endswith(': energy'):
                    self.seen.metrics_samples = int(values.get('samples', 0))
                elif status.name.endswith(': recording'):
                    self.seen.recorded = {k.partition('.')[2]: int(v) for k, v in
                                          values.items() if k.startswith('messages.')}

    def _on_energy(self, msg) -> None:
        with self.lock:
            self.seen.counts['/grasp_metrics/energy'] += 1
            self.seen.energy_j.append(msg.vector.x)
            self.seen.energy_s.append(conversions.time_from_msg(msg.header.stamp))

    def _on_epsilon(self, msg) -> None:
        with self.lock:
            self.seen.epsilon.append((conversions.time_from_msg(msg.header.stamp), msg.vector.x,
                                      msg.vector.y))

    def _on_reward(self, msg) -> None:
        with self.lock:
            self.seen.counts['/grasp_metrics/reward'] += 1
            self.seen.reward.append(msg.vector.x)

    def snapshot(self, read: Callable[[Watched], object]):
        """Return ``read(seen)`` under the lock."""
        with self.lock:
            return read(self.seen)

    def begin_window(self, reset_s: float) -> None:
        """Forget counts, energy and readings: the recording window starts now.

        Args:
            reset_s: the simulated time the reset went back to; readings sent before
                it and delivered after are not shown.
        """
        with self.lock:
            seen = self.seen
            seen.counts.clear()
            seen.energy_j.clear()
            seen.energy_s.clear()
            seen.epsilon.clear()
            seen.pad_force_n, seen.phase, seen.sim_time_s = [], '', reset_s
            seen.verdict_next_s = reset_s
            seen.window_from_s, seen.old_end_s = reset_s, dict(seen.stamps_s)
            seen.fresh.clear()
            self.inputs = pad_inputs(self.plan)

    def wait(self, predicate: Callable[[Watched], object], timeout_s: float,
             alive: Callable[[], None] = lambda: None) -> object:
        """Poll ``predicate(seen)`` until true or ``timeout_s`` passes; return its value."""
        deadline = time.monotonic() + timeout_s
        while True:
            value = self.snapshot(predicate)
            if value or time.monotonic() > deadline:
                return value
            alive()
            time.sleep(0.05)

    def call(self, client, request, timeout_s: float = 10.0):
        """Call a service; raise ``DemoError`` when it is absent or does not answer."""
        if not client.wait_for_service(timeout_sec=timeout_s):
            raise DemoError(f'service {client.srv_name} did not appear within {timeout_s:g} s')
        future = client.call_async(request)
        deadline = time.monotonic() + timeout_s
        while not future.done() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not future.done():
            raise DemoError(f'service {client.srv_name} did not answer within {timeout_s:g} s')
        return future.result()

    def pause(self, paused: bool) -> None:
        """Pause or resume the simulator."""
        self.call(self.pause_client, self.SetBool.Request(data=paused))

    def subscriptions_of(self, node_name: str) -> set[str]:
        """Return the topics a node of the graph subscribes to (empty until discovered)."""
        try:
            return {name for name, _ in self.node.get_subscriber_names_and_types_by_node(
                node_name, '/')}
        except Exception:  # rclpy raises NodeNameNonExistentError until it is discovered
            return set()

    def close(self) -> None:
        """Stop spinning and shut the context down."""
        self.executor.shutdown(timeout_sec=5.0)
        self.thread.join(timeout=5.0)
        self.node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


class DemoError(Exception):
    """The graph did not do what the demo needs; the message says what."""
