"""Fuzzed parameter sets against every node over its real parameter services.

Every declared parameter is read-only, an unknown name is not declared, and a value of
another type than the declared one is refused (``nodes.params``, then rclpy); ``use_sim_time``
is the one writable parameter and only receives values of the wrong type here. So every set must be
refused with a reason, the node's values must stay as they were, and the node must go on
answering and publishing.
"""

from common import fuzz_settings, wait_for
from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes.grasp_controller import GraspControllerNode
from grasp_monitor.nodes.grasp_metrics import GraspMetricsNode
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.moteus_servos import MoteusServosNode
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from grasp_monitor.nodes.tactile_adapter import TactileAdapterNode
from grasp_monitor.nodes.tactile_sensor import TactileSensorNode
from hypothesis import given, strategies as st
import moteus
from rcl_interfaces.msg import Parameter as ParameterMsg, ParameterType, ParameterValue
from rcl_interfaces.srv import GetParameters, ListParameters, SetParameters
from rcl_interfaces.srv import SetParametersAtomically
from rclpy.parameter import Parameter

FUZZ = fuzz_settings(max_examples=40)
# (type, field of ParameterValue, strategy of its value)
VALUES = (
    (ParameterType.PARAMETER_BOOL, 'bool_value', st.booleans()),
    (ParameterType.PARAMETER_INTEGER, 'integer_value', st.integers(-2**63, 2**63 - 1)),
    (ParameterType.PARAMETER_DOUBLE, 'double_value', st.floats()),
    (ParameterType.PARAMETER_STRING, 'string_value', st.text(max_size=20)),
    (ParameterType.PARAMETER_BYTE_ARRAY, 'byte_array_value',
     st.lists(st.binary(min_size=1, max_size=1), max_size=4)),
    (ParameterType.PARAMETER_BOOL_ARRAY, 'bool_array_value',
     st.lists(st.booleans(), max_size=4)),
    (ParameterType.PARAMETER_INTEGER_ARRAY, 'integer_array_value',
     st.lists(st.integers(-2**63, 2**63 - 1), max_size=4)),
    (ParameterType.PARAMETER_DOUBLE_ARRAY, 'double_array_value',
     st.lists(st.floats(), max_size=4)),
    (ParameterType.PARAMETER_STRING_ARRAY, 'string_array_value',
     st.lists(st.text(max_size=8), max_size=4)),
)


@st.composite
def parameter_value(draw, not_type=None):
    """Return a ParameterValue of any type but ``not_type`` (NOT_SET included)."""
    choices = [entry for entry in VALUES if entry[0] != not_type]
    if not_type is not None:
        choices.append((ParameterType.PARAMETER_NOT_SET, None, st.none()))
    kind, field, values = draw(st.sampled_from(choices))
    value = ParameterValue(type=kind)
    if field is not None:
        setattr(value, field, draw(values))
    return value


def start_nodes(ros, tmp_path):
    double = TransportDouble(DoubleConfig(ids=(1, 2, 3), firmware_timeout_s=0.0))
    sim = ros.add(MujocoSimNode(context=ros.context, parameter_overrides=[
        Parameter('publish_rate', value=50.0)]))
    return [sim,
            ros.add(TactileSensorNode(runner=sim.runner, context=ros.context)),
            ros.add(MoteusServosNode(
                transport=moteus.Transport(double), context=ros.context, parameter_overrides=[
                    Parameter('joints', value=['lift', 'finger_left', 'finger_right']),
                    Parameter('ids', value=[1, 2, 3]), Parameter('reply_timeout', value=0.05)])),
            ros.add(TactileAdapterNode(context=ros.context)),
            ros.add(GraspMonitorNode(context=ros.context, parameter_overrides=[
                Parameter('simulator', value=''),
                Parameter('event_log', value=str(tmp_path / 'events.jsonl'))])),
            ros.add(GraspMetricsNode(context=ros.context)),
            ros.add(GraspControllerNode(context=ros.context, parameter_overrides=[
                Parameter('autostart', value=False)]))]


def test_fuzzed_parameter_sets_are_refused_with_a_reason_and_change_nothing(ros, tmp_path):
    nodes = start_nodes(ros, tmp_path)
    client = ros.client()
    diagnostics = []
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 100)
    services = {}
    for node in nodes:
        name = node.get_name()
        services[name] = {kind: client.create_client(kind, f'{name}/{service}') for kind, service
                          in ((SetParameters, 'set_parameters'),
                              (SetParametersAtomically, 'set_parameters_atomically'),
                              (GetParameters, 'get_parameters'),
                              (ListParameters, 'list_parameters'))}
    declared = {name: list(ros.call(clients[ListParameters],
                                    ListParameters.Request()).result.names)
                for name, clients in services.items()}

    def values(name):
        return ros.call(services[name][GetParameters],
                        GetParameters.Request(names=declared[name])).values

    before = {name: values(name) for name in services}
    sent, refused = [], []

    @st.composite
    def sets(draw):
        name = draw(st.sampled_from(sorted(services)))
        parameters = []
        for _ in range(draw(st.integers(1, 8))):
            known = draw(st.sampled_from(declared[name]))
            unknown = draw(st.text(min_size=1, max_size=16).filter(
                lambda text: text not in declared[name]))
            parameter = ParameterMsg(name=draw(st.sampled_from([known, unknown])))
            # any value for a read-only or unknown one; use_sim_time only the wrong types
            parameter.value = draw(parameter_value(
                ParameterType.PARAMETER_BOOL if parameter.name == 'use_sim_time' else None))
            parameters.append(parameter)
        return name, parameters, draw(st.booleans())

    @FUZZ
    @given(request=sets())
    def send(request):
        name, parameters, atomically = request
        sent.append(request)
        if atomically:
            results = [ros.call(services[name][SetParametersAtomically],
                                SetParametersAtomically.Request(parameters=parameters)).result]
        else:
            results = ros.call(services[name][SetParameters],
                               SetParameters.Request(parameters=parameters)).results
            assert len(results) == len(parameters)
        for result in results:
            assert not result.successful and result.reason, (name, parameters, result)
            refused.append(result.reason)

    count = len(diagnostics)
    send()
    # Hypothesis sent all its sets: with the health checks off, a strategy filtered too
    # often would end the run early without a word
    assert len(sent) >= FUZZ.max_examples
    assert any('read-only' in reason for reason in refused)
    assert any('has no parameter' in reason for reason in refused)
    for name in services:  # nothing changed, and every node still answers
        assert values(name) == before[name], name

    def senders():
        return {status.name.split(':')[0].rsplit('/', 1)[-1]
                for array in diagnostics[count:] for status in array.status}

    publishing = {'mujoco_sim', 'moteus_servos', 'tactile_adapter', 'grasp_monitor',
                  'grasp_metrics'}
    assert wait_for(lambda: publishing <= senders()), senders()
