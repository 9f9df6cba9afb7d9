"""The whole pick-lift graph as separate processes over DDS, as users run it."""

import json
import os
import subprocess

from common import interrupt_all, NAMESPACE, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.core.monitor import EventLog
from grasp_monitor.nodes import node_command
from grasp_monitor.nodes.qos import EVENTS_QOS
import pytest
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

pytestmark = pytest.mark.graph


def node_process(module, log, params_file=None, **params):
    return subprocess.Popen(node_command(module, params, namespace=NAMESPACE,
                                         params_file=params_file),
                            env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT)


@pytest.fixture
def graph(ros, tmp_path):
    """Start the graph with a given grip force; yields a function that runs one trial."""
    processes = []
    output = (tmp_path / 'nodes.log').open('w')

    def run(grip_force_n, events_wanted, timeout_s=60.0, **sim_params):
        # The controller in the simulator's process, in lockstep; autostart: the gripper is
        # held from the first moment, never dropped.
        controller = tmp_path / 'controller.yaml'
        controller.write_text('/**/grasp_controller:\n  ros__parameters:\n'
                              f'    autostart: true\n    grip_force: {grip_force_n}\n')
        processes.append(node_process(
            'mujoco_sim', output, params_file=controller, real_time_factor=1.0,
            publish_rate=500.0, command_timeout=0.0, controller='true', **sim_params))
        for module, params in (
                # a loaded machine may delay inputs: the monitor then pauses, never fails
                ('grasp_monitor', {'event_log': tmp_path / 'events.jsonl',
                                   'max_sample_age': 0.5}),
                ('grasp_metrics', {})):
            processes.append(node_process(module, output, use_sim_time='true', **params))
        client = ros.client()
        seen = {'events': [], 'diagnostics': [], 'reward': []}
        client.create_subscription(DiagnosticStatus, 'grasp_monitor/events',
                                   seen['events'].append, EVENTS_QOS)
        client.create_subscription(DiagnosticArray, '/diagnostics',
                                   seen['diagnostics'].append, 50)
        client.create_subscription(Vector3Stamped, 'grasp_metrics/reward',
                                   seen['reward'].append, 10)
        services = {name: client.create_client(Trigger, name) for name in (
            'mujoco_sim/reset', 'grasp_monitor/start', 'grasp_monitor/stop',
            'grasp_controller/start')}
        for service in services.values():
            assert service.wait_for_service(timeout_sec=30.0), service.srv_name
        assert wait_for(lambda: client.count_publishers('tactile/finger_left') > 0)
        # The controller's script restarts when the reset sends time back. A reset stops
        # the servos, and the gripper falls until the controller's next command: on a busy
        # machine its pads reach the table (lift near -0.011 m), a real contact. The trial
        # starts once, after the reset, the controller drives the lift above the grasp
        # height's floor, every node a while on the new timeline.
        timeline = {'last_s': None, 'reset': False, 'held': False}

        def on_state(state):
            stamp_s = state.header.stamp.sec + state.header.stamp.nanosec * 1e-9
            if timeline['last_s'] is not None and stamp_s < timeline['last_s']:
                timeline['reset'] = True
            timeline['last_s'] = stamp_s
            if timeline['reset'] and stamp_s > 0.2 and state.effort[0] != 0.0 \
                    and state.position[0] > 0.0:
                timeline['held'] = True

        client.create_subscription(JointState, 'joint_states', on_state, 100)
        assert wait_for(lambda: timeline['last_s'] is not None, timeout_s=30.0)
        ros.call(services['mujoco_sim/reset'], Trigger.Request())
        assert wait_for(lambda: timeline['held'], timeout_s=30.0), \
            'the controller never drove the lift after the reset'
        assert ros.call(services['grasp_monitor/start'], Trigger.Request()).success

        def kinds():
            return [e.name for e in seen['events']]

        assert wait_for(lambda: set(events_wanted) <= set(kinds()), timeout_s), kinds()
        summary = json.loads(ros.call(services['grasp_monitor/stop'], Trigger.Request()).message)
        return seen, summary, kinds

    yield run
    codes = interrupt_all(processes)
    output.close()
    # Ctrl-C ends every node cleanly, whatever its threads were doing
    log = (tmp_path / 'nodes.log').read_text()
    assert codes == [0] * len(processes) and 'Traceback' not in log, (codes, log[-3000:])


def test_a_good_pick_fires_contact_then_grasp_and_holds_through_the_force_test(graph, tmp_path):
    seen, summary, kinds = graph(15.0, ['grasp', 'stop_external_force'])
    events = kinds()
    assert events.index('contact') < events.index('grasp') < events.index('stop_external_force')
    assert 'slip_out' not in events and 'contact_timeout' not in events
    # the stop service's JSON says what the events topic said
    assert wait_for(lambda: len(seen['events']) >= len(summary['events']))
    published = [{kv.key: kv.value for kv in e.values} for e in seen['events']]
    assert summary['events'] == published[:len(summary['events'])]
    assert [r.as_strings() for r in EventLog.read(tmp_path / 'events.jsonl')] == \
        summary['events']

    def status(suffix):
        for array in reversed(seen['diagnostics']):
            for s in array.status:
                if s.name.endswith(suffix):
                    return {kv.key: kv.value for kv in s.values}
        return None

    # the metrics close the trial once their own inputs reach its end: a loaded machine
    # may delay them
    assert wait_for(lambda: status('criteria'), timeout_s=30.0)
    assert status('energy') is not None and float(status('energy')['energy_j']) >= 0.0
    assert seen['reward'] and seen['reward'][-1].vector.x > 0.0


def test_a_weak_grip_lets_the_object_slip_out(graph):
    # no force test pulling: only the grip holds the object as the gripper lifts
    no_pull = {'force_test.amplitude_per_kg': 0.0, 'force_test.offset': 0.0}
    _, _, kinds = graph(0.5, ['slip_out'], **no_pull)
    assert kinds().index('contact') < kinds().index('slip_out')


def test_fingers_that_never_close_time_out_without_contact(graph):
    _, _, kinds = graph(0.0, ['contact_timeout'])
    assert 'contact' not in kinds() and 'grasp' not in kinds()
