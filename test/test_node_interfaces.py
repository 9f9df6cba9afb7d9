"""Each node, started over real rclpy, has exactly the topics and services it declares.

The README's topic and service tables are printed from the same declarations
(``INTERFACES``), so this test keeps them true.
"""

from conftest import NAMESPACE, wait_for
from grasp_monitor.hardware.transport_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes.interfaces import STANDARD_SERVICES, STANDARD_TOPICS
from grasp_monitor.reference import node_modules
import moteus
import pytest
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy

MODULES = node_modules()


def start(ros, name, tmp_path, best_effort):
    """Start node ``name`` (mujoco_sim also hosts tactile_sensor); return the node."""
    overrides = {'qos.best_effort': best_effort}
    if name == 'grasp_monitor':
        overrides['event_log'] = str(tmp_path / 'events.jsonl')
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
    node_class = next(value for key, value in vars(MODULES[name]).items()
                      if key.endswith('Node') and key != 'Node')
    return ros.add(node_class(**kwargs))


def actual_endpoints(node):
    """Return the node's own (kind, full name, type) triples, standard ones left out."""
    name, namespace = node.get_name(), node.get_namespace()
    graph = {
        'publishes': node.get_publisher_names_and_types_by_node(name, namespace),
        'subscribes': node.get_subscriber_names_and_types_by_node(name, namespace),
        'service': node.get_service_names_and_types_by_node(name, namespace),
        'calls': node.get_client_names_and_types_by_node(name, namespace),
    }
    standard = set(STANDARD_TOPICS) | {f'{namespace}/{name}/{s}' for s in STANDARD_SERVICES}
    return {(kind, topic, type_) for kind, pairs in graph.items()
            for topic, types in pairs for type_ in types if topic not in standard}


def matches(declared, node, endpoint):
    kind, topic, type_ = endpoint
    return [d for d in declared if d.kind == kind and d.interface == type_
            and d.pattern(node.get_namespace(), node.get_name()).match(topic)]


@pytest.mark.parametrize('best_effort', [False, True], ids=['reliable', 'best_effort'])
@pytest.mark.parametrize('name', list(MODULES))
def test_a_node_creates_exactly_its_declared_topics_and_services(ros, tmp_path, name,
                                                                 best_effort):
    node = start(ros, name, tmp_path, best_effort)
    assert node.get_namespace() == NAMESPACE
    declared = MODULES[name].INTERFACES

    def unmatched():
        found = actual_endpoints(node)
        return [d for d in declared if not any(d in matches(declared, node, e) for e in found)]

    # the graph shows a node's own endpoints once discovery has seen them
    wait_for(lambda: not unmatched(), timeout_s=20.0)
    assert unmatched() == [], 'declared but not created'
    for endpoint in actual_endpoints(node):
        assert len(matches(declared, node, endpoint)) == 1, f'created but not declared: {endpoint}'
    reliability = {'sensor': ReliabilityPolicy.BEST_EFFORT if best_effort
                   else ReliabilityPolicy.RELIABLE,
                   'events': ReliabilityPolicy.RELIABLE, 'default': ReliabilityPolicy.RELIABLE}
    durability = {'sensor': DurabilityPolicy.VOLATILE, 'default': DurabilityPolicy.VOLATILE,
                  'events': DurabilityPolicy.TRANSIENT_LOCAL}
    for kind, topic, type_ in actual_endpoints(node):
        if kind not in ('publishes', 'subscribes'):
            continue
        qos = matches(declared, node, (kind, topic, type_))[0].qos
        info = (node.get_publishers_info_by_topic if kind == 'publishes'
                else node.get_subscriptions_info_by_topic)(topic)
        own = [i for i in info if (i.node_name, i.node_namespace)
               == (node.get_name(), node.get_namespace())]
        assert own, topic
        for endpoint_info in own:
            profile = endpoint_info.qos_profile
            assert (profile.reliability, profile.durability) == \
                (reliability[qos], durability[qos]), f'{kind} {topic}: {qos}'
