"""Record a pick_lift trial, replay it to a fresh monitor and metrics: the same results."""

import json
import os
import signal
import subprocess
import sys
import time

from conftest import NAMESPACE, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.core.events import EventRecord
from grasp_monitor.nodes.grasp_monitor import EVENTS_QOS
from grasp_monitor.recording import cdr_stamp_ns, message_counts, read_messages, \
    recording_start_ns
import pytest
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Float64
from std_srvs.srv import SetBool, Trigger

pytestmark = pytest.mark.graph

MONITOR_RATE_HZ = 100.0
# a loaded machine may delay inputs: the monitor then pauses, never fails; a short force test
MONITOR = {'use_sim_time': 'true', 'max_sample_age': 0.5, 'force_test_time': 1.0}
SIM_PERIOD_NS = 2_000_000  # mujoco_sim's publish_rate 500 Hz
CLOCK = f'{NAMESPACE}/clock'
#: What the monitor and the metrics read: the replay plays only these (and the clock).
INPUTS = ['/clock', 'joint_states', 'ground_truth/object', 'ground_truth/finger_left',
          'ground_truth/finger_right', 'tactile/finger_left', 'tactile/finger_right']


def node_process(module, log, **params):
    """Start a node in the test's namespace, with the test's own clock topic.

    /clock is a global name: a suite running beside this one on the same domain id
    (conftest draws it from 100) would otherwise drive these nodes' time.
    """
    args = [sys.executable, '-m', f'grasp_monitor.nodes.{module}', '--ros-args',
            '-r', f'__ns:={NAMESPACE}', '-r', f'/clock:={CLOCK}']
    args += [arg for name, value in params.items() for arg in ('-p', f'{name}:={value}')]
    return subprocess.Popen(args, env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT)


class Graph:
    """Processes started by a test, stopped with SIGINT at the end; a client watching them."""

    def __init__(self, ros, tmp_path):
        self.ros, self.tmp_path = ros, tmp_path
        self.output = (tmp_path / 'nodes.log').open('w')
        self.processes = {}
        self.client = ros.client(f'watch_{len(ros.nodes)}')
        self.events, self.diagnostics, self.rewards, self.clock = [], [], [], []
        self.client.create_subscription(DiagnosticStatus, 'grasp_monitor/events',
                                        self.events.append, EVENTS_QOS)
        self.client.create_subscription(DiagnosticArray, '/diagnostics',
                                        self.diagnostics.append, 100)
        self.client.create_subscription(Float64, 'grasp_metrics/reward',
                                        self.rewards.append, 10)
        self.client.create_subscription(Clock, CLOCK, self.clock.append, 10)

    def start(self, module, **params):
        self.processes[module] = node_process(module, self.output, **params)

    def call(self, name, request, service_type=Trigger):
        service = self.client.create_client(service_type, name)
        return self.ros.call(service, request, timeout_s=30.0)

    def kinds(self):
        return [e.name for e in self.events]

    def status(self, suffix):
        for array in reversed(self.diagnostics):
            for status in array.status:
                if status.name.endswith(suffix):
                    return {kv.key: kv.value for kv in status.values}
        return None

    def stop(self, *modules):
        for module in modules:
            self.processes[module].send_signal(signal.SIGINT)
        codes = []
        for module in modules:
            process = self.processes.pop(module)
            try:
                codes.append(process.wait(timeout=30))
            except subprocess.TimeoutExpired:
                process.kill()
                codes.append(f'killed: {process.wait()}')
        return codes

    def close(self):
        for process in self.processes.values():
            process.kill()
            process.wait()
        self.output.close()


@pytest.fixture
def graphs(ros, tmp_path):
    made = []
    yield lambda: made.append(Graph(ros, tmp_path)) or made[-1]
    for graph in made:
        graph.close()


def missing_stamps(path, topic, count):
    """Count the stamps missing from a topic of the recording, from the reset to its end."""
    stamps = [cdr_stamp_ns(m.data) for m in read_messages(path, [topic])]
    assert len(stamps) == count
    after_reset = stamps[max(i for i, stamp in enumerate(stamps) if stamp <= SIM_PERIOD_NS):]
    return (after_reset[-1] - after_reset[0]) // SIM_PERIOD_NS + 1 - len(after_reset)


def skipped_samples(events):
    """Count the samples a monitor missed in its trial: its time over the period, less steps."""
    end = events[-1]
    return round(float(end['trial_time_s']) * MONITOR_RATE_HZ) - int(end['step'])


def without_stale(events):
    return [e for e in events if e['type'] not in ('sensor_stale', 'sensor_fresh')]


@pytest.mark.xfail(strict=False, reason=(
    'known bug: the live grasp_monitor and grasp_metrics sample on timer callbacks, so '
    'on a busy machine the live trial opens or samples one period off its replay and the '
    'criteria differ by ~1e-3; sampling on a grid of input stamps fixes the events and '
    'is not yet merged'))
def test_a_replayed_trial_gives_the_same_events_and_criteria(graphs, tmp_path):
    path = tmp_path / 'trial.mcap'
    live = graphs()
    # Half real time and a deep history: the monitor samples when its executor gets to
    # it, so a loaded machine must not make it late; a subscriber it starves loses nothing.
    live.start('mujoco_sim', real_time_factor=0.5, publish_rate=500.0, command_timeout=0.0,
               **{'qos.depth': 1000})
    live.start('grasp_monitor', event_log=tmp_path / 'live.jsonl', **MONITOR)
    live.start('grasp_metrics', use_sim_time='true')
    live.start('grasp_controller', use_sim_time='true', autostart='true', grip_force=15.0)
    for name in ('mujoco_sim/reset', 'grasp_monitor/start', 'grasp_monitor/stop'):
        assert live.client.create_client(Trigger, name).wait_for_service(timeout_sec=30.0)
    # Recording from just before the reset: the trial's timeline, from its first clock.
    live.start('recorder', path=path)
    inputs = [f'{NAMESPACE}/{name.lstrip("/")}' for name in INPUTS]

    def recording_every_input():
        counts = live.status('recorder: recording') or {}
        return all(int(counts.get(f'messages.{topic}', 0)) > 0 for topic in inputs)

    assert wait_for(recording_every_input, timeout_s=30.0)
    live.call('mujoco_sim/reset', Trigger.Request())
    assert wait_for(lambda: live.clock and live.clock[-1].clock.sec == 0 and
                    live.clock[-1].clock.nanosec > 200_000_000, timeout_s=30.0)
    assert live.call('grasp_monitor/start', Trigger.Request()).success
    assert wait_for(lambda: 'trial_end' in live.kinds(), timeout_s=120.0), live.kinds()
    live_summary = json.loads(live.call('grasp_monitor/stop', Trigger.Request()).message)
    assert wait_for(lambda: live.rewards and live.status('criteria'), timeout_s=60.0)
    live_criteria, live_reward = live.status('criteria'), live.rewards[-1].data
    live.stop('grasp_controller', 'grasp_metrics', 'grasp_monitor', 'mujoco_sim')
    assert live.stop('recorder') == [0]

    # The recording holds every input the live monitor had: no stamp missing.
    counts = message_counts(path)
    missing = {topic: missing_stamps(path, topic, counts[topic]) for topic in inputs}
    assert not any(n for topic, n in missing.items() if topic != CLOCK), missing
    # mujoco_sim keeps 10 clock ticks for a reliable subscriber whatever qos.depth says:
    # a recorder starved longer than that by the machine loses ticks
    disturbed = [f'{missing[CLOCK]} clock ticks lost'] if missing[CLOCK] else []

    live_events = without_stale(live_summary['events'])
    start = EventRecord.from_strings(live_events[0])
    assert start.kind == 'trial_start'
    # Pause between the sample before the trial opened and the one that opened it, after
    # the reset: the last recorded clock before then, as time since the recording began.
    clocks = [(cdr_stamp_ns(m.data), m.log_time_ns) for m in read_messages(path, [CLOCK])]
    reset = max(i for i, (stamp, _) in enumerate(clocks) if stamp <= SIM_PERIOD_NS)
    pause_log_ns = max(log for stamp, log in clocks[reset:]
                       if stamp <= (start.time_s - 0.5 / MONITOR_RATE_HZ) * 1e9)
    replayed = graphs()
    replayed.start('grasp_monitor', event_log=tmp_path / 'replayed.jsonl', simulator='""',
                   **MONITOR)
    replayed.start('grasp_metrics', use_sim_time='true')
    replayed.start('replay', path=path, start_paused='true', topics=f'[{", ".join(INPUTS)}]',
                   rate=0.5,
                   pause_at=(pause_log_ns - recording_start_ns(path)) * 1e-9)
    assert replayed.client.create_client(SetBool, 'replay/pause').wait_for_service(30.0)
    assert wait_for(lambda: replayed.client.count_subscribers('tactile/finger_left') >= 2 and
                    replayed.client.count_subscribers('grasp_monitor/events') >= 1,
                    timeout_s=30.0)
    played_before_pause = sum(1 for m in read_messages(path, inputs)
                              if m.log_time_ns <= pause_log_ns)
    assert replayed.call('replay/pause', SetBool.Request(data=False), SetBool).success

    def paused_there():
        status = replayed.status('replay') or {}
        return status.get('state') == 'paused' and \
            int(status['messages']) == played_before_pause

    assert wait_for(paused_there, timeout_s=60.0)
    time.sleep(0.5)  # sleep: the monitor takes the last clock before the start call
    assert replayed.call('grasp_monitor/start', Trigger.Request()).success
    assert replayed.call('replay/pause', SetBool.Request(data=False), SetBool).success
    assert wait_for(lambda: 'trial_end' in replayed.kinds(), timeout_s=120.0), \
        replayed.kinds()
    summary = json.loads(replayed.call('grasp_monitor/stop', Trigger.Request()).message)
    assert wait_for(lambda: replayed.rewards and replayed.status('criteria'), timeout_s=60.0)
    # every recorded input was played
    assert wait_for(lambda: (replayed.status('replay') or {}).get('state') == 'done',
                    timeout_s=60.0)
    assert int(replayed.status('replay')['messages']) == sum(counts[t] for t in inputs)

    events = without_stale(summary['events'])
    criteria, reward = replayed.status('criteria'), replayed.rewards[-1].data
    seen = f'live: {live_events} {live_criteria} {live_reward!r}\n' \
        f'replayed: {events} {criteria} {reward!r}'
    (tmp_path / 'compared.txt').write_text(seen)
    # A monitor samples on a timer when its executor gets to it: one starved by the
    # machine skips samples and its events move; then neither run is the reference.
    disturbed += [f'{run} monitor skipped {skipped_samples(run_events)} samples'
                  for run, run_events in (('live', live_events), ('replayed', events))
                  if skipped_samples(run_events)]
    period_s = 1.0 / MONITOR_RATE_HZ
    kinds = [[e['type'] for e in run] for run in (events, live_events)]
    differences = [] if kinds[0] == kinds[1] else [f'events {kinds[0]} replayed, {kinds[1]}']
    differences += [
        f'{theirs["type"]} {key}: {mine[key]} replayed, {theirs[key]} live'
        for mine, theirs in zip(events, live_events) for key in ('time_s', 'trial_time_s')
        if not differences and abs(float(mine[key]) - float(theirs[key])) > period_s + 1e-9]
    assert criteria.keys() == live_criteria.keys(), seen
    differences += [f'{name}: {criteria[name]} replayed, {value} live'
                    for name, value in live_criteria.items()
                    if abs(float(criteria[name]) - float(value)) > 1e-6]
    if abs(reward - live_reward) > 1e-6:
        differences.append(f'reward: {reward!r} replayed, {live_reward!r} live')
    if differences and disturbed:
        pytest.skip(f'{"; ".join(disturbed)} (load average {os.getloadavg()[0]:.1f}), and '
                    f'then {"; ".join(differences)}')
    assert not differences, seen
