"""Input lost before a callback is counted: a flood into a small subscription queue.

Both servo nodes take their commands through ``nodes/servo_commands.py``: the simulator and
the moteus servos (on the bus double) count lost commands alike.

Fast DDS raises no ``message_lost`` event when a full KEEP_LAST queue drops its oldest
sample, so the count comes from the gaps in the publication sequence numbers
(``nodes/lost_inputs.py`` ``LostInputs``); every message sent is then either refused or lost.
"""

from common import Observer, status_values, wait_for
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes.lost_inputs import LostInputs
from grasp_monitor.nodes.moteus_servos import MoteusServosNode
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from grasp_monitor.nodes.qos import sensor_qos
import moteus
import pytest
from rclpy.parameter import Parameter
from std_msgs.msg import Float64MultiArray

FLOOD = 2000


def start_mujoco_sim(ros, params):
    return ros.add(MujocoSimNode(
        context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()])), ': simulation'


def start_moteus_servos(ros, params):
    double = TransportDouble(DoubleConfig(ids=(1, 2, 3), firmware_timeout_s=0.0))
    params = params | {'reply_timeout': 0.05}
    return ros.add(MoteusServosNode(
        transport=moteus.Transport(double), context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()])), ': loop'


@pytest.mark.parametrize('start', [start_mujoco_sim, start_moteus_servos])
def test_a_flood_into_a_small_queue_is_counted_as_refused_or_lost(ros, start):
    params = {'publish_rate': 100.0, 'command_timeout': 0.0, 'qos.depth': 2}
    sim, status_name = start(ros, params)
    observer = Observer(ros)
    client = ros.client()
    full = client.create_publisher(Float64MultiArray, 'servo_commands/full', sensor_qos(False, 2))
    garbage = Float64MultiArray(data=[0.0] * 5)  # wrong length: refused
    probes = []  # published until one is refused: some may land after the counts below
    assert wait_for(lambda: (full.publish(garbage), probes.append(1),
                             sim.refused['wrong_length'])[2] > 0)
    refused_before = sum(sim.refused.values())
    lost = sim._grasp_monitor_lost_inputs
    lost_before = lost.lost['servo_commands/full']
    for _ in range(FLOOD):
        full.publish(garbage)

    def accounted():
        refused = sum(sim.refused.values()) - refused_before
        dropped = lost.lost['servo_commands/full'] - lost_before
        return (refused, dropped) if refused + dropped >= FLOOD else None
    refused, dropped = wait_for(accounted, timeout_s=30.0) or (None, None)
    assert refused is not None and FLOOD <= refused + dropped <= FLOOD + len(probes) \
        and dropped > 0, (
        f'{FLOOD} sent: {sum(sim.refused.values()) - refused_before} refused, '
        f'{lost.lost["servo_commands/full"] - lost_before} counted lost')
    print(f'flood of {FLOOD} into a queue of 2: {refused} refused, {dropped} lost')
    status = observer.status(status_name, lambda s: int(
        status_values(s).get('lost_inputs', 0)) >= dropped, timeout_s=5.0)
    assert status is not None
    assert int(status_values(status)['lost.servo_commands/full']) >= dropped


def test_sequence_gaps_count_per_publisher_and_a_restart_is_no_loss():
    lost = LostInputs()
    for n in (1, 2, 5, 6):  # 3 and 4 lost
        lost.on_message('a', n)
    assert lost.counts() == {'lost_inputs': 2, 'lost.a': 2}
    lost.on_message('a', 1)  # the publisher restarted: a new run, nothing lost
    lost.on_message('a', 2)
    assert lost.counts()['lost.a'] == 2
    lost._publishers['b'] = 2  # two publishers, far apart: each gap goes to its own run
    for n in (100, 7, 101, 8, 104, 9):
        lost.on_message('b', n)
    assert lost.lost['b'] == 2
    lost.on_message('c', None)  # no sequence numbers: nothing counted
    assert 'c' not in lost.lost
