"""Faults in the pick-lift graph, every node its own process, as users run it.

One graph serves the module, the tests in order: each kills, pauses or breaks something
and leaves the graph whole again. SIGKILL and restart the monitor (its log keeps both
lives' events), the metrics and the controller; the simulator killed and restarted without
its tactile sensor and its contacts (the monitor reports STALE, never a slip or a timeout)
and with them (the monitor recovers); a paused clock fires no timeout; a servo command a
user could send makes the physics diverge: the trial ends with an event and the simulator
serves on; a simulator killed and restarted mid-trial, heard only past where the old one
stopped, ends the trial with time_reset in the monitor and the metrics.
test_graph_monitor_kill.py has the monitor's kill alone; test_node_grasp_monitor.py the
monitor's staleness in process.
"""

import math
import os
import signal
import subprocess
import time

from common import NAMESPACE, publish_until, RosHarness, status_values, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.core.monitor import EventLog
from grasp_monitor.nodes import node_command
from grasp_monitor.nodes.qos import EVENTS_QOS
import pytest
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool, Trigger

pytestmark = pytest.mark.graph

#: Diagnostic status a process publishes once it is up, by name.
ALIVE = {'simulator': ': simulation', 'grasp_monitor': ': monitor', 'grasp_metrics': ': energy',
         'grasp_controller': ': script'}
# 100 Hz for the simulator and its tactile sensor (one process, one -p); the watchdog is
# generous: a starved controller on a loaded machine must not trip it
SIM = {'real_time_factor': 1.0, 'publish_rate': 100.0, 'command_timeout': 1.0}


class Graph:
    """The graph's processes by name, and a client that sees what they publish."""

    def __init__(self, ros, folder):
        self.ros, self.folder = ros, folder
        self.log_path = folder / 'events.jsonl'
        self.output = (folder / 'nodes.log').open('w')
        self.processes = {}
        self.client = ros.client('fault_client')
        self.events, self.diagnostics, self.energy, self.clock = [], [], [], []
        self.client.create_subscription(DiagnosticStatus, 'grasp_monitor/events',
                                        self.events.append, EVENTS_QOS)
        self.client.create_subscription(DiagnosticArray, '/diagnostics',
                                        self.diagnostics.append, 100)
        self.client.create_subscription(Vector3Stamped, 'grasp_metrics/energy', self.energy.append,
                                        100)
        self.client.create_subscription(Clock, '/clock', self.clock.append, 10)
        self.full = self.client.create_publisher(Float64MultiArray, 'servo_commands/full', 10)
        self.hold = None  # a full command sent at 20 Hz while set, as a controller would
        self.client.create_timer(0.05, lambda: self.hold and self.full.publish(self.hold))

    def start(self, name, wait=True, remaps=None, **params):
        module = {'simulator': 'mujoco_sim'}.get(name, name)
        args = node_command(module, params, namespace=NAMESPACE, remaps=remaps or {})
        since = len(self.diagnostics)
        self.processes[name] = subprocess.Popen(args, env=os.environ.copy(),
                                                stdout=self.output, stderr=subprocess.STDOUT)
        if wait:
            self.alive(name, since)

    def alive(self, name, since=0):
        """Wait for diagnostics of ``name`` after diagnostics[since].

        A killed server's endpoints linger in discovery, so a service looks ready before
        the new process can answer: the new life's own diagnostics say it can.
        """
        assert wait_for(lambda: self.status(ALIVE[name], since), timeout_s=30.0), name

    def start_monitor(self, wait=True):
        # a loaded machine may delay inputs: the monitor then pauses, never fails; the force
        # test lasts past every test, so only the faults end a trial
        self.start('grasp_monitor', wait, use_sim_time='true', event_log=self.log_path,
                   max_sample_age=0.5, force_test_time=600.0)

    def start_controller(self, wait=True):
        # autostart: the gripper closes on the object after every reset
        self.start('grasp_controller', wait, use_sim_time='true', autostart='true',
                   grip_force=15.0)

    def kill(self, name):
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def call(self, service, request=None):
        """Call ``service``; after a silent try, again on a fresh client.

        A restarted server can look ready to a client that matched its former life and
        never hear it (or never be heard): a fresh client matches the new life.
        """
        kind = SetBool if service.endswith('pause') else Trigger
        for _ in range(3):
            client = self.client.create_client(kind, service)
            try:
                assert client.wait_for_service(timeout_sec=30.0), service
                future = client.call_async(request or kind.Request())
                if wait_for(future.done, timeout_s=10.0):
                    return future.result()
            finally:
                self.client.destroy_client(client)
        raise AssertionError(f'{service} did not answer')

    def kinds(self, since=0):
        return [e.name for e in self.events[since:]
                if e.name not in ('sensor_stale', 'sensor_fresh')]

    def now_s(self):
        return self.clock[-1].clock.sec + self.clock[-1].clock.nanosec * 1e-9 \
            if self.clock else math.nan

    def status(self, suffix, since=0):
        """Return the latest status ``*suffix`` after diagnostics[since], or None."""
        for array in reversed(self.diagnostics[since:]):
            for status in array.status:
                if status.name.endswith(suffix):
                    return status
        return None

    def reset_and_start_trial(self):
        """Reset the simulator, wait for the new timeline, start a trial.

        Returns:
            The index in ``events`` of the new trial's first event.
        """
        assert self.call('mujoco_sim/reset').success
        # every node is on the new timeline once /clock has run a while past the reset
        assert wait_for(lambda: 0.2 < self.now_s() < 1.0, timeout_s=30.0)
        since = len(self.events)
        assert self.call('grasp_monitor/start').success
        return since

    def close(self):
        for process in self.processes.values():
            process.send_signal(signal.SIGINT)
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        self.output.close()


@pytest.fixture(scope='module')
def graph(tmp_path_factory):
    ros = RosHarness()
    graph = Graph(ros, tmp_path_factory.mktemp('graph'))
    try:
        graph.start('simulator', wait=False, **SIM)
        graph.start_monitor(wait=False)
        graph.start('grasp_metrics', wait=False, use_sim_time='true')
        graph.start_controller(wait=False)
        for name in ALIVE:
            graph.alive(name)
        yield graph
    finally:
        graph.close()
        ros.close()


def test_a_killed_monitor_restarts_and_its_log_keeps_both_lives(graph):
    trial = graph.reset_and_start_trial()
    assert wait_for(lambda: 'grasp' in graph.kinds(trial), timeout_s=30.0), graph.kinds()
    graph.kill('grasp_monitor')
    first_life = len(graph.events)
    graph.start_monitor()
    assert graph.call('grasp_monitor/start').success
    assert wait_for(lambda: 'grasp' in graph.kinds(first_life), timeout_s=30.0), \
        graph.kinds(first_life)
    # every event published by either life is in the one log, in order
    published = [{kv.key: kv.value for kv in e.values} for e in graph.events]
    logged = iter(r.as_strings() for r in EventLog.read(graph.log_path))
    assert all(record in logged for record in published)  # a subsequence of the log
    # the metrics follow the new life's trial
    count = len(graph.energy)
    assert wait_for(lambda: len(graph.energy) > count + 10, timeout_s=20.0)


def test_killed_metrics_and_controller_restart_and_the_graph_recovers(graph):
    graph.kill('grasp_metrics')
    graph.start('grasp_metrics', use_sim_time='true')
    # the restarted metrics hear the open trial's start (transient local) and measure it
    count = len(graph.energy)
    assert wait_for(lambda: len(graph.energy) > count + 10, timeout_s=30.0)
    graph.kill('grasp_controller')
    since = len(graph.diagnostics)
    # no command for 1 s: the simulator's watchdog stops the servos and says so
    assert wait_for(lambda: (s := graph.status(': simulation', since)) is not None
                    and s.message == 'watchdog tripped', timeout_s=20.0)
    graph.start_controller()
    since = len(graph.diagnostics)
    assert wait_for(lambda: (s := graph.status(': simulation', since)) is not None
                    and s.message == 'running', timeout_s=30.0)


def test_a_simulator_without_its_contact_streams_makes_the_monitor_stale_never_a_slip(graph):
    trial = graph.reset_and_start_trial()
    assert wait_for(lambda: 'contact' in graph.kinds(trial), timeout_s=30.0)
    graph.kill('simulator')
    # neither taxels nor contacts: the contacts go where no monitor listens
    graph.start('simulator', tactile='false', remaps={'contacts': 'contacts_elsewhere'}, **SIM)
    since, events = len(graph.diagnostics), len(graph.events)

    def stale():
        status = graph.status(': monitor', since)
        return status is not None and status.level == DiagnosticStatus.STALE

    # the new timeline ends the trial and opens one that only stale input reaches
    assert wait_for(stale, timeout_s=30.0)
    assert wait_for(lambda: graph.now_s() > 3.0, timeout_s=30.0)  # past timeout and slip
    assert stale()
    assert not {'slip_out', 'contact_timeout', 'grasp_timeout'} & set(graph.kinds(events))
    graph.kill('simulator')
    graph.start('simulator', **SIM)
    since = len(graph.diagnostics)
    assert wait_for(lambda: (s := graph.status(': monitor', since)) is not None
                    and s.level == DiagnosticStatus.OK, timeout_s=30.0)


def test_a_paused_clock_fires_no_timeout(graph):
    graph.kill('grasp_controller')
    # the lift held at its start, the fingers free and open: only the contact timeout can
    # end the trial
    graph.hold = Float64MultiArray(data=[0.1, 0.0, 0.0, 1.0, 1.0, 60.0] +
                                   [math.nan, 0.0, 0.0, 0.0, 1.0, 0.0] * 2)
    events = graph.reset_and_start_trial()
    assert wait_for(lambda: 'trial_start' in graph.kinds(events), timeout_s=20.0)
    assert graph.call('mujoco_sim/pause', SetBool.Request(data=True)).success
    time.sleep(0.2)  # let clock messages already in flight arrive
    paused_at = graph.now_s()
    time.sleep(3.0)  # wall time past the 2 s contact timeout
    assert graph.now_s() == paused_at
    assert 'contact_timeout' not in graph.kinds(events)
    assert graph.call('mujoco_sim/pause', SetBool.Request(data=False)).success
    # running again, the timeout fires on simulated time
    assert wait_for(lambda: 'contact_timeout' in graph.kinds(events), timeout_s=30.0), (
        [(e.name, status_values(e)['time_s']) for e in graph.events[events:]],
        status_values(graph.status(': monitor')), graph.now_s())
    timeout = next(e for e in graph.events[events:] if e.name == 'contact_timeout')
    assert float(status_values(timeout)['trial_time_s']) > 2.0
    graph.hold = None
    graph.start_controller()


def test_a_diverging_command_ends_the_trial_and_the_simulator_serves_on(graph):
    trial = graph.reset_and_start_trial()
    assert wait_for(lambda: 'grasp' in graph.kinds(trial), timeout_s=30.0)
    events = len(graph.events)
    # valid to the letter (finite, torque >= 0) but far beyond what MuJoCo integrates
    diverging = Float64MultiArray(data=[math.nan, 0.0, 9e9, 1.0, 1.0, 9e9] * 3)
    since = len(graph.diagnostics)
    assert publish_until(lambda: graph.full.publish(diverging),
                         lambda: (s := graph.status(': simulation', since)) is not None
                         and s.message == 'diverged', timeout_s=30.0, every_s=0.1)
    assert graph.status(': simulation', since).level == DiagnosticStatus.ERROR
    # MuJoCo reset the state: time went back, and the monitor ended the trial
    assert wait_for(lambda: 'trial_end' in graph.kinds(events), timeout_s=20.0)
    end = next(e for e in graph.events[events:] if e.name == 'trial_end')
    assert status_values(end)['reason'] == 'time_reset'
    logged = [r.as_strings() for r in EventLog.read(graph.log_path)]
    assert status_values(end) in logged
    # the simulator lives on: a reset clears the divergence and the clock runs
    assert graph.call('mujoco_sim/reset').success
    since = len(graph.diagnostics)
    assert wait_for(lambda: (s := graph.status(': simulation', since)) is not None
                    and s.message == 'running', timeout_s=30.0)
    assert graph.processes['simulator'].poll() is None


def test_a_simulator_restarted_mid_trial_ends_it_with_time_reset_in_monitor_and_metrics(graph):
    trial = graph.reset_and_start_trial()
    assert wait_for(lambda: 'grasp' in graph.kinds(trial), timeout_s=30.0)
    trial_id = status_values(graph.events[trial])['trial']
    events, since = len(graph.events), len(graph.diagnostics)
    before = {suffix: status_values(graph.status(suffix, since) or graph.status(suffix))
              for suffix in (': monitor', ': energy')}
    graph.kill('simulator')
    time.sleep(3.0)
    # the new simulator's first messages go out before the others hear it (discovery);
    # as fast as it can until they answer (lockstep), it is heard past where the old one
    # stopped: its time went back, yet no stamp shows it
    graph.start('simulator', **(SIM | {'real_time_factor': 0.0}))
    assert wait_for(lambda: 'trial_end' in graph.kinds(events), timeout_s=30.0), \
        graph.kinds(events)
    # the trial ends there, not in a slip-out across both simulators' timelines
    # (kinds() leaves out the stale/fresh records a dead simulator brings: find it in all)
    end = next(e for e in graph.events[events:] if e.name == 'trial_end')
    assert graph.kinds(events)[0] == 'trial_end' and status_values(end)['reason'] == 'time_reset'
    # the metrics end it alike: its criteria, ended by the reset
    assert wait_for(lambda: (s := graph.status(': criteria', since)) is not None
                    and status_values(s)['trial'] == trial_id, timeout_s=30.0)
    assert status_values(graph.status(': criteria', since))['end_reason'] == 'time_reset'
    # both counted the reset: a timeline opened, what it dropped said
    since = len(graph.diagnostics)
    after = {}
    for suffix in before:
        assert wait_for(lambda: graph.status(suffix, since), timeout_s=10.0), suffix
        after[suffix] = status_values(graph.status(suffix, since))
        assert int(after[suffix]['timelines']) > int(before[suffix]['timelines']), suffix
        assert int(after[suffix]['reset_dropped_readings']) >= \
            int(before[suffix]['reset_dropped_readings'])
    monitor = after[': monitor']
    assert int(monitor['time_resets']) == int(before[': monitor']['time_resets']) + 1
