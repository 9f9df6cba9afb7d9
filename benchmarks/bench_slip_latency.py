"""Slip-out latency over the ROS graph: from the step contact is lost to the event on the topic.

The graph of ``bench_graph.py`` (``mujoco_sim`` hosting ``tactile_sensor`` at real-time
factor 1, ``grasp_monitor``, ``grasp_metrics``, separate processes). This process
scripts a release, trial after trial, with no reset: the lift holds the gripper at
grasp height around the object on the table; each trial starts a monitor trial,
closes the fingers (5 N feedforward) until both pads touch, holds 0.3 s, then opens
them under position control. The monitor runs contact and slip-out only (no grasp,
hence no force test).

Contact is lost (simulated time ``t_lost``) at the first tactile sample, judged as
the monitor judges it (on the latest cloud of each pad: a pad touches when the norm of
its summed taxel forces reaches ``contact_force``, 1 mN), without contact after the
last one with contact before the event; its wall time is its arrival here. (Contact
can end before the release, or come back after it: the rule's last contact counts.)
The slip-out event arrives on ``grasp_monitor/events`` ``ref_time`` (``slip_out``, 1 s)
later by rule. Reported:

- raw: event arrival − arrival of the ``t_lost`` sample (wall, this process's clock);
- delay beyond the rule: raw − ``ref_time``;
- in simulated time: the event's ``time_s`` − ``t_lost`` − ``ref_time`` (the monitor's
  own sampling and the staleness of its inputs, with no transport);
- the wall time from the simulator reaching ``time_s`` (arrival here of the first
  tactile sample stamped at or after it) to the event's arrival: what transport and
  the monitor's executor add. At real-time factor 1 the delay beyond ``ref_time`` is
  about the sum of the last two, printed as its own line: the raw wall figure also
  carries this process's own queueing of the ``t_lost`` sample and the simulator's
  catching up after a stall (it then runs faster than real time), and on a machine too
  loaded to keep real time it stretches with it (the achieved simulated/wall ratio is
  printed).

The ``t_lost`` sample's own transport delay is not in the raw figure (it is the
arrival that is timed); ``bench_graph.py`` measures that delay for joint states.

    python benchmarks/bench_slip_latency.py [--trials 100] [--rate 1000] [--tactile-rate 500]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import threading
import time

from bench_graph import NAMESPACE, node_process, percentile, stop, wait_until

PADS = ('finger_left', 'finger_right')


class Releaser:
    """Drives the fingers and watches the pads and the monitor's events."""

    def __init__(self, node, contact_force_n: float) -> None:
        from diagnostic_msgs.msg import DiagnosticStatus
        from grasp_monitor.nodes.qos import EVENTS_QOS, sensor_qos
        from sensor_msgs.msg import PointCloud2
        from std_msgs.msg import Float64MultiArray
        self.node = node
        self.contact_force_n = contact_force_n
        self.lock = threading.Lock()
        self.force_n = {pad: (0.0, 0) for pad in PADS}  # latest total force, stamp ns
        self.watching = False
        # (stamp ns, arrival, any pad in contact) per cloud received while watching, judged
        # as the monitor does: on the latest reading of every pad
        self.samples: list[tuple[int, float, bool]] = []
        self.events: list[tuple[float, dict[str, str]]] = []
        qos = sensor_qos(False, 10)
        for pad in PADS:
            node.create_subscription(PointCloud2, f'tactile/{pad}',
                                     lambda m, pad=pad: self._on_pad(pad, m), qos)
        node.create_subscription(DiagnosticStatus, 'grasp_monitor/events', self._on_event,
                                 EVENTS_QOS)
        self.command_pub = node.create_publisher(Float64MultiArray, 'servo_commands/full', qos)
        self.closing = False
        node.create_timer(0.01, self._command)

    def _on_pad(self, pad: str, msg) -> None:
        import numpy as np
        now = time.monotonic()
        forces = np.frombuffer(bytes(msg.data), '<f4').reshape(-1, 6)[:, 3:]
        total = float(np.linalg.norm(forces.sum(axis=0)))
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        with self.lock:
            self.force_n[pad] = (total, stamp)
            if self.watching:
                self.samples.append((stamp, now, any(
                    f >= self.contact_force_n for f, _ in self.force_n.values())))

    def _on_event(self, msg) -> None:
        self.events.append((time.monotonic(), {kv.key: kv.value for kv in msg.values}))

    def touching(self) -> bool:
        """Both pads carry at least the contact force."""
        with self.lock:
            return all(f >= self.contact_force_n for f, _ in self.force_n.values())

    def _command(self) -> None:
        from std_msgs.msg import Float64MultiArray
        nan = float('nan')
        if self.closing:  # the grasp script's close: force only, some damping
            finger = [nan, 0.0, 5.0, 0.0, 0.3, 20.0]
        else:  # open: position control back to 0
            finger = [0.0, 0.0, 0.0, 1.0, 1.0, 20.0]
        rows = [[0.0, 0.0, 9.0, 1.0, 1.0, 60.0], finger, finger]
        self.command_pub.publish(Float64MultiArray(data=[v for r in rows for v in r]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--trials', type=int, default=100)
    parser.add_argument('--rate', type=float, default=1000.0, help='simulator tick rate, Hz')
    parser.add_argument('--tactile-rate', type=float, default=500.0, help='tactile rate, Hz')
    args = parser.parse_args()
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from std_srvs.srv import Trigger
    print(f'machine: {platform.machine()}, {os.cpu_count()} cores, Python '
          f'{platform.python_version()}; load average before: '
          f'{" ".join(f"{x:.2f}" for x in os.getloadavg())}\n')
    tmp = tempfile.mkdtemp(prefix='bench_slip_')
    log = open(os.path.join(tmp, 'nodes.log'), 'w')
    ref_time_s = 1.0
    processes = [
        node_process('mujoco_sim', log, tactile='true', publish_rate=args.rate,
                     real_time_factor=1.0, command_timeout=0.0,
                     **{'tactile_sensor:publish_rate': args.tactile_rate}),
        node_process('grasp_monitor', log, use_sim_time='true', simulator="''",
                     events="['contact','slip_out']", slip_out=ref_time_s,
                     event_log=os.path.join(tmp, 'events.jsonl')),
        node_process('grasp_metrics', log, use_sim_time='true'),
    ]
    rclpy.init(args=['--ros-args', '-r', f'__ns:={NAMESPACE}'])
    node = rclpy.create_node('bench_releaser')
    releaser = Releaser(node, 1e-3)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    raw_s, beyond_s, sim_beyond_s, after_s, factors, failed = [], [], [], [], [], 0
    composite_s: list[float] = []
    trials = open(os.path.join(tmp, 'trials.jsonl'), 'w')
    try:
        start = node.create_client(Trigger, 'grasp_monitor/start')
        assert start.wait_for_service(timeout_sec=60.0), 'grasp_monitor did not come up'
        assert wait_until(lambda: node.count_publishers('tactile/finger_right') > 0, 60.0)
        time.sleep(1.0)  # the gripper settles at grasp height, fingers open
        for trial in range(args.trials):
            future = start.call_async(Trigger.Request())
            assert wait_until(future.done, 10.0), 'start did not answer'
            count = len(releaser.events)
            with releaser.lock:
                releaser.samples, releaser.watching = [], True
            releaser.closing = True
            if not wait_until(releaser.touching, 10.0):
                failed += 1
                releaser.closing = False
                continue
            time.sleep(0.3)
            releaser.closing = False

            def slipped() -> bool:
                return any(e['type'] == 'slip_out' for _, e in releaser.events[count:])

            ok = wait_until(slipped, 10.0 + ref_time_s, 0.001)
            time.sleep(0.05)  # tactile samples of the event's tick are in
            with releaser.lock:
                releaser.watching = False
                samples = list(releaser.samples)
            if not ok:
                failed += 1
                continue
            arrival, event = next((a, e) for a, e in releaser.events[count:]
                                  if e['type'] == 'slip_out')
            event_s = float(event['time_s'])
            # contact is lost at the first sample without contact after the last one with
            # contact before the event (later touches and releases do not count)
            before = [i for i, (stamp, _, touching) in enumerate(samples)
                      if touching and stamp * 1e-9 <= event_s]
            if not before or before[-1] + 1 >= len(samples):
                failed += 1
                continue
            lost = samples[before[-1] + 1][:2]
            arrivals = [(stamp, a) for stamp, a, _ in samples[before[-1] + 1:]]
            raw_s.append(arrival - lost[1])
            beyond_s.append(arrival - lost[1] - ref_time_s)
            sim_beyond_s.append(event_s - lost[0] * 1e-9 - ref_time_s)
            # wall time from the simulator reaching the event's time to the event arriving
            reached = [a for stamp, a in arrivals if stamp * 1e-9 >= event_s - 1e-9]
            if reached:
                after_s.append(arrival - reached[0])
                composite_s.append(event_s - lost[0] * 1e-9 + after_s[-1])
            span = arrivals[-1][0] * 1e-9 - lost[0] * 1e-9 if arrivals else 0.0
            if arrivals and arrivals[-1][1] > lost[1]:
                factors.append(span / (arrivals[-1][1] - lost[1]))
            trials.write(json.dumps({
                'trial': trial, 't_lost_s': lost[0] * 1e-9, 'event_time_s': event_s,
                'raw_wall_s': raw_s[-1], 'since_contact_s': float(event['since_contact_s']),
                'simulated_per_wall': factors[-1] if factors else None}) + '\n')
            time.sleep(0.2)
    finally:
        executor.shutdown(timeout_sec=5.0)
        node.destroy_node()
        rclpy.try_shutdown()
        stop(processes)
        log.close()
        trials.close()
    print(f'graph: mujoco_sim (pick_lift, {args.rate:g} Hz, tactile {args.tactile_rate:g} Hz, '
          f'real-time factor 1) + grasp_monitor (contact, slip_out; ref_time '
          f'{ref_time_s:g} s) + grasp_metrics\n')
    print(f'trials: {len(raw_s)} measured, {failed} failed (no touch or no event)\n')
    if factors:
        print(f'simulated/wall during the trials: median {statistics.median(factors):.3f}, '
              f'min {min(factors):.3f}\n')
    print('| figure | p50 | p99 | min | max | mean |')
    print('|---|---|---|---|---|---|')
    for label, values in (
            ('raw: contact lost → slip_out on the topic (wall)', raw_s),
            ('raw − ref_time (wall)', beyond_s),
            ('event time_s − t_lost − ref_time (simulated)', sim_beyond_s),
            ('simulator reaches time_s → event on the topic (wall)', after_s),
            ('at real-time factor 1: (time_s − t_lost) + the line above', composite_s),
            ('the same − ref_time', [v - ref_time_s for v in composite_s])):
        if values:
            ms = [1e3 * v for v in values]
            print(f'| {label} | {percentile(ms, 50):.1f} ms | {percentile(ms, 99):.1f} ms | '
                  f'{min(ms):.1f} ms | {max(ms):.1f} ms | {statistics.fmean(ms):.1f} ms |')
    print(f'\nper trial: {os.path.join(tmp, "trials.jsonl")}')
    print(f'\nload average after: {" ".join(f"{x:.2f}" for x in os.getloadavg())}\n')
    print(f'node output: {tmp}')


if __name__ == '__main__':
    main()
