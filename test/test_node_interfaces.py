"""Each node, started over real rclpy, has exactly the topics and services it declares.

The README's topic and service tables are printed from the same declarations
(``INTERFACES``), so this test keeps them true.
"""

from common import NAMESPACE, wait_for
from grasp_monitor.app.reference import node_modules
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes import node_command
from grasp_monitor.nodes.interfaces import compare, declared_matches, expected, graph_endpoints
from grasp_monitor.recording import McapRecordingWriter
import moteus
import pytest
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState

MODULES = node_modules()
DECLARED = [name for name, module in MODULES.items() if hasattr(module, 'INTERFACES')]


def start(ros, name, tmp_path, best_effort, **more):
    """Start node ``name`` (mujoco_sim also hosts tactile_sensor); return the node."""
    overrides = {'qos.best_effort': best_effort, **more}
    if name == 'grasp_monitor':
        overrides['event_log'] = str(tmp_path / 'events.jsonl')
        overrides['base_frame'] = 'base'  # its /tf subscriptions too
    if name == 'recorder':
        overrides['path'] = str(tmp_path / 'recording.mcap')
    if name == 'replay':  # a recording of one topic and no clock: replay makes /clock
        path = tmp_path / 'replay.mcap'
        writer = McapRecordingWriter(path)
        writer.add_topic(f'{NAMESPACE}/joint_states', 'sensor_msgs/msg/JointState')
        writer.write(f'{NAMESPACE}/joint_states',
                     serialize_message(JointState(name=['lift'], position=[0.0])),
                     1_700_000_000_000_000_000)
        writer.close()
        overrides |= {'path': str(path), 'start_paused': True, 'clock_rate': 50.0}
    if name in ('mujoco_sim', 'tactile_sensor'):
        overrides |= {'publish_rate': 50.0, 'command_timeout': 0.0, 'tactile': False}
    params = [Parameter(key, value=value) for key, value in overrides.items()]
    kwargs = {'context': ros.context, 'parameter_overrides': params}
    if name == 'moteus_servos':
        double = TransportDouble(DoubleConfig(ids=(1, 2, 3), firmware_timeout_s=0.0))
        kwargs['transport'] = moteus.Transport(double)
    if name == 'tactile_sensor':
        sim = ros.add(MODULES['mujoco_sim'].MujocoSimNode(**kwargs))
        kwargs['runner'] = sim.runner
        kwargs['parameter_overrides'] = [Parameter('qos.best_effort', value=best_effort)]
        return ros.add(MODULES['tactile_sensor'].TactileSensorNode(**kwargs))
    module = MODULES[name]
    node_class = next(value for key, value in vars(module).items()  # the one it defines
                      if key.endswith('Node')
                      and getattr(value, '__module__', '') == module.__name__)
    return ros.add(node_class(**kwargs))


@pytest.mark.parametrize('best_effort', [False, True], ids=['reliable', 'best_effort'])
@pytest.mark.parametrize('name', DECLARED)
def test_a_node_creates_exactly_its_declared_topics_and_services(ros, tmp_path, name,
                                                                 best_effort):
    node = start(ros, name, tmp_path, best_effort)
    check_endpoints(node, name, best_effort)


@pytest.mark.parametrize('name', ['grasp_monitor', 'grasp_metrics'])
def test_without_contacts_the_monitors_read_the_taxels(ros, tmp_path, name):
    node = start(ros, name, tmp_path, False, contacts='')
    names = [endpoint[1] for endpoint in check_endpoints(node, name, False)]
    assert f'{NAMESPACE}/tactile/finger_left' in names
    assert f'{NAMESPACE}/contacts' not in names


def check_endpoints(node, name, best_effort):
    """Check the node has exactly the endpoints it declares for its parameters; return them."""
    assert node.get_namespace() == NAMESPACE
    conditions = {d.when.lstrip('!') for d in MODULES[name].INTERFACES if d.when}
    declared = expected(MODULES[name].INTERFACES,
                        {key: node.get_parameter(key).value for key in conditions})
    namespace = node.get_namespace()
    assert node.get_name() == name

    def found():
        return graph_endpoints(node, name, namespace)

    # the graph shows a node's own endpoints once discovery has seen them
    wait_for(lambda: compare(declared, found(), name, namespace) == ([], []), timeout_s=20.0)
    missing, extra = compare(declared, found(), name, namespace)
    assert missing == [], 'declared but not created'
    assert extra == [], 'created but not declared'
    reliability = {'sensor': ReliabilityPolicy.BEST_EFFORT if best_effort
                   else ReliabilityPolicy.RELIABLE,
                   'events': ReliabilityPolicy.RELIABLE, 'default': ReliabilityPolicy.RELIABLE,
                   'verdicts': ReliabilityPolicy.RELIABLE, 'deep': ReliabilityPolicy.RELIABLE,
                   'tf': ReliabilityPolicy.RELIABLE, 'tf_static': ReliabilityPolicy.RELIABLE,
                   'latched': ReliabilityPolicy.RELIABLE}
    durability = {'sensor': DurabilityPolicy.VOLATILE, 'default': DurabilityPolicy.VOLATILE,
                  'events': DurabilityPolicy.TRANSIENT_LOCAL, 'tf': DurabilityPolicy.VOLATILE,
                  'tf_static': DurabilityPolicy.TRANSIENT_LOCAL,
                  'latched': DurabilityPolicy.TRANSIENT_LOCAL,
                  'verdicts': DurabilityPolicy.VOLATILE, 'deep': DurabilityPolicy.VOLATILE}
    for endpoint in found():
        kind, topic = endpoint[:2]
        qos = declared_matches(declared, endpoint, name, namespace)[0].qos
        if kind not in ('publishes', 'subscribes') or qos == 'offered':
            continue
        info = (node.get_publishers_info_by_topic if kind == 'publishes'
                else node.get_subscriptions_info_by_topic)(topic)
        own = [i for i in info if (i.node_name, i.node_namespace) == (name, namespace)]
        assert own, topic
        for endpoint_info in own:
            profile = endpoint_info.qos_profile
            assert (profile.reliability, profile.durability) == \
                (reliability[qos], durability[qos]), f'{kind} {topic}: {qos}'
    return found()


def test_every_documented_node_declares_its_topics_and_services():
    assert DECLARED == list(MODULES), 'declare INTERFACES in each node module'


def test_a_node_command_is_what_ros2_run_would_run():
    args = node_command('mujoco_sim', {'publish_rate': 100.0}, namespace='/a',
                        remaps={'/clock': '/a/clock'}, params_file='p.yaml')
    assert args[1:] == ['-m', 'grasp_monitor.nodes.sim_process', '--ros-args',
                        '--params-file', 'p.yaml', '-r', '__ns:=/a', '-r', '/clock:=/a/clock',
                        '-p', 'publish_rate:=100.0']
    assert node_command('recorder')[1:] == ['-m', 'grasp_monitor.nodes.recorder', '--ros-args']
