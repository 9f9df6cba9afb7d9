"""Diagnostics on wall time: a paused simulator's consumers go on reporting, and say STALE."""

from common import Observer, wait_for
from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.nodes.grasp_metrics import GraspMetricsNode
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from rclpy.parameter import Parameter
from std_srvs.srv import SetBool

INPUTS = {'grasp_monitor': ('contacts', 'ground_truth/object', 'joint_states'),
          'grasp_metrics': ('contacts', 'ground_truth/object', 'ground_truth/finger_left',
                            'ground_truth/finger_right')}


def node(ros, cls, **params):
    return ros.add(cls(context=ros.context, parameter_overrides=[
        Parameter(k, value=v) for k, v in params.items()]))


def levels(observer, name):
    """Return the latest level of each input status of node ``name``, and how many came."""
    latest, count = {}, 0
    for array in list(observer.diagnostics):
        for status in array.status:
            node_name, _, what = status.name.partition(': input ')
            if what and node_name.endswith(f'/{name}'):
                latest[what] = status.level
                count += 1
    return latest, count


def overall(observer, name='grasp_monitor: monitor'):
    """Return a node's latest overall status (level, message), None before one."""
    for array in reversed(list(observer.diagnostics)):
        for status in array.status:
            if status.name.endswith(f'/{name}'):
                return status.level, status.message
    return None


def all_at(observer, level):
    return all(
        all(levels(observer, name)[0].get(topic) == level for topic in topics)
        for name, topics in INPUTS.items())


def test_a_paused_simulator_leaves_diagnostics_flowing_and_stale_until_it_resumes(
        ros, tmp_path):
    node(ros, MujocoSimNode, publish_rate=100.0, command_timeout=0.0, lockstep=False)
    node(ros, GraspMonitorNode, use_sim_time=True, simulator='',
         event_log=str(tmp_path / 'events.jsonl'))
    node(ros, GraspMetricsNode, use_sim_time=True)
    observer = Observer(ros)
    pause = ros.client().create_client(SetBool, 'mujoco_sim/pause')
    assert wait_for(lambda: all_at(observer, DiagnosticStatus.OK), timeout_s=30.0), \
        {name: levels(observer, name)[0] for name in INPUTS}
    assert ros.call(pause, SetBool.Request(data=True)).success
    # simulated time stands still; the 1 Hz wall-time diagnostics go on and say STALE
    assert wait_for(lambda: all_at(observer, DiagnosticStatus.STALE), timeout_s=10.0), \
        {name: levels(observer, name)[0] for name in INPUTS}
    stale_at = {name: levels(observer, name)[1] for name in INPUTS}
    assert wait_for(lambda: all(levels(observer, name)[1] >= stale_at[name] + 2 * len(topics)
                                for name, topics in INPUTS.items()), timeout_s=10.0)
    assert all_at(observer, DiagnosticStatus.STALE)  # still paused: still stale
    # the monitor's overall status too, though its clock (simulated) stands still with them
    assert overall(observer) == (DiagnosticStatus.STALE,
                                 'stale input: contacts, ground_truth/object, joint_states')
    # and the metrics' energy, which held OK before the pause
    assert overall(observer, 'grasp_metrics: energy') == (
        DiagnosticStatus.STALE, 'stale input: ground_truth/object, ground_truth/finger_left, '
        'ground_truth/finger_right, contacts')
    assert ros.call(pause, SetBool.Request(data=False)).success
    assert wait_for(lambda: all_at(observer, DiagnosticStatus.OK), timeout_s=10.0), \
        {name: levels(observer, name)[0] for name in INPUTS}
    assert wait_for(lambda: overall(observer, 'grasp_metrics: energy')[0]
                    == DiagnosticStatus.OK, timeout_s=10.0)
