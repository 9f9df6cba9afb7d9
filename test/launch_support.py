"""What the launch tests share: the launch stack, the installed package, the graph checks.

Importing this module skips the importing test module where ``launch_testing`` is not
importable (launch, launch_ros and launch_testing come with a ROS 2 installation; PyPI
does not carry them). Where it is importable but the rest of the stack, or an
installed grasp_monitor (colcon build, then source install/setup.bash), is missing,
``SKIP`` says why and the tests skip through ``pytest.mark.skipif``.
"""

from pathlib import Path
import subprocess
import sys
import tempfile
import time

from common import RosHarness, wait_for
from grasp_monitor.app.reference import node_modules, parameters_of
from grasp_monitor.nodes.interfaces import compare, expected, graph_endpoints
import pytest
from rclpy.node import NodeNameNonExistentError
import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / 'config'
#: Generous: MuJoCo scenes build and DDS discovers on a loaded two-core machine.
UP_TIMEOUT_S = 120.0
#: How long launch waits after SIGINT before SIGTERM (its default, 5 s, is short there).
SIGTERM_TIMEOUT_S = 60
CLOCK = ('subscribes', '/clock', 'rosgraph_msgs/msg/Clock')

try:
    import launch_testing
except ImportError as error:
    pytest.skip(f'launch_testing is not importable here ({error}); it comes with a ROS 2 '
                'installation, not from PyPI', allow_module_level=True)


def _skip_reason() -> str:
    try:
        # from-imports: a bare `import launch` finds this repository's launch/ folder
        from launch import LaunchDescription  # noqa: F401
        from launch_ros.actions import Node  # noqa: F401
        from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    except ImportError as error:
        return f'the launch stack is not importable here ({error})'
    try:
        prefix = Path(get_package_prefix('grasp_monitor'))
    except PackageNotFoundError:
        return ('grasp_monitor is not installed in an ament prefix: colcon build, then '
                'source install/setup.bash')
    if not (prefix / 'lib' / 'grasp_monitor' / 'mujoco_sim').exists():
        return f'{prefix} has no grasp_monitor executables: colcon build again'
    return ''


SKIP = _skip_reason()


def config_copy(path: Path, **sections: dict) -> str:
    """Return a copy of parameter file ``path`` with some parameters of some nodes changed."""
    tree = yaml.safe_load(path.read_text())
    for node, values in sections.items():
        tree[node]['ros__parameters'].update(values)
    copy = Path(tempfile.mkdtemp(prefix='grasp_monitor_launch_')) / path.name
    copy.write_text(yaml.safe_dump(tree))
    return str(copy)


def event_log_in_temp(path: Path) -> str:
    """Return a copy of ``path`` whose monitor logs events in a temporary directory."""
    return config_copy(path, grasp_monitor={
        'event_log': str(Path(tempfile.mkdtemp(prefix='grasp_monitor_events_')) / 'e.jsonl')})


def description(launch_file: str, **arguments: str):
    """Return the launch description of ``launch/<launch_file>`` (this tree's) under test."""
    from launch import LaunchDescription
    from launch.actions import IncludeLaunchDescription, SetLaunchConfiguration
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    return LaunchDescription([
        SetLaunchConfiguration('sigterm_timeout', str(SIGTERM_TIMEOUT_S)),
        IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(ROOT / 'launch' / launch_file)),
            launch_arguments=list(arguments.items())),
        launch_testing.actions.ReadyToTest(),
    ])


def assert_nodes_up(nodes: dict[str, Path], use_sim_time: bool) -> None:
    """Assert each node (name: its parameter file) shows exactly its declared endpoints.

    What a node declares but creates only under a parameter (``when``) is expected
    as the parameter file sets it.
    """
    modules = node_modules()
    harness = RosHarness()
    try:
        observer = harness.client('launch_test_observer')
        for name, config in nodes.items():
            declared = expected(modules[name].INTERFACES, parameters_of(name, config))

            def difference():
                try:
                    found = graph_endpoints(observer, name, '/')
                except NodeNameNonExistentError:
                    return [f'node /{name}'], []
                if use_sim_time:  # every node then follows /clock
                    found.discard(CLOCK)
                return compare(declared, found, name, '/')

            wait_for(lambda: difference() == ([], []), timeout_s=UP_TIMEOUT_S, period_s=0.2)
            missing, extra = difference()
            assert missing == [], f'{name}: declared but not in the graph'
            assert extra == [], f'{name}: in the graph but not declared'
    finally:
        harness.close()


def _events(client):
    from diagnostic_msgs.msg import DiagnosticStatus
    from grasp_monitor.nodes.qos import EVENTS_QOS
    events = []
    client.create_subscription(
        DiagnosticStatus, '/grasp_monitor/events',
        lambda msg: events.append({'type': msg.name} | {kv.key: kv.value for kv in msg.values}),
        EVENTS_QOS)
    return events


def _monitor_status(client):
    from diagnostic_msgs.msg import DiagnosticArray
    status = {}

    def on_diagnostics(msg):
        for entry in msg.status:
            if entry.name == '/grasp_monitor: monitor':
                status.clear()
                status.update((kv.key, kv.value) for kv in entry.values)

    client.create_subscription(DiagnosticArray, '/diagnostics', on_diagnostics, 10)
    return status


def _publish_monitor_inputs(client, pads, object_name, joints, until):
    """Publish taxel clouds, the object's ground truth and joint states at 100 Hz."""
    from grasp_monitor.nodes import conversions
    from nav_msgs.msg import Odometry
    import numpy as np
    from sensor_msgs.msg import JointState, PointCloud2
    clouds = {pad: client.create_publisher(PointCloud2, f'/tactile/{pad}', 10) for pad in pads}
    odometry = client.create_publisher(Odometry, f'/ground_truth/{object_name}', 10)
    joint_states = client.create_publisher(JointState, '/joint_states', 10)
    positions = np.zeros((4, 3))
    forces = np.tile([0.0, 0.0, 0.5], (4, 1))  # 2 N a pad: in contact
    while not until():
        stamp = client.get_clock().now()
        time_s = stamp.nanoseconds * 1e-9
        for pad, publisher in clouds.items():
            publisher.publish(conversions.tactile_cloud_to_msg(positions, forces, pad, time_s))
        msg = Odometry()
        msg.header.stamp, msg.header.frame_id = stamp.to_msg(), 'world'
        msg.pose.pose.orientation.w = 1.0
        odometry.publish(msg)
        joints_msg = JointState(name=list(joints), position=[0.0] * len(joints),
                                velocity=[0.0] * len(joints), effort=[0.0] * len(joints))
        joints_msg.header.stamp = stamp.to_msg()
        joint_states.publish(joints_msg)
        time.sleep(0.01)


def assert_trial_waits_for_inputs_then_starts(pads=('finger_left', 'finger_right'),
                                              object_name='object',
                                              joints=('finger_left', 'finger_right')) -> None:
    """Check a start with no sensor input: the id now, the trial at the first sample.

    Until an input has spoken the monitor's status names the topics it waits for and no
    trial_start comes; once the inputs flow, trial_start comes with the id the service gave.
    """
    from std_srvs.srv import Trigger
    harness = RosHarness()
    try:
        client = harness.client('launch_test_client')
        events, status = _events(client), _monitor_status(client)
        response = harness.call(client.create_client(Trigger, '/grasp_monitor/start'),
                                Trigger.Request(), timeout_s=UP_TIMEOUT_S)
        assert response.success and response.message.isdigit(), response
        waiting = ', '.join([f'tactile/{pad}' for pad in pads]
                            + [f'ground_truth/{object_name}', 'joint_states'])
        assert wait_for(lambda: status.get('waiting_for') == waiting, timeout_s=30.0), status
        assert not [e for e in events if e['type'] == 'trial_start'], events
        started = lambda: any(e['type'] == 'trial_start'  # noqa: E731
                              and e.get('trial') == response.message for e in events)
        deadline = time.monotonic() + 30.0
        _publish_monitor_inputs(client, pads, object_name, joints,
                                lambda: started() or time.monotonic() > deadline)
        assert started(), events
        assert wait_for(lambda: status.get('waiting_for') == '', timeout_s=30.0), status
    finally:
        harness.close()


def assert_documented_trial_is_the_offline_trial(config: str) -> None:
    """Pause, reset, start the monitor and the controller, resume: the offline run's events.

    The sequence README gives for sim.launch.py; the offline run reads the same file.
    """
    from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
    from grasp_monitor.sim.scenario_run import run_scenario
    from std_srvs.srv import SetBool, Trigger
    scenario = ScenarioConfig.from_file(Path(config))
    settings, params, setup = offline_run(scenario)
    offline = run_scenario(scenario.scenario, None, settings, setup=setup, **params)
    expected = [(e['type'], round(float(e['time_s']), 9)) for e in offline.events]
    harness = RosHarness()
    try:
        client = harness.client('launch_test_client')
        events = _events(client)

        def call(kind, name, **request):
            response = harness.call(client.create_client(kind, name), kind.Request(**request),
                                    timeout_s=UP_TIMEOUT_S)
            assert response.success, (name, response)
            return response

        call(SetBool, '/mujoco_sim/pause', data=True)
        call(Trigger, '/mujoco_sim/reset')
        trial = call(Trigger, '/grasp_monitor/start').message
        call(Trigger, '/grasp_controller/start')
        call(SetBool, '/mujoco_sim/pause', data=False)
        ours = lambda: [e for e in events if e.get('trial') == trial]  # noqa: E731
        assert wait_for(lambda: any(e['type'] == 'trial_end' for e in ours()),
                        timeout_s=UP_TIMEOUT_S), events
        assert [(e['type'], round(float(e['time_s']), 9)) for e in ours()] == expected
    finally:
        harness.close()


def run_launch(launch_file: str, timeout_s: float = UP_TIMEOUT_S, **arguments: str):
    """Run ``launch/<launch_file>`` in a LaunchService of its own process, as ``ros2 launch``.

    Returns:
        The completed process: its return code is the LaunchService's, its stdout the
        launch's log and the nodes' output.
    """
    script = (
        'import sys\n'
        'from launch import LaunchDescription, LaunchService\n'
        'from launch.actions import IncludeLaunchDescription\n'
        'from launch.launch_description_sources import PythonLaunchDescriptionSource\n'
        'service = LaunchService()\n'
        'service.include_launch_description(LaunchDescription([IncludeLaunchDescription(\n'
        f'    PythonLaunchDescriptionSource({str(ROOT / "launch" / launch_file)!r}),\n'
        f'    launch_arguments={sorted(arguments.items())!r})]))\n'
        'sys.exit(service.run())\n')
    return subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                          timeout=timeout_s)


def assert_recorded(topics) -> None:
    """Wait until the recorder's /diagnostics count messages on each of ``topics``."""
    from diagnostic_msgs.msg import DiagnosticArray
    harness = RosHarness()
    try:
        counts = {}

        def on_diagnostics(msg):
            for status in msg.status:
                if status.name == '/recorder: recording':
                    counts.update((kv.key, kv.value) for kv in status.values)

        harness.client('launch_test_diagnostics').create_subscription(
            DiagnosticArray, '/diagnostics', on_diagnostics, 10)
        assert wait_for(lambda: all(int(counts.get(f'messages.{topic}', 0)) > 0
                                    for topic in topics), timeout_s=UP_TIMEOUT_S), counts
    finally:
        harness.close()


def exit_codes(proc_info) -> dict[str, int]:
    """Return each launched process's exit code by process name (name-N)."""
    return {info.process_name: info.returncode for info in proc_info
            if getattr(info, 'returncode', None) is not None}
