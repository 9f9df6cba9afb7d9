"""The rviz configs against the running graph: every display gets its messages, in world.

rviz2 cannot run here; ``app.rviz_check`` subscribes as each display of
config/rviz/<scenario>.rviz does, beside the graph the demo starts (mujoco_sim with its
tactile sensor, and for pick_lift its hosted controller; grasp_monitor; grasp_metrics),
with a trial running, and prints the per-display table.
"""

import os
import signal
import subprocess

from common import NAMESPACE, wait_for
from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.app.demo.plan import GraphPlan
from grasp_monitor.app.rviz_check import check_rviz_config, check_table
from grasp_monitor.app.scenario_config import default_params_file
from grasp_monitor.nodes import node_command
from grasp_monitor.nodes.qos import VERDICTS_QOS
import pytest
from std_srvs.srv import Trigger
import yaml

pytestmark = pytest.mark.graph
CONFIG = os.path.join(os.path.dirname(__file__), '..', 'config', 'rviz')


@pytest.fixture
def graph(ros, tmp_path):
    """Start a scenario's graph as the demo does; yields a function that starts a trial."""
    processes = []
    log = (tmp_path / 'nodes.log').open('w')

    def start(scenario):
        plan = GraphPlan.from_file(default_params_file(scenario))
        # keyed /**/<node>: the plain keys match nodes in the root namespace only
        given = yaml.safe_load(default_params_file(scenario).read_text())
        params_file = tmp_path / f'{scenario}.yaml'
        params_file.write_text(yaml.safe_dump({f'/**/{k}': v for k, v in given.items()}))
        for name in plan.nodes:
            params = {} if name == 'mujoco_sim' else {'use_sim_time': 'true'}
            if name == 'grasp_monitor':
                params['event_log'] = tmp_path / 'events.jsonl'
            processes.append(subprocess.Popen(
                node_command(name, params, namespace=NAMESPACE, params_file=params_file),
                env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT))
        client = ros.client()
        # as the demo does: the graph is up once the monitor gives verdicts on the
        # simulator's samples; a start called while the nodes still come up may be lost
        verdicts = []
        client.create_subscription(DiagnosticArray, 'grasp_monitor/verdicts', verdicts.append,
                                   VERDICTS_QOS)
        assert wait_for(lambda: verdicts, timeout_s=60.0), 'no verdict from grasp_monitor'
        names = ['grasp_monitor/start'] + (
            ['grasp_controller/start'] if plan.has_controller else [])
        for name in names:  # the trial, then the pick: events, contacts, pressures
            assert ros.call(client.create_client(Trigger, name), Trigger.Request(),
                            timeout_s=30.0).success, name

    yield start
    for process in processes:
        process.send_signal(signal.SIGINT)
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    log.close()


@pytest.mark.parametrize('scenario', ['pick_lift', 'multi_block', 'industrial_arm'])
def test_every_display_of_the_rviz_config_gets_its_messages_in_world(graph, ros, scenario):
    config = yaml.safe_load(open(os.path.join(CONFIG, f'{scenario}.rviz')).read())
    graph(scenario)
    checks = check_rviz_config(config, ros.context, NAMESPACE, timeout_s=20.0)
    table = check_table(checks)
    print(f'\n{scenario}\n{table}')
    assert all(check.ok for check in checks), table
    displayed = {c.display for c in checks}
    assert {'TF', 'RobotModel', 'tactile/markers', 'contacts/markers',
            'grasp_monitor/markers'} <= displayed
