"""Record a pick_lift trial, replay it to a fresh monitor and metrics: the same results."""

import os
import signal
import subprocess

from common import NAMESPACE, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.nodes import node_command
from grasp_monitor.nodes.qos import EVENTS_QOS
from grasp_monitor.recording import cdr_stamp_ns, message_counts, read_messages
import pytest
from rosgraph_msgs.msg import Clock
from std_srvs.srv import SetBool, Trigger

pytestmark = pytest.mark.graph

MONITOR_RATE_HZ = 100.0
# Deep histories: a subscriber a loaded machine starves loses no message. An input the
# machine delays while the clock runs on makes the monitor stale, which a replay delays
# otherwise: a generous sample age keeps staleness out of this test. A short force test.
DEEP = {'qos.depth': 1000}
MONITOR = {'use_sim_time': 'true', 'max_sample_age': 20.0, 'force_test_time': 1.0,
           'restart_on_reset': 'true',  # the trial the reset opens is the one compared
           'contact_timeout': 3.0, **DEEP}
METRICS = {'use_sim_time': 'true', **DEEP}
SIM_PERIOD_NS = 2_000_000  # mujoco_sim's publish_rate 500 Hz
CLOCK = f'{NAMESPACE}/clock'
#: What the monitor and the metrics read: the replay plays only these (and the clock),
#: and the body names of the contacts, published once (LATCHED).
INPUTS = ['/clock', 'joint_states', 'ground_truth/object', 'ground_truth/finger_left',
          'ground_truth/finger_right', 'contacts']
LATCHED = ['contacts/bodies']


def node_process(module, log, **params):
    """Start a node in the test's namespace, with the test's own clock topic.

    /clock is a global name: a suite running beside this one on the same domain id
    (common.py draws it from 100) would otherwise drive these nodes' time.
    """
    args = node_command(module, params, namespace=NAMESPACE, remaps={'/clock': CLOCK})
    return subprocess.Popen(args, env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT)


class Graph:
    """Processes started by a test, stopped with SIGINT at the end; a client watching them."""

    def __init__(self, ros, tmp_path):
        self.ros, self.tmp_path = ros, tmp_path
        self.output = (tmp_path / 'nodes.log').open('a')  # both runs' nodes
        self.processes = {}
        self.client = ros.client(f'watch_{len(ros.nodes)}')
        self.events, self.diagnostics, self.rewards, self.clock = [], [], [], []
        self.client.create_subscription(DiagnosticStatus, 'grasp_monitor/events',
                                        self.events.append, EVENTS_QOS)
        self.client.create_subscription(DiagnosticArray, '/diagnostics',
                                        self.diagnostics.append, 100)
        self.client.create_subscription(Vector3Stamped, 'grasp_metrics/reward',
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
    # as recorded: on simulated time, log time went back at the reset
    stamps = [cdr_stamp_ns(m.data) for m in read_messages(path, [topic], log_time_order=False)]
    assert len(stamps) == count
    after_reset = stamps[max(i for i, stamp in enumerate(stamps) if stamp <= SIM_PERIOD_NS):]
    return (after_reset[-1] - after_reset[0]) // SIM_PERIOD_NS + 1 - len(after_reset)


def values(event):
    return {kv.key: kv.value for kv in event.values}


def reset_trial(events):
    """Return the events of the trial a reset opened (its start went back), stale aside.

    Empty until that trial has ended.
    """
    times = [float(e['time_s']) for e in events]
    starts = [i for i, e in enumerate(events) if e['type'] == 'trial_start' and i and
              times[i] < max(times[:i]) - 0.05]
    if not starts:
        return []
    trial = events[starts[0]]['trial']
    mine = [e for e in events[starts[0]:] if e['trial'] == trial and
            e['type'] not in ('sensor_stale', 'sensor_fresh')]
    return mine if mine[-1]['type'] == 'trial_end' else []


def listening(graph, recorder=0):
    """Return whether the monitor and the metrics subscribe to each of their inputs."""
    readers = {'contacts': 2, 'contacts/bodies': 2, 'ground_truth/object': 2,
               'ground_truth/finger_left': 1, 'ground_truth/finger_right': 1,
               'joint_states': 1, 'grasp_monitor/events': 2}  # and this test's client
    return all(graph.client.count_subscribers(topic) >= count + recorder
               for topic, count in readers.items())


def published(graph):
    return [values(e) for e in graph.events]


def criteria_of(graph, trial):
    """Return the metrics' criteria of ``trial`` once published, and the reward it sent."""
    criteria = graph.status('criteria')
    if criteria is None or criteria['trial'] != trial['trial']:
        return None
    rewards = [r.vector.x for r in graph.rewards if r.vector.x == float(criteria['total'])]
    return (criteria, rewards[-1]) if rewards else None


def test_a_replayed_trial_gives_the_same_events_and_criteria(graphs, tmp_path):
    path = tmp_path / 'trial.mcap'
    live = graphs()
    # half real time: the recorder, which the machine may starve, keeps up
    live.start('mujoco_sim', real_time_factor=0.5, publish_rate=500.0, command_timeout=0.0,
               **DEEP)
    live.start('grasp_monitor', event_log=tmp_path / 'live.jsonl', **MONITOR)
    live.start('grasp_metrics', **METRICS)
    live.start('grasp_controller', use_sim_time='true', autostart='true', grip_force=15.0)
    for name in ('mujoco_sim/reset', 'grasp_monitor/start', 'grasp_monitor/stop'):
        assert live.client.create_client(Trigger, name).wait_for_service(timeout_sec=30.0)
    # Recording from before the reset: the trial's timeline, from its first message. On
    # simulated time, as the demo records: log time goes back at the reset, and the replay
    # plays the messages in the order recorded.
    live.start('recorder', path=path, use_sim_time='true')
    inputs = [f'{NAMESPACE}/{name.lstrip("/")}' for name in INPUTS]
    latched = [f'{NAMESPACE}/{name}' for name in LATCHED]

    def recording_every_input():
        counts = live.status('recorder: recording') or {}
        return all(int(counts.get(f'messages.{topic}', 0)) > 0 for topic in inputs + latched)

    assert wait_for(recording_every_input, timeout_s=30.0)
    # the monitor and the metrics hear every input before the trial: none may miss its start
    assert wait_for(lambda: listening(live, recorder=1), timeout_s=30.0)
    # The trial opened now ends at the reset, and the next opens on the new timeline's first
    # sample: a point the replay finds by itself, from the stamps alone.
    assert live.call('grasp_monitor/start', Trigger.Request()).success
    assert wait_for(lambda: 'trial_start' in live.kinds(), timeout_s=30.0)  # opened before
    assert live.call('mujoco_sim/reset', Trigger.Request()).success
    assert wait_for(lambda: reset_trial(published(live)), timeout_s=120.0), live.kinds()
    live_events = reset_trial(published(live))
    live_criteria, live_reward = wait_for(lambda: criteria_of(live, live_events[0]),
                                          timeout_s=60.0)
    live.stop('grasp_controller', 'grasp_metrics', 'grasp_monitor', 'mujoco_sim')
    assert live.stop('recorder') == [0]

    # The recording holds every input the live monitor had: no stamp missing. The clock
    # may miss ticks (mujoco_sim keeps 10 for a reliable subscriber whatever qos.depth
    # says), which moves no sample: it only tells when silent inputs are stale.
    counts = message_counts(path)
    missing = {topic: missing_stamps(path, topic, counts[topic]) for topic in inputs}
    assert not any(n for topic, n in missing.items() if topic != CLOCK), missing
    # every record on simulated time (seconds since a reset), none on the wall clock
    assert all(m.log_time_ns < 10**12 and m.publish_time_ns < 10**12
               for m in read_messages(path, log_time_order=False))

    replayed = graphs()
    replayed.start('grasp_monitor', event_log=tmp_path / 'replayed.jsonl', simulator='""',
                   **MONITOR)
    replayed.start('grasp_metrics', **METRICS)
    # log times are simulated: half speed, as the live run went
    replayed.start('replay', path=path, start_paused='true', rate=0.5,
                   topics=f'[{", ".join(INPUTS + LATCHED)}]')
    assert replayed.client.create_client(SetBool, 'replay/pause').wait_for_service(30.0)
    assert wait_for(lambda: listening(replayed), timeout_s=30.0)
    # started before the first message: the monitor's trial opens wherever it starts
    assert replayed.call('grasp_monitor/start', Trigger.Request()).success
    assert replayed.call('replay/pause', SetBool.Request(data=False), SetBool).success
    assert wait_for(lambda: reset_trial(published(replayed)), timeout_s=120.0), \
        replayed.kinds()
    events = reset_trial(published(replayed))
    criteria, reward = wait_for(lambda: criteria_of(replayed, events[0]), timeout_s=60.0)
    # every recorded input was played
    assert wait_for(lambda: (replayed.status('replay') or {}).get('state') == 'done',
                    timeout_s=60.0)
    assert int(replayed.status('replay')['messages']) == \
        sum(counts[t] for t in inputs + latched)

    seen = f'live: {live_events} {live_criteria} {live_reward!r}\n' \
        f'replayed: {events} {criteria} {reward!r}'
    (tmp_path / 'compared.txt').write_text(seen)
    assert [e['type'] for e in events] == [e['type'] for e in live_events], seen
    assert [e['step'] for e in events] == [e['step'] for e in live_events], seen
    period_s = 1.0 / MONITOR_RATE_HZ
    for mine, theirs in zip(events, live_events):
        for key in ('time_s', 'trial_time_s'):
            assert float(mine[key]) == pytest.approx(float(theirs[key]), abs=period_s), seen
    del criteria['trial'], live_criteria['trial']  # ids: the replay may open one trial less
    # both from the recorded contacts of the pads with the object
    assert criteria.pop('basis') == live_criteria.pop('basis') == 'contacts', seen
    # how the trial ended: the force test's end, in both
    assert criteria.pop('end_reason') == live_criteria.pop('end_reason'), seen
    assert criteria.keys() == live_criteria.keys(), seen
    for name, value in live_criteria.items():
        assert float(criteria[name]) == pytest.approx(float(value), abs=1e-6), (name, seen)
    assert reward == pytest.approx(live_reward, abs=1e-6), seen
