"""The moteus_servos node over real rclpy and DDS, on the transport double under real moteus.

The shared servo interface (joint states, commands, refusals) is in
test_node_servo_interface.py; these are the hardware node's own: stop and resume, read-only,
faults, the watchdog, the final stop on shutdown and on a signal, and its configuration.
"""

from collections import Counter
import io
import json
import math
from pathlib import Path
import signal

from common import child_python, publish_until, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.app.reference import flatten
from grasp_monitor.core.errors import ConfigError, HardwareError
from grasp_monitor.hardware.moteus import LoopStats, MoteusConfig, MoteusObservation
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes.input_refusals import refusal_counts
from grasp_monitor.nodes.moteus_servos import MoteusServosNode, PARAMETERS, servo_statuses
from grasp_monitor.nodes.qos import LATCHED_QOS
import moteus
import numpy as np
import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger
import yaml
import yourdfpy

JOINTS = ['lift', 'finger_left', 'finger_right']
IDS = (1, 2, 3)
TWO_PI = 2 * math.pi
EXAMPLE = Path(__file__).resolve().parents[1] / 'config' / 'moteus_servos.example.yaml'


def make_double():
    # No firmware timeout: a loaded test machine may pause the loop longer than the
    # controllers' 0.1 s default, and that fault is the backend's test, not these.
    return TransportDouble(DoubleConfig(ids=IDS, firmware_timeout_s=0.0))


def start_servos(ros, double=None, **overrides):
    """Start the node on ``double`` (a fresh one by default); return (node, double)."""
    double = double or make_double()
    params = {'joints': JOINTS, 'ids': list(IDS), 'command_timeout': 0.0,
              'reply_timeout': 0.05} | overrides
    node = MoteusServosNode(
        transport=moteus.Transport(double), context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()])
    return ros.add(node), double


class Client:
    """A client node: joint states and diagnostics collected, commands and services."""

    def __init__(self, ros):
        self.ros = ros
        self.node = ros.client()
        self.states, self.diagnostics = [], []
        self.node.create_subscription(JointState, 'joint_states', self.states.append, 10)
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self.diagnostics.append,
                                      10)
        self.commands = self.node.create_publisher(JointState, 'servo_commands', 10)

    def command_lift(self, target):
        self.commands.publish(JointState(name=['lift'], position=[target]))

    def lift(self):
        return self.states[-1].position[0] if self.states else math.nan

    def drive_lift_to(self, target, tolerance=0.01, timeout_s=10.0):
        """Command the lift until joint_states show it at ``target`` (rad)."""
        return wait_for(lambda: (self.command_lift(target),
                                 abs(self.lift() - target) < tolerance)[1], timeout_s)

    def call(self, service):
        client = self.node.create_client(Trigger, f'moteus_servos/{service}')
        return self.ros.call(client, Trigger.Request())

    def status(self, name, predicate=lambda status: True, timeout_s=10.0):
        """Wait for a diagnostic status ``moteus_servos: <name>`` that satisfies predicate."""
        def find():
            for array in reversed(self.diagnostics):
                for status in array.status:
                    if status.name == f'moteus_servos: {name}' and predicate(status):
                        return status
            return None
        return wait_for(find, timeout_s)


def values(status):
    return {kv.key: kv.value for kv in status.values}


def test_joint_states_and_diagnostics_report_what_the_controllers_measure(ros):
    double = make_double()
    double.set_state(2, 0.25)
    start_servos(ros, double)
    client = Client(ros)
    assert wait_for(lambda: client.states and client.states[-1].name == JOINTS)
    state = client.states[-1]
    assert state.position[1] == pytest.approx(0.25 * TWO_PI, abs=1e-4)
    assert list(state.velocity) == [0.0] * 3 and list(state.effort) == [0.0] * 3
    loop = client.status('loop', lambda s: int(values(s)['cycles']) > 10)
    assert loop is not None
    loop_values = values(loop)
    assert loop.level == DiagnosticStatus.OK and loop.hardware_id == 'fdcanusb'
    assert loop.message == 'holding a stop until the first command'
    assert loop_values['target_rate_hz'] == '200.0'
    # The achieved rate and jitter on a shared machine: bounds, not timings. The loop
    # never runs faster than asked (the margin covers a window that opens on a late cycle).
    assert 0.0 < float(loop_values['rate_hz']) <= 250.0
    assert 0.0 <= float(loop_values['jitter_s']) < 1.0
    assert loop_values['refused_commands'] == '0' and loop_values['read_only'] == 'False'
    servo = client.status('finger_left')
    servo_values = values(servo)
    assert servo.level == DiagnosticStatus.OK and servo.message == 'stopped'
    assert servo.hardware_id == 'moteus id 2 on bus 1'
    assert servo_values['temperature_c'] == '25.0' and servo_values['voltage_v'] == '24.0'
    assert servo_values['mode'] == '0' and servo_values['fault_code'] == '0'


def test_on_a_simulated_clock_joint_states_carry_the_clock_time_they_are_published_at(ros):
    # The wall-clock age of an observation means nothing on a simulated clock (paused,
    # or slower than real time): subtracted from it, stamps fell before the tick.
    from builtin_interfaces.msg import Time
    from rosgraph_msgs.msg import Clock
    start_servos(ros, use_sim_time=True, publish_rate=100.0)
    client = Client(ros)
    clock = client.node.create_publisher(Clock, '/clock', 10)
    ticks = [Time(sec=7, nanosec=k * 10_000_000) for k in range(1, 6)]
    for tick in ticks:
        assert publish_until(lambda: clock.publish(Clock(clock=tick)),
                             lambda: client.states and client.states[-1].header.stamp == tick,
                             timeout_s=10.0, every_s=0.2), tick
    stamps = [state.header.stamp for state in client.states]
    assert [stamp for stamp in stamps if stamp not in ticks] == []


def test_stop_latches_while_commands_arrive_until_resume(ros):
    node, double = start_servos(ros)
    client = Client(ros)
    assert client.drive_lift_to(0.3), client.lift()
    assert double.state(1).mode == 10
    response = client.call('stop')
    assert response.success and response.message == \
        'stopped: every servo holds a stop until ~/resume'
    # New commands arrive while stopped: they are kept, but nothing moves.
    assert wait_for(lambda: (client.command_lift(0.0), node.servos.command.position[0] == 0.0)[1])
    assert wait_for(lambda: all(double.state(i).mode == 0 for i in IDS))
    count = len(client.states)
    assert wait_for(lambda: (client.command_lift(0.0), len(client.states) > count + 20)[1])
    assert client.lift() > 0.25 and all(double.state(i).mode == 0 for i in IDS)
    assert double.frames(1)[-1].written() == {'mode': 0}
    loop = client.status('loop', lambda s: s.message == 'stopped by ~/stop')
    assert loop.level == DiagnosticStatus.WARN and values(loop)['stopped'] == 'True'
    response = client.call('resume')
    assert response.success and response.message == 'resumed'
    assert client.drive_lift_to(0.0), client.lift()
    assert double.state(1).mode == 10


def test_read_only_never_writes_refuses_commands_and_still_publishes(ros):
    node, double = start_servos(ros, read_only=True)
    client = Client(ros)
    assert wait_for(lambda: len(client.states) > 5)
    # Commands are refused as read_only (and counted), once the subscription has matched.
    assert wait_for(lambda: (client.command_lift(0.5), node.refused['read_only'] > 0)[1])
    loop = client.status('loop', lambda s: int(values(s).get('refused.read_only', 0)) > 0)
    assert loop.message == 'read-only' and values(loop)['read_only'] == 'True'
    assert client.call('stop').message == 'read-only: the servos are never commanded'
    ros.executor.remove_node(node)
    ros.nodes.remove(node)
    node.destroy_node()
    assert not node.servos.running
    assert double.frame_count > 10 and double.write_frame_count == 0
    assert all(frame.writes == () for frame in double.frames())


def test_a_fault_is_an_error_with_its_code_until_resume_clears_it(ros):
    node, double = start_servos(ros)
    client = Client(ros)
    assert client.drive_lift_to(0.1), client.lift()
    # The fault fires at finger_left's next position command (a stop would clear it).
    double.inject_fault(2, 38)
    assert wait_for(lambda: (client.command_lift(0.1), node.servos.faults)[1])
    servo = client.status('finger_left', lambda s: s.level == DiagnosticStatus.ERROR)
    assert servo is not None
    assert servo.message == 'finger_left (id 2): fault 38, over temperature'
    assert values(servo)['fault_code'] == '38' and values(servo)['mode'] == '0'
    loop = client.status('loop', lambda s: s.level == DiagnosticStatus.ERROR)
    assert loop.message == ('servos stopped until ~/resume: '
                            'finger_left (id 2): fault 38, over temperature')
    # Every servo is stopped, not only the faulted one.
    assert all(double.state(i).mode == 0 for i in IDS)
    response = client.call('resume')
    assert response.message == 'resumed; cleared finger_left (id 2): fault 38, over temperature'
    assert client.drive_lift_to(0.4), client.lift()
    servo = client.status('finger_left', lambda s: values(s)['mode'] == '10')
    assert servo.level == DiagnosticStatus.OK and servo.message == 'position'


def test_the_watchdog_stops_the_servos_when_commands_cease(ros):
    node, double = start_servos(ros, command_timeout=0.2)
    client = Client(ros)
    assert client.drive_lift_to(0.3), client.lift()
    # No more commands: within a few timeouts every controller gets a stop.
    assert wait_for(lambda: all(double.state(i).mode == 0 for i in IDS), timeout_s=5.0)
    assert all(double.frames(i)[-1].written() == {'mode': 0} for i in IDS)
    loop = client.status('loop', lambda s: values(s)['watchdog_tripped'] == 'True')
    assert loop.level == DiagnosticStatus.WARN
    assert loop.message == 'watchdog: no command for 0.2 s, servos stopped'
    assert int(values(loop)['watchdog_trips']) >= 1
    # A fresh command drives again.
    assert client.drive_lift_to(0.1), client.lift()


def test_destroying_the_node_sends_a_final_stop(ros):
    node, double = start_servos(ros)
    client = Client(ros)
    assert client.drive_lift_to(0.2), client.lift()
    ros.executor.remove_node(node)
    ros.nodes.remove(node)
    node.destroy_node()
    assert not node.servos.running
    for servo_id in IDS:
        final = double.frames(servo_id)[-1]
        assert final.written() == {'mode': 0} and not final.reply_required
        assert double.state(servo_id).mode == 0


# Run in a child process: the node on the double, spun by run_node like the console script.
# The report is printed even if run_node raises, so the final stop is checked either way.
CHILD = """
import json, sys
import moteus
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.moteus_servos import MoteusServosNode
from grasp_monitor.nodes.process import run_node
double = TransportDouble(DoubleConfig(ids=(1, 2, 3), firmware_timeout_s=0.0))
code = None
try:
    code = run_node(lambda: MoteusServosNode(transport=moteus.Transport(double)), sys.argv[1:])
finally:
    print(json.dumps({
        'code': code, 'modes': [double.state(i).mode for i in (1, 2, 3)],
        'final': [double.frames(i)[-1].written() for i in (1, 2, 3)],
        'commanded': any(f.written().get('mode') == 10 for f in double.frames(1))}))
"""


@pytest.mark.parametrize('signal_number', [signal.SIGTERM, signal.SIGINT],
                         ids=['SIGTERM', 'SIGINT'])
def test_a_signal_ends_the_process_cleanly_with_a_final_stop(ros, signal_number):
    client = Client(ros)
    namespace = client.node.get_namespace()
    with child_python(CHILD, '--ros-args', '-r', f'__ns:={namespace}',
                      '-p', 'command_timeout:=0.0', '-p', 'reply_timeout:=0.05') as child:
        assert client.drive_lift_to(0.2, timeout_s=20.0), client.lift()
        child.send_signal(signal_number)
        stdout, stderr = child.communicate(timeout=20.0)
    report = json.loads(stdout.strip().splitlines()[-1])
    # The servos were driven, and the signal left every one of them stopped.
    assert report['commanded'], stderr
    assert report['modes'] == [0, 0, 0] and report['final'] == [{'mode': 0}] * 3
    # ... and the process ended as a clean shutdown does.
    assert child.returncode == 0 and report['code'] == 0, stderr


@pytest.mark.parametrize('overrides, message', [
    ({'ids': [1, 2]}, 'ids must be one CAN id in [1, 126] per joint (3), unique, got [1, 2]'),
    ({'transport': 'usb'}, "parameter 'transport' of node 'moteus_servos' must be a string: "
     "one of fdcanusb, socketcan, pi3hat, got 'usb'"),
    ({'torque_limit': [1.0, 2.0]}, 'torque_limit_nm must be one value or one per joint (3)'),
    ({'position_min': [0.5], 'position_max': [0.5]},
     'position_min_rad must be < position_max_rad for every joint, got [0.5, 0.5, 0.5] and '
     '[0.5, 0.5, 0.5]'),
    ({'buses': [1, 2, 1]}, "buses for transport 'fdcanusb' must be in [1], got [1, 2, 1]"),
])
def test_bad_configuration_fails_at_construction_with_what_is_valid(ros, overrides, message):
    with pytest.raises(ConfigError) as error:
        start_servos(ros, **overrides)
    assert str(error.value) == message


def test_a_missing_adapter_fails_at_construction_naming_the_device(ros):
    path = '/dev/grasp_monitor_no_such_fdcanusb'
    with pytest.raises(HardwareError) as error:
        MoteusServosNode(context=ros.context, parameter_overrides=[
            Parameter('fdcanusb_paths', value=[path])])
    assert str(error.value).startswith('cannot open the fdcanusb transport: ')
    assert path in str(error.value)


def test_the_example_parameter_file_declares_every_key_and_loads_into_the_node(ros, tmp_path):
    text = EXAMPLE.read_text()
    tree = yaml.safe_load(text)
    assert list(tree) == ['moteus_servos']
    keys = flatten(tree['moteus_servos']['ros__parameters'])
    assert set(keys) == {spec.name for spec in PARAMETERS}
    # rcl parses the file as the console script would; the harness runs every node in its
    # own namespace, so the copy is keyed to match any node.
    copy = tmp_path / 'moteus_servos.yaml'
    copy.write_text(text.replace('\nmoteus_servos:\n', '\n/**:\n', 1))
    double = make_double()
    node = ros.add(MoteusServosNode(transport=moteus.Transport(double), context=ros.context,
                                    cli_args=['--ros-args', '--params-file', str(copy)]))
    for name, value in keys.items():
        assert node.get_parameter(name).value == value, name
    assert node.config.read_only and node.config.ids == IDS
    assert node.config.torque_limit_nm.tolist() == [0.3, 0.2, 0.2]
    assert node.config.fdcanusb_paths == ()
    assert wait_for(lambda: double.frame_count > 3) and double.write_frame_count == 0


def test_statuses_name_output_limits_silent_servos_and_a_loop_without_cycles():
    config = MoteusConfig(('left', 'right'), (11, 12), buses=(1, 2),
                          fdcanusb_paths=('/dev/a', '/dev/b'))
    stats = LoopStats(0, math.nan, math.nan, math.nan, math.nan, 0, 0, 0, 0, 0, 0, '')
    loop, left, right = servo_statuses('servos', config, None, stats, {})
    assert (loop.level, loop.message) == (DiagnosticStatus.WARN, 'no cycle yet')
    assert (left.level, left.message) == (DiagnosticStatus.STALE, 'no reply yet')
    assert right.name == 'servos: right' and right.hardware_id == 'moteus id 12 on bus 2'
    observation = MoteusObservation(
        ('left', 'right'), 1.0, np.array([0.5, math.nan]), np.zeros(2), np.array([0.2, 0.0]),
        np.array([30.5, math.nan]), np.array([24.1, math.nan]), np.array([10, -1]),
        np.array([102, 0]), np.array([True, False]), True, False, False, ())
    loop, left, right = servo_statuses('servos', config, observation, stats,
                                       refusal_counts(Counter(unknown_joint=2),
                                                      'refused_commands'))
    assert (loop.level, loop.message) == (DiagnosticStatus.OK, 'commanding')
    assert values(loop)['refused_commands'] == '2' and values(loop)['refused.unknown_joint'] == '2'
    assert (left.level, left.message) == (DiagnosticStatus.OK,
                                          'position, limited by commanded maximum torque')
    assert values(left)['position_rad'] == '0.5' and values(left)['torque_nm'] == '0.2'
    assert values(left)['fault_code'] == '102' and values(left)['temperature_c'] == '30.5'
    assert (right.level, right.message) == (DiagnosticStatus.WARN, 'no reply this cycle')
    assert values(right)['mode_name'] == 'mode -1'
    loop = servo_statuses('servos', config, observation, stats, {}, running=False)[0]
    assert (loop.level, loop.message) == (DiagnosticStatus.ERROR, 'the servo loop has ended')


def test_a_late_subscriber_gets_the_urdf_of_the_configured_gripper(ros):
    start_servos(ros, robot_description_scenario='pick_lift')
    client = ros.client()
    descriptions = []
    client.create_subscription(String, '/robot_description', descriptions.append, LATCHED_QOS)
    assert wait_for(lambda: descriptions)
    urdf = yourdfpy.URDF.load(io.StringIO(descriptions[0].data), build_scene_graph=False,
                              load_meshes=False)
    assert urdf.validate(), urdf.errors
    # the gripper alone, its movable joints named as this node's joints: joint_states drive it
    assert [link.name for link in urdf.robot.links] == \
        ['world', 'base', 'palm', 'finger_left', 'finger_right']
    assert urdf.actuated_joint_names == JOINTS
    assert [urdf.joint_map[j].limit.lower for j in JOINTS] == [-0.05, -0.01, -0.01]


def test_no_scenario_no_robot_description(ros):
    node, _ = start_servos(ros)
    assert node.get_publishers_info_by_topic('/robot_description') == []
