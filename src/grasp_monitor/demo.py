"""``grasp-monitor demo``: the whole graph as separate processes, one trial, a report.

The demo starts ``mujoco_sim`` (with its tactile sensor), ``grasp_monitor``,
``grasp_metrics``, ``grasp_controller`` (pick_lift only) and the recorder as
separate processes, each in its own process group and with its output in a log
file, all with the scenario's ``config/<scenario>.yaml``. It then runs one trial
through the services and watches it live, and ends with a results table, a JSON
summary, the MCAP and a PNG figure.

The recording window is bounded by pauses of the simulator: the recorder starts
while the simulator is paused and stops after it is paused again, so every
message the simulator published in between is in the window. The simulator
reports its tick count on ``/diagnostics``; each tick publishes ``/clock``,
``joint_states`` and every ``ground_truth/<body>`` once, and every k-th tick each
``tactile/<pad>``. Those counts, and the monitor's own list of the events it
published, are what the MCAP's counts are checked against.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
import importlib.util
import json
import os
from pathlib import Path
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, TextIO

from grasp_monitor.core.criteria import CRITERIA
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.demo_report import (
    DemoResult, event_line, plot_summary, results_table, Series, status_lines, TopicCount,
    write_json)
from grasp_monitor.nodes import node_command
from grasp_monitor.results_dir import new_run_dir, point_latest
from grasp_monitor.scenario_config import default_params_file, ScenarioConfig

#: Nodes the demo can start, each as ``python -m grasp_monitor.nodes.<name>``.
GRAPH_NODES = ('mujoco_sim', 'grasp_monitor', 'grasp_metrics', 'grasp_controller')
#: The recorder node (branch ``record``): parameter ``path``, MCAP finished on SIGINT.
RECORDER = 'recorder'
#: pick_lift's lift axis, drawn beside the fingers.
LIFT_JOINT = 'lift'
#: A stream's first message stamped this close after the reset's time is of the new timeline, s.
NEW_TIMELINE_S = 0.1
#: Simulated seconds a monitoring trial (a scenario without a controller) lasts.
DEFAULT_MONITORING_S = 10.0


@dataclass(frozen=True)
class DemoOptions:
    """How the demo runs.

    Attributes:
        scenario: scenario name; its parameter file is ``config/<scenario>.yaml``.
        output_dir: each run writes its logs, MCAP, JSON and PNG into a folder of
            its own here, ``<UTC time>/``, and points ``latest`` at it.
        headless: plain lines instead of a redrawn block (also whenever stdout is no TTY).
        duration_s: end the trial after this much simulated time (default: pick_lift
            runs until the monitor ends the trial, others for ``DEFAULT_MONITORING_S``).
        timeout_s: wall-clock limit of the trial, s.
        startup_timeout_s: wall-clock limit for the graph to come up, s.
        grace_s: wait this long after SIGINT before SIGKILL, s.
        params_file: a parameter file other than the scenario's.
    """

    scenario: str = 'pick_lift'
    output_dir: Path = Path('results/demo')
    headless: bool = False
    duration_s: float | None = None
    timeout_s: float = 120.0
    startup_timeout_s: float = 60.0
    grace_s: float = 10.0
    params_file: Path | None = None


@dataclass(frozen=True)
class GraphPlan:
    """What the parameter file makes of the graph: nodes, pads, joints, topics.

    Attributes:
        params_file: the parameter file every process gets.
        scenario: the simulator's scenario.
        nodes: the graph's node processes to start, in order.
        pads: tactile pads.
        finger_joints: joints drawn as finger positions.
        tracked_bodies: bodies with ``ground_truth/<body>``.
        tactile_every: simulator ticks per tactile cloud.
        hosted_controller: the simulator hosts the grasp controller (in lockstep).
        monitor_verdicts: the simulator takes the monitor's verdicts.
    """

    params_file: Path
    scenario: str
    nodes: tuple[str, ...]
    pads: tuple[str, ...]
    finger_joints: tuple[str, ...]
    tracked_bodies: tuple[str, ...]
    tactile_every: int
    hosted_controller: bool = False
    monitor_verdicts: bool = False

    @property
    def has_controller(self) -> bool:
        """Whether a grasp controller drives the trial."""
        return self.hosted_controller or 'grasp_controller' in self.nodes

    @classmethod
    def from_file(cls, params_file: Path) -> GraphPlan:
        """Read the plan from a parameter file keyed by node name.

        Raises:
            ConfigError: the file does not parse or lacks a needed node.
        """
        from grasp_monitor.nodes.mujoco_sim_parameters import scenario_params, scene_settings
        from grasp_monitor.sim.backend import Simulator
        from grasp_monitor.sim.runner import RunConfig
        from grasp_monitor.sim.scenes import build_scene
        config = ScenarioConfig.from_file(params_file)
        given = config.given
        for node in ('mujoco_sim', 'grasp_monitor', 'grasp_metrics'):
            if node not in given:
                raise ConfigError(f'{params_file} has no {node} parameters')
        sim = config.node('mujoco_sim')
        scene = build_scene(sim['scenario'], scene_settings(sim), **scenario_params(sim))
        simulator = Simulator(scene)  # its tracked bodies and step, exactly as the node has them
        tick_s = RunConfig(sim['publish_rate']).steps_per_tick(simulator.timestep_s) \
            * simulator.timestep_s
        tactile = config.node('tactile_sensor') | {'pads': list(scene.pads)} \
            | dict(given.get('tactile_sensor', {}))
        every = max(1, round(1.0 / tick_s / tactile['publish_rate']))  # as tactile_sensor does
        monitor = config.node('grasp_monitor')
        hosted = bool(sim['controller'])
        return cls(
            Path(params_file), sim['scenario'],
            tuple(n for n in GRAPH_NODES if n in given
                  and not (hosted and n == 'grasp_controller')),
            tuple(tactile['pads']) if sim['tactile'] else (), tuple(monitor['finger_joints']),
            tuple(simulator.tracked_bodies), every, hosted, bool(sim['monitor']))

    def published_per_tick(self) -> dict[str, int]:
        """Return each simulator topic with the ticks per message."""
        topics = {'/clock': 1, '/joint_states': 1}
        topics.update({f'/ground_truth/{body}': 1 for body in self.tracked_bodies})
        topics.update({f'/tactile/{pad}': self.tactile_every for pad in self.pads})
        return topics


class NodeProcess:
    """One node in its own process group, its output in a log file."""

    def __init__(self, name: str, args: list[str], log_path: Path, env: dict[str, str]):
        self.name = name
        self.log_path = log_path
        self._log = log_path.open('w')
        self.waited = False
        self.reported = False  # a failure of this process is said once
        self.popen = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log,
                                      stderr=subprocess.STDOUT, env=env, process_group=0)
        self.stopping = False

    def alive(self) -> bool:
        """Whether the process still runs."""
        return self.popen.poll() is None

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the process group (its children too)."""
        try:
            os.killpg(self.popen.pid, signum)
        except ProcessLookupError:
            pass

    def tail(self, lines: int = 12) -> str:
        """Return the last lines of the log."""
        self._log.flush()
        text = self.log_path.read_text(errors='replace').splitlines()
        return '\n'.join('    ' + line for line in text[-lines:])

    def close(self) -> None:
        """Close the log file."""
        self._log.close()


class ProcessGroup:
    """The demo's node processes: started with the parameter file, stopped with SIGINT."""

    def __init__(self, params_file: Path, logs_dir: Path, env: dict[str, str]):
        self.params_file = params_file
        self.logs_dir = logs_dir
        self.env = env
        self.processes: list[NodeProcess] = []

    def start(self, name: str, **params: object) -> NodeProcess:
        """Start node ``name`` with the parameter file, then ``params`` (which win)."""
        args = node_command(name, params, params_file=self.params_file)
        process = NodeProcess(name, args, self.logs_dir / f'{name}.log', self.env)
        self.processes.append(process)
        return process

    def died(self) -> list[str]:
        """Return a failure for each process that exited before it was asked to."""
        return [_failure(p, f'exited with status {p.popen.returncode} before it was stopped')
                for p in self.processes if not p.stopping and not p.reported and not p.alive()]

    def stop(self, processes: list[NodeProcess], grace_s: float) -> list[str]:
        """SIGINT ``processes``, wait, SIGKILL after ``grace_s``; return their failures."""
        return self.interrupt(processes) + self.wait(processes, grace_s)

    @staticmethod
    def interrupt(processes: list[NodeProcess]) -> list[str]:
        """SIGINT each process still running; return a failure for each that had exited."""
        failures = []
        for process in processes:
            if process.stopping:
                continue
            process.stopping = True
            if process.alive():
                process.signal(signal.SIGINT)
            elif not process.reported:
                failures.append(_failure(
                    process, f'exited with status {process.popen.returncode} before it was '
                    'stopped'))
        return failures

    @staticmethod
    def wait(processes: list[NodeProcess], grace_s: float) -> list[str]:
        """Wait for interrupted processes, SIGKILL after ``grace_s``; return their failures."""
        failures = []
        deadline = time.monotonic() + grace_s
        for process in processes:
            if process.waited:
                continue
            try:
                status = process.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.signal(signal.SIGKILL)
                process.popen.wait()
                failures.append(_failure(
                    process, f'did not stop within {grace_s:g} s of SIGINT and was killed'))
            else:
                # -SIGINT: interrupted while still importing, before it could handle it
                if status not in (0, -signal.SIGINT) and not process.reported:
                    failures.append(_failure(process, f'exited with status {status}'))
            process.waited = True
            process.close()
        return failures


def _failure(process: NodeProcess, what: str) -> str:
    """Say once what went wrong with ``process``, with the end of its log."""
    process.reported = True
    return f'{process.name} {what}; {process.log_path} ends:\n{process.tail()}'


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
    reward: list[float] = field(default_factory=list)
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
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

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
        from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
        from geometry_msgs.msg import Vector3Stamped
        from sensor_msgs.msg import JointState, PointCloud2
        from std_srvs.srv import SetBool, Trigger

        from grasp_monitor.nodes.common import sensor_qos
        from grasp_monitor.nodes.common import EVENTS_QOS
        # QoS as published (reliable, volatile). The view wants the latest sensor sample
        # only (a Python reader cannot take 250 Hz streams on a busy machine and would lag);
        # the figure reads every sample back from the recording. The counted topics get a
        # deep queue, so a slow moment loses none.
        node, latest, qos = self.node, sensor_qos(False, 1), sensor_qos(False, 1000)
        node.create_subscription(JointState, 'joint_states', self._on_joints, latest)
        for pad in self.plan.pads:
            node.create_subscription(PointCloud2, f'tactile/{pad}',
                                     lambda m, pad=pad: self._on_pad(pad, m), latest)
        node.create_subscription(DiagnosticStatus, 'grasp_monitor/events', self._on_event,
                                 EVENTS_QOS)
        node.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics, 50)
        node.create_subscription(Vector3Stamped, 'grasp_metrics/energy', self._on_energy, qos)
        node.create_subscription(Vector3Stamped, 'grasp_metrics/reward', self._on_reward, qos)
        self.trigger = {name: node.create_client(Trigger, name) for name in (
            'mujoco_sim/reset', 'grasp_monitor/start', 'grasp_monitor/stop',
            'grasp_controller/start')}
        self.pause_client = node.create_client(SetBool, 'mujoco_sim/pause')
        self.SetBool, self.Trigger = SetBool, Trigger

    def _on_joints(self, msg) -> None:
        from grasp_monitor import conversions
        stamp_s = conversions.time_from_msg(msg.header.stamp)
        with self.lock:
            if self.seen.on_new_timeline('joints', stamp_s):
                self.seen.sim_time_s = stamp_s

    def _on_pad(self, pad: str, msg) -> None:
        from grasp_monitor import conversions
        with self.lock:
            if self.seen.on_new_timeline(pad, conversions.time_from_msg(msg.header.stamp)) \
                    and read_pad(self.inputs, pad, msg) is not None:
                self.seen.pad_force_n = self.inputs.pad_forces_n().tolist()

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
            seen.pad_force_n, seen.phase, seen.sim_time_s = [], '', reset_s
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


class LiveView:
    """The live console view: a redrawn block on a TTY, plain lines otherwise."""

    def __init__(self, stream: TextIO, redraw: bool):
        self.stream = stream
        self.redraw = redraw
        self._drawn = 0
        self._last_line_s = 0.0
        self._start_s = time.monotonic()

    def note(self, text: str) -> None:
        """Print a line above the block, after the wall time since the start."""
        self._clear()
        print(f'[{time.monotonic() - self._start_s:5.1f} s] {text}', file=self.stream,
              flush=True)

    def event(self, event: dict[str, str]) -> None:
        """Show an event as it fires."""
        self.note(event_line(event))

    def status(self, lines: list[str]) -> None:
        """Redraw the block, or print it as one line each second of wall time."""
        if self.redraw:
            self._clear()
            print('\n'.join(lines), file=self.stream, flush=True)
            self._drawn = len(lines)
        elif time.monotonic() - self._last_line_s >= 1.0:
            self._last_line_s = time.monotonic()
            self.note(' | '.join(line.strip() for line in lines))

    def _clear(self) -> None:
        if self.redraw and self._drawn:
            self.stream.write(f'\x1b[{self._drawn}F\x1b[J')  # up to the block, clear below
            self._drawn = 0


def demo_environment() -> dict[str, str]:
    """Return the environment of the demo's processes (and set it for this one).

    A private ``ROS_DOMAIN_ID`` unless one is set; discovery on this machine only
    unless a range is set.
    """
    os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    env = os.environ.copy()
    env.update(PYTHONUNBUFFERED='1', RCUTILS_COLORIZED_OUTPUT='0')
    return env


def recorder_available() -> bool:
    """Whether the recorder node is installed."""
    return importlib.util.find_spec(f'grasp_monitor.nodes.{RECORDER}') is not None


def run_demo(options: DemoOptions, stream: TextIO = sys.stdout) -> int:
    """Run the demo; return 0, or 1 when a node or the recording failed (said on stderr)."""
    params_file = options.params_file or default_params_file(options.scenario)
    plan = GraphPlan.from_file(params_file)
    output = new_run_dir(options.output_dir)  # never over an earlier run
    options = replace(options, output_dir=output)
    logs = output / 'logs'
    logs.mkdir(parents=True, exist_ok=True)
    env = demo_environment()
    monitoring = not plan.has_controller
    duration_s = options.duration_s or (DEFAULT_MONITORING_S if monitoring else None)
    mode = (f'monitoring for {duration_s:g} s, no grasp controller' if monitoring
            else 'scripted pick by grasp_controller, force test after the grasp')
    view = LiveView(stream, redraw=not options.headless and stream.isatty())
    view.note(f'grasp-monitor demo: {plan.scenario} ({mode}); parameters {params_file}; '
              f'ROS_DOMAIN_ID {env["ROS_DOMAIN_ID"]}; output {output}')
    result = DemoResult(plan.scenario, mode, logs_dir=str(logs), recording_note='' if
                        recorder_available() else f'no {RECORDER} node installed')
    graph = ProcessGroup(plan.params_file, logs, env)
    watcher: Watcher | None = None
    # SIGTERM (a timeout, a CI runner) stops the nodes as Ctrl-C does
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        view.note(f'starting {", ".join(plan.nodes)}' + (
            f' and the {RECORDER}' if recorder_available() else '') + '; logs in ' + str(logs))
        # a set length ends on its own tick: the simulator pauses there by itself
        graph.start('mujoco_sim', **({'pause_at': duration_s} if duration_s else {}))
        for name in plan.nodes[1:]:
            extra = {'event_log': output / 'events.jsonl'} if name == 'grasp_monitor' else {}
            graph.start(name, use_sim_time='true', **extra)
        watcher = Watcher(plan)
        _run_trial(options, plan, graph, watcher, view, result, duration_s)
    except DemoError as error:
        result.failures.append(str(error))
    except KeyboardInterrupt:
        result.failures.append('interrupted before the trial ended')
    finally:
        view.note('stopping the nodes')
        result.failures += graph.died()
        # the recorder last, so it sees every publisher go
        nodes = [p for p in graph.processes if p.name != RECORDER]
        result.failures += graph.interrupt(nodes)
        if watcher is not None:
            watcher.close()
        if result.mcap_path and result.events:  # drawn while the nodes shut down
            try:
                series = series_from_recording(Path(result.mcap_path), plan)
                result.png_path = str(plot_summary(result, series, output / 'summary.png'))
            except ConfigError as error:
                result.failures.append(f'no figure: {error}')
        result.failures += graph.wait(nodes, options.grace_s)
        rest = [p for p in graph.processes if p.name == RECORDER]
        result.failures += graph.stop(rest, options.grace_s)
    json_path = write_json(result, output / 'summary.json')
    point_latest(output)  # whatever the result: the newest run
    view.note('done')
    print(results_table(result) + f'\nresults    {json_path}', file=stream, flush=True)
    if result.failures:
        print('grasp-monitor demo failed:\n' + '\n'.join(result.failures), file=sys.stderr)
    return 1 if result.failures or not result.counts_match() else 0


def pad_inputs(plan: GraphPlan):
    """Return a MonitorInputs for the plan's pads: the monitor's own total force of a pad."""
    from grasp_monitor.core.monitor import InputsConfig, MonitorInputs
    return MonitorInputs(InputsConfig(plan.pads or ('none',), plan.finger_joints,
                                      use_object=False))


def read_pad(inputs, pad: str, msg) -> float | None:
    """Take a tactile cloud into ``inputs``; return its stamp, s (None: malformed, skipped)."""
    from grasp_monitor.conversions import tactile_cloud_from_msg
    from grasp_monitor.core.errors import GraspMonitorError
    try:
        _, forces, stamp_s = tactile_cloud_from_msg(msg)
    except GraspMonitorError:
        return None  # the monitor logs and counts malformed clouds; the demo skips them
    inputs.update_pad(pad, forces, stamp_s)
    return stamp_s


def series_from_recording(path: Path, plan: GraphPlan) -> Series:
    """Read the figure's time series back from the recording: every sample, as recorded.

    Every series is on simulated time: joint and tactile samples and the energy carry
    their stamps.

    Raises:
        ConfigError: the recording does not read back.
    """
    from geometry_msgs.msg import Vector3Stamped
    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import JointState, PointCloud2

    from grasp_monitor.conversions import stamped_value_from_msg, time_from_msg
    from grasp_monitor.recording import read_messages
    series = Series()
    inputs = pad_inputs(plan)
    pads = {f'/tactile/{pad}': pad for pad in plan.pads}
    for message in read_messages(path, ['/joint_states', '/grasp_metrics/energy', *pads]):
        if message.topic == '/grasp_metrics/energy':
            energy_j, stamp_s = stamped_value_from_msg(
                deserialize_message(message.data, Vector3Stamped))
            series.energy.append((stamp_s, energy_j))
        elif message.topic == '/joint_states':
            msg = deserialize_message(message.data, JointState)
            stamp_s = time_from_msg(msg.header.stamp)
            for name, position in zip(msg.name, msg.position):
                if name in plan.finger_joints:
                    series.joints.setdefault(name, []).append((stamp_s, position))
                elif name == LIFT_JOINT:
                    series.lift.append((stamp_s, position))
        else:
            pad = pads[message.topic]
            stamp_s = read_pad(inputs, pad, deserialize_message(message.data, PointCloud2))
            if stamp_s is not None:
                force = float(inputs.pad_forces_n()[plan.pads.index(pad)])
                series.pad_force.setdefault(pad, []).append((stamp_s, force))
    series.energy.sort()  # in stamp order, whatever order they were logged in
    return series


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _run_trial(options: DemoOptions, plan: GraphPlan, graph: ProcessGroup, watcher: Watcher,
               view: LiveView, result: DemoResult,
               duration_s: float | None) -> None:
    """Bring the graph to a paused start, record and run the trial, then pause again."""
    def alive() -> None:
        died = graph.died()
        if died:
            raise DemoError('\n'.join(died))

    deadline = time.monotonic() + options.startup_timeout_s
    for name in ('mujoco_sim/reset', 'grasp_monitor/start', 'grasp_monitor/stop') + (
            ('grasp_controller/start',) if plan.has_controller else ()):
        while not watcher.trigger[name].wait_for_service(timeout_sec=0.2):
            alive()
            if time.monotonic() > deadline:
                raise DemoError(f'service {name} did not appear within '
                                f'{options.startup_timeout_s:g} s')

    # Every input of the monitor and the metrics flows (the simulator waits for the
    # monitor's verdicts; the metrics took samples): none misses the trial's first ticks.
    def flowing(seen: Watched) -> bool:
        waits = seen.sim_status.get('lockstep') == 'True' and plan.monitor_verdicts
        return bool(seen.sim_status) and seen.metrics_samples > 0 and (
            not waits or seen.sim_status.get('lockstep_monitor') == 'True')

    if not watcher.wait(flowing, options.startup_timeout_s, alive):
        raise DemoError("the monitor and the metrics did not take the simulator's streams "
                        f'within {options.startup_timeout_s:g} s')
    # the simulator's diagnostics carry its tick count: the window's bounds
    watcher.pause(True)
    watcher.call(watcher.trigger['mujoco_sim/reset'], watcher.Trigger.Request())
    view.note('graph up; simulator paused and reset' + (
        f'; starting the {RECORDER}' if recorder_available() else ''))
    recorder = None
    mcap = options.output_dir / 'demo.mcap'
    if recorder_available():
        mcap.unlink(missing_ok=True)
        recorder = graph.start(RECORDER, path=mcap, use_sim_time='true')
        wanted = set(plan.published_per_tick())
        if not watcher.wait(lambda seen: wanted <= watcher.subscriptions_of(RECORDER),
                            options.startup_timeout_s, alive):
            raise DemoError(f'the recorder did not subscribe to {", ".join(sorted(wanted))}')
        time.sleep(1.0)  # discovery has matched its readers with the publishers
    first_ticks = _paused_ticks(watcher, alive)
    watcher.begin_window(float(watcher.snapshot(
        lambda seen: seen.sim_status.get('sim_time_s', 0.0))))
    trial_id = watcher.call(watcher.trigger['grasp_monitor/start'],
                            watcher.Trigger.Request()).message
    if plan.has_controller:  # its script restarts when the reset's time reaches it
        watcher.call(watcher.trigger['grasp_controller/start'], watcher.Trigger.Request())
    watcher.pause(False)
    # a status from before the resume may still say paused
    running_seq = watcher.snapshot(lambda seen: seen.sim_status_seq) + 1
    view.note(f'trial {trial_id} running' + (f' for {duration_s:g} s' if duration_s else ''))
    shown = 0
    deadline = time.monotonic() + options.timeout_s
    reason = ''
    while not reason:
        alive()
        events, sim_time_s, phase, forces, energy = watcher.snapshot(lambda seen: (
            list(seen.events), seen.sim_time_s, seen.phase,
            list(seen.pad_force_n),
            seen.energy_j[-1] if seen.energy_j else None))
        for event in events[shown:]:
            view.event(event)
        shown = len(events)
        force_test = watcher.snapshot(lambda seen: seen.sim_status.get('force_test')) == 'true'
        label = 'monitoring' if not plan.has_controller else (phase or 'starting')
        view.status(status_lines(plan.scenario, label + (', force test' if force_test else ''),
                                 sim_time_s, forces, energy, events))
        if any(e.get('type') == 'trial_end' for e in events):
            reason = 'the monitor ended the trial'
        elif duration_s is not None and sim_time_s >= duration_s - 1e-9 and \
                watcher.snapshot(lambda seen: seen.sim_status_seq > running_seq
                                 and seen.sim_status.get('paused') == 'True'):
            reason = f'{duration_s:g} s simulated'
        elif time.monotonic() > deadline:
            reason = f'timeout after {options.timeout_s:g} s'
        time.sleep(0.1)
    view.note(f'trial over: {reason}')
    summary = json.loads(watcher.call(watcher.trigger['grasp_monitor/stop'],
                                      watcher.Trigger.Request()).message)
    result.events = summary['events']
    starts = [e for e in result.events if e['type'] == 'trial_start']
    result.trial_start_s = float(starts[0]['time_s']) if starts else 0.0
    # the reward comes with the trial's end; the criteria with the next diagnostics
    watcher.wait(lambda seen: seen.reward, 10.0, alive)
    criteria_seq = watcher.snapshot(lambda seen: seen.criteria_seq)
    watcher.wait(lambda seen: seen.criteria_seq > criteria_seq, 15.0, alive)
    watcher.pause(True)
    last_ticks = _paused_ticks(watcher, alive)
    expected = {topic: last_ticks // every - first_ticks // every
                for topic, every in plan.published_per_tick().items()}
    seen = watcher.snapshot(lambda seen: (Counter(seen.counts), dict(seen.criteria),
                                          list(seen.reward), list(seen.energy_j)))
    counts, criteria, rewards, energy = seen
    # the status also names the trial and its samples
    result.criteria = {k: float(v) for k, v in criteria.items() if k in CRITERIA}
    result.reward = rewards[-1] if rewards else None
    result.basis = criteria.get('basis', '')
    result.energy_peak_j = max(energy) if energy else None
    expected['/grasp_monitor/events'] = len(result.events)
    sources = {topic: f'mujoco_sim ticks / {every}' if every > 1 else 'mujoco_sim ticks'
               for topic, every in plan.published_per_tick().items()}
    sources['/grasp_monitor/events'] = "grasp_monitor's trial summary"
    for topic in ('/grasp_metrics/energy', '/grasp_metrics/reward'):
        expected[topic] = counts[topic]  # published only inside the trial, inside the window
        sources[topic] = 'the demo received'
    recorded: dict[str, int] = {}
    if recorder is not None:
        view.note(f'simulator paused after {last_ticks - first_ticks} ticks; waiting for the '
                  f'{RECORDER} to write them')
        # SIGINT drops what its reader queues still hold: wait until it says it wrote all
        watcher.wait(lambda seen: all(seen.recorded.get(t, 0) >= n for t, n in expected.items()),
                     15.0, alive)
        result.failures += graph.stop([recorder], options.grace_s)
        from grasp_monitor.recording import message_counts
        try:
            recorded = {('/' + t).replace('//', '/'): n for t, n in message_counts(mcap).items()}
        except Exception as error:  # a broken MCAP is a result, not a crash
            result.failures.append(f'{mcap} does not read back: {error}')
        result.mcap_path = str(mcap)
    for topic in sorted(set(expected) | set(recorded)):
        result.counts.append(TopicCount(
            topic, recorded.get(topic, 0) if recorder is not None else None,
            expected.get(topic), sources.get(topic, ''), counts.get(topic)))


def _paused_ticks(watcher: Watcher, alive: Callable[[], None]) -> int:
    """Return the simulator's tick count once two diagnostics say paused with the same count."""
    readings: list[int] = []
    seq = watcher.snapshot(lambda seen: seen.sim_status_seq)
    deadline = time.monotonic() + 15.0
    while time.monotonic() < deadline:
        if watcher.wait(lambda seen: seen.sim_status_seq > seq, 5.0, alive):
            seq, status = watcher.snapshot(lambda seen: (seen.sim_status_seq, seen.sim_status))
            if status.get('paused') == 'True':
                readings.append(int(status['ticks']))
                if len(readings) >= 2 and readings[-1] == readings[-2]:
                    return readings[-1]
    raise DemoError('the simulator did not report a paused tick count within 15 s')
