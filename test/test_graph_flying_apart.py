"""A flung object throws the gripper off its base: flying_apart fires in the graph, from /tf.

The simulator publishes every body pose on /tf; the monitor measures the pads' distances
from the base on them and fires flying_apart on the same tick as the offline run of the
same parameter file, which measures them on MuJoCo's own poses.
"""

import os
import signal
import subprocess

from common import NAMESPACE, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.app.scenario_config import default_params_file, offline_run, ScenarioConfig
from grasp_monitor.nodes import node_command
from grasp_monitor.nodes.qos import EVENTS_QOS, VERDICTS_QOS
from grasp_monitor.sim.scenario_run import run_scenario
import pytest
from std_srvs.srv import SetBool, Trigger
import yaml

pytestmark = pytest.mark.graph

#: pick_lift, flung: once the box is held, 1e4 N up (and 2e3 N/kg of sine) from 1.3 s on
#: throws it into the palm and the gripper up its lift to the joint's end, 0.5 m above the
#: base; the pads are 0.2 m from it at most in a normal trial.
FLING = {
    'mujoco_sim': {'force_test.amplitude_per_kg': 1e4, 'force_test.offset': 1e4,
                   'force_test.start_time': 1.3},
    # the fling comes at its own time, not on the grasp: no simulator to ask
    'grasp_monitor': {'max_distance': 0.3, 'simulator': ''},
}


@pytest.fixture
def fling_file(tmp_path):
    """pick_lift's parameter file with the fling, for the graph and the offline run alike."""
    sections = yaml.safe_load(default_params_file('pick_lift').read_text())
    for node, values in FLING.items():
        sections[node]['ros__parameters'].update(values)
    sections['grasp_monitor']['ros__parameters']['event_log'] = str(tmp_path / 'events.jsonl')
    # in any namespace: the test's own
    path = tmp_path / 'fling.yaml'
    path.write_text(yaml.safe_dump({f'/**/{node}': values for node, values in sections.items()}))
    return path


def test_a_flung_object_fires_flying_apart_in_the_graph_on_the_offline_tick(
        ros, tmp_path, fling_file):
    output = (tmp_path / 'nodes.log').open('w')
    processes = [subprocess.Popen(
        node_command(name, params, namespace=NAMESPACE, params_file=fling_file),
        env=os.environ.copy(), stdout=output, stderr=subprocess.STDOUT)
        for name, params in (('mujoco_sim', {}), ('grasp_monitor', {'use_sim_time': 'true'}))]
    try:
        client = ros.client()
        events = []
        client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                                   EVENTS_QOS)
        services = {name: client.create_client(Trigger, name) for name in (
            'mujoco_sim/reset', 'grasp_monitor/start', 'grasp_controller/start')}
        pause = client.create_client(SetBool, 'mujoco_sim/pause')
        for service in (*services.values(), pause):
            assert service.wait_for_service(timeout_sec=30.0), service.srv_name
        assert wait_for(lambda: client.count_publishers('/tf') > 0
                        and client.count_subscribers('/tf') > 0, timeout_s=30.0)
        # a verdict: the monitor hears every input (contacts and their body names too), so
        # none misses the first ticks of the trial
        verdicts = []
        client.create_subscription(DiagnosticArray, 'grasp_monitor/verdicts', verdicts.append,
                                   VERDICTS_QOS)
        assert wait_for(lambda: verdicts, timeout_s=30.0)
        # as the demo runs a trial: paused at the start, the monitor's trial open, then on
        assert ros.call(pause, SetBool.Request(data=True)).success
        assert ros.call(services['mujoco_sim/reset'], Trigger.Request()).success
        assert ros.call(services['grasp_monitor/start'], Trigger.Request()).success
        assert ros.call(services['grasp_controller/start'], Trigger.Request()).success
        assert ros.call(pause, SetBool.Request(data=False)).success

        def kinds():
            return [e.name for e in events]
        assert wait_for(lambda: 'trial_end' in kinds(), timeout_s=90.0), kinds()
    finally:
        for process in processes:
            process.send_signal(signal.SIGINT)
        codes = [process.wait(timeout=15) for process in processes]
        output.close()
    log = (tmp_path / 'nodes.log').read_text()
    assert codes == [0, 0] and 'Traceback' not in log, (codes, log[-3000:])
    graph = [{kv.key: kv.value for kv in e.values} for e in events]
    assert [e['type'] for e in graph] == \
        ['trial_start', 'contact', 'grasp', 'flying_apart', 'trial_end'], graph
    (fling,) = [e for e in graph if e['type'] == 'flying_apart']
    assert fling['body'] in ('finger_left', 'finger_right')
    assert float(fling['distance_m']) > 0.3

    config = ScenarioConfig.from_file(fling_file)
    settings, params, setup = offline_run(config)
    offline = run_scenario(config.scenario, 3.0, settings, setup=setup, **params).events
    assert [e['type'] for e in offline] == [e['type'] for e in graph]
    # on the same tick of the same trial, on the same pad
    for graph_event, offline_event in zip(graph, offline):
        assert graph_event['step'] == offline_event['step'], (graph_event, offline_event)
        assert float(graph_event['time_s']) == pytest.approx(float(offline_event['time_s']),
                                                             abs=1e-6)
    (offline_fling,) = [e for e in offline if e['type'] == 'flying_apart']
    assert offline_fling['body'] == fling['body']
    assert float(fling['distance_m']) == pytest.approx(float(offline_fling['distance_m']),
                                                       rel=1e-3)
