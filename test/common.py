"""Helpers common to the tests: an isolated DDS domain, a spinning client, fuzz settings.

Tests import them from here (pytest advises against importing ``conftest``); the fixtures
built on them stay in conftest.py.
"""

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

from hypothesis import HealthCheck, Phase, settings
from hypothesis.internal.conjecture import providers as hypothesis_providers
import numpy as np

# Every test process talks on its own domain, on this machine only, and in its own
# namespace, so another suite running at the same time is never heard. conftest.py imports
# this module, so this holds before any test starts, whether or not it imports a helper.
os.environ['ROS_DOMAIN_ID'] = str(1 + os.getpid() % 100)
NAMESPACE = f'/test_{os.getpid()}'
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'

# Hypothesis also draws the constants written in the source of every module imported so
# far that is not installed. Run from the source tree (PYTHONPATH=src) the fuzz tests'
# examples then depended on which modules the tests before, or a node's thread meanwhile,
# had imported (under colcon the package is installed: its own were not drawn). None here.
if hasattr(hypothesis_providers, '_get_local_constants'):  # Hypothesis >= 6.131
    hypothesis_providers._get_local_constants = hypothesis_providers.Constants


def fuzz_settings(max_examples):
    """Return the fuzz tests' Hypothesis settings: repeatable, bounded, nothing saved.

    No shrinking: every shrink step waits out a DDS timeout, so a failure would run for
    many minutes before it is reported; the failing example is reported as generated.
    """
    return settings(max_examples=max_examples, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck),
                    phases=(Phase.explicit, Phase.reuse, Phase.generate))


def run_fresh_python(code):
    """Run ``code`` in a fresh interpreter (nothing imported yet); return what it printed."""
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@contextlib.contextmanager
def child_python(code, *args):
    """Run ``code`` in a child interpreter that imports this suite's packages; yield it.

    Its output is piped as text; it is killed at the end if it still runs.
    """
    env = os.environ | {'PYTHONPATH': os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, '-c', code, *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()


def wait_for(predicate, timeout_s=10.0, period_s=0.01):
    """Poll ``predicate`` until it is true or ``timeout_s`` passes; return its last value."""
    deadline = time.monotonic() + timeout_s
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(period_s)
        value = predicate()
    return value


def publish_until(publish, predicate, timeout_s=20.0, every_s=0.5):
    """Publish, then again every ``every_s`` until ``predicate`` holds; return its last value.

    Slower than polling with a publish each time, but it never floods a busy node.
    """
    deadline = time.monotonic() + timeout_s
    value = False
    while not value and time.monotonic() < deadline:
        publish()
        value = wait_for(predicate, min(every_s, max(0.0, deadline - time.monotonic())))
    return value


class ScriptedHand:
    """Publishes tactile clouds, contacts, object odometry and finger joint states at 100 Hz.

    Each pad presses ``pad_force_n`` on the body ``touching`` names (the object unless
    told), as a simulator's ``contacts`` name it (body names on ``contacts/bodies``); its
    taxels also feel ``pad_shear_n`` along the pad's z axis, and where ``pad_slip_m_per_s``
    gives a pad a speed (not None), its clouds carry a slip channel sliding along z at it.
    """

    #: Body names by id, as mujoco_sim publishes them on contacts/bodies.
    BODIES = ('world', 'table', 'object', 'finger_left', 'finger_right')

    def __init__(self, node):
        from nav_msgs.msg import Odometry
        from sensor_msgs.msg import JointState, PointCloud2
        from std_msgs.msg import String

        from grasp_monitor.nodes import conversions
        from grasp_monitor.nodes.qos import LATCHED_QOS
        self.node = node
        self.pad_force_n = {'finger_left': 0.0, 'finger_right': 0.0}
        self.pad_shear_n = {'finger_left': 0.0, 'finger_right': 0.0}
        self.pad_slip_m_per_s = {'finger_left': None, 'finger_right': None}
        self.touching = {'finger_left': 'object', 'finger_right': 'object'}
        self.silent = False
        self.pads = {pad: node.create_publisher(
            PointCloud2, f'tactile/{pad}', 10) for pad in self.pad_force_n}
        self.contacts = node.create_publisher(PointCloud2, 'contacts', 10)
        self.names = node.create_publisher(String, 'contacts/bodies', LATCHED_QOS)
        self.names.publish(conversions.body_names_to_msg(self.BODIES))
        self.bodies = {body: node.create_publisher(Odometry, f'ground_truth/{body}', 10)
                       for body in ('object', 'finger_left', 'finger_right')}
        self.joints = node.create_publisher(JointState, 'joint_states', 10)
        node.create_timer(0.01, self.publish)

    def publish(self):
        from nav_msgs.msg import Odometry
        from sensor_msgs.msg import JointState

        from grasp_monitor.nodes import conversions
        from grasp_monitor.core.pad_contacts import PadContacts
        if self.silent:
            return
        now_s = self.node.get_clock().now().nanoseconds * 1e-9
        rows = []
        for pad, force in self.pad_force_n.items():
            # two taxels on the inner face, each carrying half the force, pad frame
            sign = 1.0 if pad == 'finger_left' else -1.0
            forces = np.array([[0.0, sign * force / 2, self.pad_shear_n[pad] / 2]] * 2)
            positions = np.array([[0.0, -sign * 0.005, 0.01], [0.0, -sign * 0.005, -0.01]])
            speed = self.pad_slip_m_per_s[pad]
            slip = None if speed is None else np.array([[0.0, 0.0, speed]] * 2)
            self.pads[pad].publish(
                conversions.tactile_cloud_to_msg(positions, forces, pad, now_s, slip))
            if force > 0.0:  # the same two contacts, world frame, the pad pushing inwards
                for z in (0.01, -0.01):
                    rows.append(([0.0, sign * 0.025, z], [0.0, -sign, 0.0],
                                 [0.0, -sign * force / 2, 0.0], self.BODIES.index(pad),
                                 self.BODIES.index(self.touching[pad])))
        points, normals, forces, pads, others = zip(*rows) if rows else ([], [], [], [], [])
        self.contacts.publish(conversions.pad_contacts_to_msg(PadContacts(
            np.reshape(points, (-1, 3)), np.reshape(normals, (-1, 3)),
            np.reshape(forces, (-1, 3)), pads, others, now_s)))
        for body, y in (('object', 0.0), ('finger_left', 0.03), ('finger_right', -0.03)):
            odometry = Odometry()
            odometry.header.stamp = conversions.time_to_msg(now_s)
            odometry.child_frame_id = body
            odometry.pose.pose.position.y = y
            odometry.pose.pose.orientation.w = 1.0
            self.bodies[body].publish(odometry)
        self.joints.publish(JointState(
            header=odometry.header, name=['finger_left', 'finger_right'],
            position=[0.0, 0.0], velocity=[0.0, 0.0], effort=[0.0, 0.0]))


class RosHarness:
    """An rclpy context with an executor spinning in a thread.

    One thread, as the nodes' own processes spin: rclpy's multi-threaded executor polls
    its pool's futures while a callback runs, and that busy loop holds the GIL long
    enough to starve the callbacks (and a simulator's runner thread) for seconds.
    """

    def __init__(self):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        self.rclpy = rclpy
        self.context = rclpy.Context()
        rclpy.init(context=self.context, args=['--ros-args', '-r', f'__ns:={NAMESPACE}'])
        self.executor = SingleThreadedExecutor(context=self.context)
        self.nodes = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self):
        # Spin until told to stop, then the executor is shut down from this thread's
        # caller: shutting it down under a spin races rclpy's own handlers.
        while not self._stop.is_set():
            self.executor.spin_once(timeout_sec=0.05)

    def add(self, node):
        """Spin ``node`` with the others; it is destroyed at teardown."""
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def client(self, name='test_client'):
        """Create a plain node in this context."""
        return self.add(self.rclpy.create_node(name, context=self.context))

    def call(self, client, request, timeout_s=10.0):
        """Call a service and wait for the response."""
        assert client.wait_for_service(timeout_sec=timeout_s), client.srv_name
        future = client.call_async(request)
        assert wait_for(future.done, timeout_s), f'{client.srv_name} did not answer'
        return future.result()

    def close(self):
        """Stop spinning and destroy everything."""
        self._stop.set()
        self.thread.join(timeout=5.0)
        self.executor.shutdown(timeout_sec=5.0)
        for node in self.nodes:
            node.destroy_node()
        self.rclpy.try_shutdown(context=self.context)


class Observer:
    """Collects ``/diagnostics`` and ``/rosout``: what a node reports and what it logs."""

    def __init__(self, ros):
        from diagnostic_msgs.msg import DiagnosticArray
        from rcl_interfaces.msg import Log
        self.node = ros.client('observer')
        self.diagnostics, self.logs = [], []
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self.diagnostics.append,
                                      100)
        self.node.create_subscription(Log, '/rosout', self.logs.append, 1000)

    def status(self, name_suffix, predicate=lambda status: True, timeout_s=10.0):
        """Wait for the latest status named ``*name_suffix`` that satisfies ``predicate``."""
        def find():
            for array in reversed(self.diagnostics):
                for status in array.status:
                    if status.name.endswith(name_suffix) and predicate(status):
                        return status
            return None
        return wait_for(find, timeout_s)

    def logged(self, node_name, text, timeout_s=10.0):
        """Wait for a /rosout line of ``node_name`` containing ``text``; return its text."""
        def find():
            return next((log.msg for log in self.logs
                         if log.name.split('.')[-1] == node_name and text in log.msg), None)
        return wait_for(find, timeout_s)


def status_values(status):
    """Return a DiagnosticStatus's values as a dict."""
    return {kv.key: kv.value for kv in status.values}


def start_monitor_and_metrics(ros, tmp_path, depth, contacts=None):
    """Start grasp_monitor (no simulator) and grasp_metrics with sensor queues ``depth`` deep.

    ``contacts``: their ``contacts`` parameter ('' reads the taxels, untared: the clouds
    are exact), default theirs.
    """
    from grasp_monitor.nodes.grasp_metrics import GraspMetricsNode
    from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
    from rclpy.parameter import Parameter
    overrides = [Parameter('qos.depth', value=depth)] + (
        [Parameter('contacts', value=contacts)] if contacts is not None else [])
    untared = [Parameter('tare_time', value=0.0)] if contacts == '' else []
    monitor = ros.add(GraspMonitorNode(context=ros.context, parameter_overrides=overrides + [
        *untared, Parameter('simulator', value=''),
        Parameter('event_log', value=str(tmp_path / 'events.jsonl'))]))
    return monitor, ros.add(GraspMetricsNode(context=ros.context,
                                             parameter_overrides=overrides))


def interrupt_all(processes, timeout_s=10.0):
    """SIGINT each process, as Ctrl-C does; return each exit code ('killed' past the timeout)."""
    for process in processes:
        process.send_signal(signal.SIGINT)
    codes = []
    for process in processes:
        try:
            codes.append(process.wait(timeout=timeout_s))
        except subprocess.TimeoutExpired:
            process.kill()
            codes.append('killed')
    return codes
