"""The ROS graph as users run it: message loss, command-to-state latency, CPU per node.

Starts ``mujoco_sim`` (pick_lift, hosting ``tactile_sensor``), ``grasp_monitor`` and
``grasp_metrics`` as separate processes on their own DDS domain, then measures from
this process (the probe, one node on a single-threaded executor):

- loss at reliable QoS: the simulator stamps every tick with its simulated time, so
  the stamps a subscriber receives name the ticks it missed; per topic, lost =
  ticks between the first and last stamp received in the window, minus those
  received (``joint_states`` every tick, ``tactile/<pad>`` every k-th tick);
- command-to-state latency: the probe sends ``servo_commands/full`` with
  ``finger_left`` under pure feedforward (kp_scale = kd_scale = 0, position NaN), so
  the simulator applies exactly the commanded force; each command carries a new
  marker force (±k·10⁻⁴ N, alternating so the finger does not drift), and the
  latency is from ``publish`` to the arrival of the first ``joint_states`` whose
  ``effort[finger_left]`` equals the marker, both on this process's monotonic
  clock; one command in flight at a time, sent at a random phase of the tick;
- CPU per node process from ``/proc/<pid>/stat`` (user + system) over the window,
  as a fraction of one core;
- the same with /clock at ``--clock-rate`` instead of every tick (``clock_rate``);
- the same with extra subscribers: N more nodes, in one more process, subscribing
  to every topic the graph publishes. They do not spin: DDS delivers and
  acknowledges every sample to them, so the publishers pay for N more readers,
  but no Python runs per message (a spinning Python reader per topic would not fit
  on two cores beside the graph, and would measure itself).

    python benchmarks/bench_graph.py [--seconds 20] [--rate 1000] [--tactile-rate 500]
        [--extra-subscribers 10] [--clock-rate 250] [--configs base,extra,clock]
        [--profile DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

SIM_TOPICS = ('joint_states', 'tactile/finger_left', 'tactile/finger_right',
              'ground_truth/object', 'ground_truth/finger_left', 'ground_truth/finger_right',
              'tactile/markers', '/clock')
PADS = ('finger_left', 'finger_right')
CLK_TCK = os.sysconf('SC_CLK_TCK')


def ros_environment() -> dict[str, str]:
    """Environment of this run: a DDS domain of its own, on this machine only."""
    env = os.environ.copy()
    if 'BENCH_NAMESPACE' not in env:  # the benchmark itself, not a helper it started
        env['ROS_DOMAIN_ID'] = str(101 + os.getpid() % 100)
        env['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
        env['BENCH_NAMESPACE'] = f'/bench_{os.getpid()}'
    return env


os.environ.update(ros_environment())
NAMESPACE = os.environ['BENCH_NAMESPACE']


def node_process(module: str, log, source: str = '', **params) -> subprocess.Popen:
    """Start ``grasp_monitor.nodes.<module>`` in its own process, in the bench namespace.

    With ``source``, the package is imported from that directory (an earlier revision).
    """
    from grasp_monitor.nodes import node_command
    env = os.environ.copy()
    if source:
        env['PYTHONPATH'] = os.pathsep.join([source, env.get('PYTHONPATH', '')])
    return subprocess.Popen(node_command(module, params, namespace=NAMESPACE),
                            env=env, stdout=log, stderr=subprocess.STDOUT)


def revision_source(revision: str, tmp: str) -> str:
    """Return the ``src`` directory of ``revision`` of this repository, extracted under ``tmp``."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    archive = subprocess.run(['git', '-C', root, 'archive', revision, 'src'],
                             check=True, capture_output=True).stdout
    subprocess.run(['tar', '-x', '-C', tmp], input=archive, check=True)
    return os.path.join(tmp, 'src')


def cpu_s(pid: int) -> float:
    """Return the user + system CPU seconds of a process so far."""
    with open(f'/proc/{pid}/stat') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def stamp_ns(raw: bytes) -> int:
    """Return the header stamp, ns, read from the bytes of a serialized message."""
    sec, nanosec = struct.unpack_from('<iI', raw, 4)  # after the 4-byte CDR header
    return sec * 1_000_000_000 + nanosec


def percentile(values: list[float], q: float) -> float:
    """Return the nearest-rank q-th percentile of ``values``, q in [0, 100]."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


class Probe:
    """The measuring node: counts stamps per topic and times command round trips."""

    def __init__(self, rclpy, node, tick_s: float, tactile_every: int) -> None:
        from grasp_monitor.nodes.qos import sensor_qos
        from sensor_msgs.msg import JointState, PointCloud2
        from std_msgs.msg import Float64MultiArray
        self.node = node
        self.tick_ns = round(tick_s * 1e9)
        self.periods_ns = {'joint_states': self.tick_ns}
        self.periods_ns.update({f'tactile/{pad}': tactile_every * self.tick_ns for pad in PADS})
        self.stamps: dict[str, list[int]] = {topic: [] for topic in self.periods_ns}
        self.recording = False
        self.first_wall: tuple[float, int] | None = None
        self.last_wall: tuple[float, int] | None = None
        self.pending: tuple[float, float] | None = None  # marker, send time
        self.latencies_s: list[float] = []
        self.unanswered = 0
        qos = sensor_qos(False, 10)
        node.create_subscription(JointState, 'joint_states', self._on_joints, qos)
        for pad in PADS:
            node.create_subscription(PointCloud2, f'tactile/{pad}',
                                     lambda raw, t=f'tactile/{pad}': self._on_raw(t, raw),
                                     qos, raw=True)
        self.command_pub = node.create_publisher(Float64MultiArray, 'servo_commands/full', qos)
        self.lock = threading.Lock()

    def _on_joints(self, msg) -> None:
        now = time.monotonic()
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        with self.lock:
            if self.recording:
                self.stamps['joint_states'].append(stamp)
                self.last_wall = (now, stamp)
                if self.first_wall is None:
                    self.first_wall = (now, stamp)
            if self.pending is not None and abs(msg.effort[1] - self.pending[0]) < 1e-12:
                if self.recording:
                    self.latencies_s.append(now - self.pending[1])
                self.pending = None

    def _on_raw(self, topic: str, raw: bytes) -> None:
        if self.recording:
            self.stamps[topic].append(stamp_ns(raw))

    def command(self, marker_n: float):
        """Build a command: lift held where it starts, finger_left pushed by ``marker_n`` only."""
        from std_msgs.msg import Float64MultiArray
        nan = float('nan')
        rows = [[0.1, 0.0, 9.0, 1.0, 1.0, 60.0],     # lift: position 0.1 m, gravity feedforward
                [nan, 0.0, marker_n, 0.0, 0.0, 20.0],  # finger_left: the marker force only
                [nan, 0.0, 0.0, 0.0, 0.0, 20.0]]      # finger_right: free
        return Float64MultiArray(data=[v for row in rows for v in row])

    def send(self, marker_n: float) -> None:
        """Send one marked command now."""
        msg = self.command(marker_n)
        with self.lock:
            self.pending = (marker_n, time.monotonic())
            self.command_pub.publish(msg)

    def loss(self) -> dict[str, tuple[int, int]]:
        """Per topic: (received, lost) between the first and last stamp received."""
        result = {}
        for topic, stamps in self.stamps.items():
            if not stamps:
                result[topic] = (0, 0)
                continue
            period = self.periods_ns[topic]
            ticks = {round(s / period) for s in stamps}
            expected = max(ticks) - min(ticks) + 1
            result[topic] = (len(ticks), expected - len(ticks))
        return result


def start_composed(log, tmp: str) -> subprocess.Popen:
    """Start the monitor and the metrics as two nodes of one process (``monitor_metrics``)."""
    # -p reaches every node of the process; the metrics declare no event_log
    return node_process('monitor_metrics', log, use_sim_time='true',
                        event_log=os.path.join(tmp, 'events.jsonl'))


def start_graph(args, log, tmp: str, clock_rate_hz: float,
                source: str = '', composed: bool = False) -> dict[str, subprocess.Popen]:
    """Start the simulator (with tactile), the monitor and the metrics node (from ``source``)."""
    return {
        'mujoco_sim+tactile_sensor': node_process(
            'mujoco_sim', log, source, tactile='true', publish_rate=float(args.rate),
            clock_rate=float(clock_rate_hz), real_time_factor=1.0, command_timeout=0.0,
            **{'tactile_sensor:publish_rate': float(args.tactile_rate)},
            **dict(item.split('=', 1) for item in args.sim_param)),
    } | ({'grasp_monitor+grasp_metrics': start_composed(log, tmp)} if composed else {
        'grasp_monitor': node_process(
            'grasp_monitor', log, source, use_sim_time='true',
            event_log=os.path.join(tmp, 'events.jsonl')),
        'grasp_metrics': node_process('grasp_metrics', log, source, use_sim_time='true'),
    })


def start_floor(args, log, clock_rate_hz: float) -> dict[str, subprocess.Popen]:
    """Start the floor: bare rclpy nodes passing the graph's messages (graph_floor.py)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'graph_floor.py')
    ros_args = ['--ros-args', '-r', f'__ns:={NAMESPACE}']

    def start(*argv: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, script, *argv, *ros_args], env=os.environ.copy(),
                                stdout=log, stderr=subprocess.STDOUT)
    return {'floor: publisher': start('pub', str(args.rate), str(args.tactile_rate),
                                      str(clock_rate_hz)),
            'floor: monitor topics': start('sub', 'monitor'),
            'floor: metrics topics': start('sub', 'metrics')}


def extra_subscribers(count: int) -> None:
    """Run ``count`` nodes subscribing to every topic of the graph; never spin them."""
    import rclpy
    from grasp_monitor.nodes.qos import sensor_qos
    from nav_msgs.msg import Odometry
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState, PointCloud2
    from visualization_msgs.msg import MarkerArray
    types = {'joint_states': JointState, 'tactile/markers': MarkerArray, '/clock': Clock}
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])
    rclpy.init(args=['--ros-args', '-r', f'__ns:={NAMESPACE}'],
               signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    nodes = []
    for index in range(count):
        node = rclpy.create_node(f'extra_subscriber_{index}')
        for topic in SIM_TOPICS:
            kind = types.get(topic) or (PointCloud2 if topic.startswith('tactile/')
                                        else Odometry)
            node.create_subscription(kind, topic, lambda m: None,
                                     10 if topic in ('/clock', 'tactile/markers')
                                     else sensor_qos(False, 10))
        nodes.append(node)
    signal.sigwait([signal.SIGINT, signal.SIGTERM])
    for node in nodes:
        node.destroy_node()
    rclpy.try_shutdown()


def wait_until(predicate, timeout_s: float, period_s: float = 0.05) -> bool:
    """Poll until ``predicate()`` or the timeout (a bound, not a measurement)."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(period_s)
    return True


def stop(processes) -> None:
    """SIGINT every process, then wait for it (kill after 10 s)."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_config(args, extra: int, clock_rate_hz: float = 0.0, floor: bool = False,
               before: bool = False, composed: bool = False) -> dict:
    """Run one configuration: start the graph (or its floor), warm up, measure, stop."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    tmp = tempfile.mkdtemp(prefix='bench_graph_')
    log = open(os.path.join(tmp, 'nodes.log'), 'w')
    source = revision_source(args.before, tmp) if before else ''
    processes = (start_floor(args, log, clock_rate_hz) if floor
                 else start_graph(args, log, tmp, clock_rate_hz, source, composed))
    if extra:
        processes['extra_subscribers'] = subprocess.Popen(
            [sys.executable, __file__, '--serve-extra', str(extra)], env=os.environ.copy(),
            stdout=log, stderr=subprocess.STDOUT)
    context = rclpy.Context()
    rclpy.init(context=context, args=['--ros-args', '-r', f'__ns:={NAMESPACE}'])
    node = rclpy.create_node('bench_probe', context=context)
    tick_s = 1.0 / args.rate
    probe = Probe(rclpy, node, tick_s, max(1, round(args.rate / args.tactile_rate)))
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    result: dict = {'extra_subscribers': extra, 'clock_rate_hz': clock_rate_hz, 'floor': floor,
                    'before': args.before if before else '', 'composed': composed}
    try:
        from std_srvs.srv import Trigger
        if not floor:
            start = node.create_client(Trigger, 'grasp_monitor/start')
            assert start.wait_for_service(timeout_sec=60.0), 'grasp_monitor did not come up'
            start.call_async(Trigger.Request())
        # the simulator's streams and the monitor's subscription are matched before the window
        assert wait_until(lambda: node.count_publishers('tactile/finger_right') > 0 and
                          node.count_subscribers('joint_states') >= 2, 60.0)
        if extra:
            assert wait_until(lambda: node.count_subscribers('joint_states') >= 2 + extra, 60.0)
        time.sleep(args.warmup)
        pids = {name: p.pid for name, p in processes.items()}
        pids['bench_probe'] = os.getpid()
        profilers = [subprocess.Popen(
            ['py-spy', 'record', '--nonblocking', '--pid', str(pids[name]), '--rate', '250',
             '--duration', str(int(args.seconds)), '--format', 'raw',
             '-o', os.path.join(args.profile, f'{name}_{extra}_{clock_rate_hz:g}.txt')],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name in (processes if args.profile else ())]
        cpu0 = {name: cpu_s(pid) for name, pid in pids.items()}
        wall0 = time.monotonic()
        probe.recording = True
        rng = random.Random(1)
        k = 0
        end = wall0 + args.seconds
        while time.monotonic() < end:
            k += 1
            marker = (1 + k % 7) * 1e-4 * (1 if k % 2 else -1)
            probe.send(marker)
            if not wait_until(lambda: probe.pending is None, 0.5, 0.0002):
                probe.unanswered += 1
            time.sleep(args.command_period * (0.5 + rng.random()))
        probe.recording = False
        wall = time.monotonic() - wall0
        cpu = {name: (cpu_s(pid) - cpu0[name]) / wall for name, pid in pids.items()}
        for profiler in profilers:
            profiler.wait(timeout=60)
        first, last = probe.first_wall, probe.last_wall
        result.update(
            wall_s=wall, cpu=cpu, loss=probe.loss(), latencies_s=probe.latencies_s,
            unanswered=probe.unanswered, commands=k,
            real_time_factor=((last[1] - first[1]) * 1e-9 / (last[0] - first[0])
                              if first and last and last[0] > first[0] else 0.0))
    finally:
        executor.shutdown(timeout_sec=5.0)
        node.destroy_node()
        rclpy.try_shutdown(context=context)
        stop(processes.values())
        log.close()
    result['log'] = os.path.join(tmp, 'nodes.log')
    return result


def report(result: dict) -> None:
    """Print one configuration's figures."""
    latencies_ms = [1e3 * s for s in result['latencies_s']]
    clock = f"{result['clock_rate_hz']:g} Hz" if result['clock_rate_hz'] else 'every tick'
    # a paragraph, not a heading: RESULTS.md places this output under its own headings
    what = ('Floor: bare rclpy nodes, same messages' if result['floor']
            else f"Before: the graph at {result['before']}" if result['before']
            else 'Monitor and metrics in one process' if result['composed']
            else f"Extra subscribers: {result['extra_subscribers']}")
    print(f'\n**{what}, /clock {clock}** '
          f"(window {result['wall_s']:.1f} s, simulated/wall {result['real_time_factor']:.3f})"
          '\n')
    print('| topic | received | lost | lost % |')
    print('|---|---|---|---|')
    for topic, (received, lost) in result['loss'].items():
        share = 100.0 * lost / (received + lost) if received + lost else 0.0
        print(f'| `{topic}` | {received} | {lost} | {share:.2f} |')
    if latencies_ms:
        print(f'\ncommand → joint state: n {len(latencies_ms)}, '
              f'p50 {percentile(latencies_ms, 50):.2f} ms, '
              f'p99 {percentile(latencies_ms, 99):.2f} ms, max {max(latencies_ms):.2f} ms, '
              f'mean {statistics.fmean(latencies_ms):.2f} ms; '
              f"unanswered within 0.5 s: {result['unanswered']} of {result['commands']}")
    # CPU per simulated second holds up better than wall-clock rates on a shared machine
    rtf = result['real_time_factor']
    print('\n| process | CPU (share of one core) | CPU s per simulated s |')
    print('|---|---|---|')
    for name, share in result['cpu'].items():
        print(f'| {name} | {share:.2f} | {share / rtf if rtf else float("nan"):.2f} |')
    print(f"\nnode output: {result['log']}")


#: Which floor process stands for which process of the graph.
FLOOR_OF = {'mujoco_sim+tactile_sensor': ('floor: publisher',),
            'grasp_monitor': ('floor: monitor topics',),
            'grasp_metrics': ('floor: metrics topics',),
            'grasp_monitor+grasp_metrics': ('floor: monitor topics', 'floor: metrics topics'),
            'bench_probe': ('bench_probe',)}


def cpu_per_simulated_s(result: dict) -> dict[str, float]:
    """Return CPU seconds per simulated second of each process of a configuration."""
    rtf = result['real_time_factor']
    return {name: share / rtf if rtf else float('nan') for name, share in result['cpu'].items()}


def report_ratios(results: dict) -> None:
    """Print each configuration's CPU per simulated second as a ratio to the floor's."""
    floor = cpu_per_simulated_s(results['floor'])
    configs = [name for name in results if name != 'floor']
    print('\n**CPU s per simulated s, as a ratio to the floor** (same messages, rates, QoS '
          'and executor, bare rclpy)\n')
    print('| process | floor | ' + ' | '.join(configs) + ' |')
    print('|---|---' + '|---' * len(configs) + '|')
    for name, floor_names in FLOOR_OF.items():
        if not any(name in results[config]['cpu'] for config in configs):
            continue
        reference = sum(floor[floor_name] for floor_name in floor_names)
        cells = []
        for config in configs:
            value = cpu_per_simulated_s(results[config]).get(name)
            cells.append('–' if value is None else f'{value:.2f} ({value / reference:.1f}×)')
        print(f'| {name} | {reference:.2f} | ' + ' | '.join(cells) + ' |')
    totals = [sum(v for k, v in cpu_per_simulated_s(results[c]).items() if k in FLOOR_OF)
              for c in configs]
    floor_total = sum(floor.values())
    print(f'| all | {floor_total:.2f} | ' + ' | '.join(
        f'{t:.2f} ({t / floor_total:.1f}×)' for t in totals) + ' |')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--seconds', type=float, default=20.0, help='measurement window, s')
    parser.add_argument('--warmup', type=float, default=3.0, help='s before the window')
    parser.add_argument('--rate', type=float, default=1000.0, help='joint_states rate, Hz')
    parser.add_argument('--tactile-rate', type=float, default=500.0, help='tactile rate, Hz')
    parser.add_argument('--command-period', type=float, default=0.02,
                        help='mean pause between answered commands, s')
    parser.add_argument('--extra-subscribers', type=int, default=10)
    parser.add_argument('--clock-rate', type=float, default=250.0,
                        help='/clock rate of the clock configuration, Hz')
    parser.add_argument('--configs', default='floor,base,extra,clock',
                        help='comma-separated: floor (bare rclpy nodes passing the same '
                        'messages: graph_floor.py), before (the graph of --before), base '
                        '(defaults), composed (the monitor and the metrics in one process), '
                        'extra (with the extra subscribers), clock (/clock at --clock-rate)')
    parser.add_argument('--sim-param', action='append', default=[], metavar='NAME=VALUE',
                        help="another parameter of mujoco_sim (e.g. monitor='': no verdicts "
                        'waited for)')
    parser.add_argument('--before', default='c691f52',
                        help='git revision of the before configuration (its src is '
                        'extracted with git archive)')
    parser.add_argument('--profile', default='',
                        help='directory for py-spy profiles of every node process '
                        '(raw stacks, sampled without stopping the process)')
    parser.add_argument('--serve-extra', type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_extra:
        extra_subscribers(args.serve_extra)
        return
    import rclpy
    rclpy.init()  # only to read the RMW below
    from rclpy.utilities import get_rmw_implementation_identifier
    rmw = get_rmw_implementation_identifier()
    rclpy.try_shutdown()
    print(f'machine: {platform.machine()}, {os.cpu_count()} cores, Python '
          f'{platform.python_version()}, {rmw}; load average before: '
          f'{" ".join(f"{x:.2f}" for x in os.getloadavg())}\n')
    print(f'graph: mujoco_sim (pick_lift, {args.rate:g} Hz joint_states, tactile_sensor '
          f'{args.tactile_rate:g} Hz) + grasp_monitor + grasp_metrics, reliable QoS depth 10')
    results = {}
    for config in args.configs.split(','):
        results[config] = run_config(args, args.extra_subscribers if config == 'extra' else 0,
                                     args.clock_rate if config == 'clock' else 0.0,
                                     floor=config == 'floor', before=config == 'before',
                                     composed=config == 'composed')
        report(results[config])
    if 'floor' in results:
        report_ratios(results)
    print(f'\nload average after: {" ".join(f"{x:.2f}" for x in os.getloadavg())}')


if __name__ == '__main__':
    main()
