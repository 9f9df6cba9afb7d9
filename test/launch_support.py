"""What the launch tests share: the launch stack, the installed package, the graph checks.

Importing this module skips the importing test module where ``launch_testing`` is not
importable (launch, launch_ros and launch_testing come with a ROS 2 installation; PyPI
does not carry them). Where it is importable but the rest of the stack, or an
installed grasp_monitor (colcon build, then source install/setup.bash), is missing,
``SKIP`` says why and the tests skip through ``pytest.mark.skipif``.
"""

from pathlib import Path
import tempfile

from conftest import RosHarness, wait_for
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


def assert_trial_starts() -> None:
    """Start a trial through the monitor's service; its trial_start event arrives."""
    from grasp_monitor.nodes.qos import EVENTS_QOS
    from diagnostic_msgs.msg import DiagnosticStatus
    from std_srvs.srv import Trigger
    harness = RosHarness()
    try:
        client = harness.client('launch_test_client')
        events = []
        client.create_subscription(DiagnosticStatus, '/grasp_monitor/events', events.append,
                                   EVENTS_QOS)
        response = harness.call(client.create_client(Trigger, '/grasp_monitor/start'),
                                Trigger.Request(), timeout_s=UP_TIMEOUT_S)
        assert response.success
        assert wait_for(lambda: any(e.name == 'trial_start' and {
            kv.key: kv.value for kv in e.values}.get('trial') == response.message
            for e in events), timeout_s=30.0), [e.name for e in events]
    finally:
        harness.close()


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
