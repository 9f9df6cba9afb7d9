"""The floor under the graph: bare rclpy nodes passing the graph's messages at its rates.

``bench_graph.py --configs floor`` runs these in place of the project's nodes, so the
graph's figures read as a ratio to what rclpy itself costs for the same traffic:

- ``pub``: one process publishes what ``mujoco_sim`` (hosting ``tactile_sensor``)
  publishes: every tick /clock, ``joint_states``, ``ground_truth/<body>`` (3), /tf and
  ``contacts``, every k-th tick ``tactile/<pad>`` (2); once the latched ones. The
  messages are built once with the project's conversions from a real pick_lift state
  and only their stamps refilled; the loop is paced to real time with ``time.sleep``.
  A ``servo_commands/full`` is answered as the simulator does: the next
  ``joint_states`` carries each row's feedforward as its effort, so the probe's
  command → state latency means the same here.
- ``sub monitor|metrics``: one process subscribing to the topics ``grasp_monitor``
  (or ``grasp_metrics``) takes, with their QoS and ``use_sim_time``; callbacks do nothing.

Both spin the executor the nodes spin (``nodes.process.make_executor``).

    python benchmarks/graph_floor.py pub RATE TACTILE_RATE CLOCK_RATE [--ros-args ...]
    python benchmarks/graph_floor.py sub monitor|metrics [--ros-args ...]
"""

from __future__ import annotations

import sys
import threading
import time

SUBSCRIBED = {
    'monitor': ('contacts', 'ground_truth/object', 'joint_states'),
    'metrics': ('contacts', 'ground_truth/object', 'ground_truth/finger_left',
                'ground_truth/finger_right'),
}


def built_messages():
    """Return {topic: message} of a pick_lift tick and the latched ones, built as the nodes do."""
    from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
    from grasp_monitor.nodes import conversions
    from grasp_monitor.nodes.tactile_sensor_parameters import PARAMETERS, PER_PAD
    from grasp_monitor.sim.backend import Simulator
    from grasp_monitor.sim.scenes import build_scene
    from grasp_monitor.sim.sensors import pad_specs, SimTactileArrays
    sim = Simulator(build_scene('pick_lift', {}))
    sim.step(10)
    defaults = {s.name: s.default for s in PARAMETERS}
    arrays = SimTactileArrays(sim, pad_specs(
        defaults['pads'], defaults['bodies'], PAD_FRAME_TOUCH_FUNCTIONS,
        **{key: defaults[key] for key in PER_PAD}))
    reading = arrays.compute()
    messages = {
        '/clock': conversions.clock_to_msg(sim.time_s),
        'joint_states': conversions.joint_state_to_msg(sim.joint_states()),
        '/tf': conversions.tf_message(sim.frame_transforms()),
        'contacts': conversions.pad_contacts_to_msg(sim.pad_contacts()),
    }
    for body, msg in zip(sim.tracked_bodies,
                         conversions.odometry_from_body_arrays(sim.body_arrays())):
        messages[f'ground_truth/{body}'] = msg
    for pad, spec, values in zip(arrays.pads, arrays.specs, reading.values):
        messages[f'tactile/{spec.name}'] = conversions.tactile_cloud_to_msg(
            pad.positions_in_pad, values, spec.body, reading.time_s)
    latched = {
        'contacts/bodies': conversions.body_names_to_msg(sim.body_names()),
        '/tf_static': conversions.tf_message(sim.static_frame_transforms()),
    }
    return messages, latched


def publish(rate_hz: float, tactile_rate_hz: float, clock_rate_hz: float) -> None:
    """Publish the graph's streams until a signal, paced to real time."""
    from grasp_monitor.nodes import conversions
    from grasp_monitor.nodes.process import executor_kind, make_executor
    from grasp_monitor.nodes.qos import LATCHED_QOS, sensor_qos, TF_QOS, TF_STATIC_QOS
    import numpy as np
    import rclpy
    from rclpy.node import Node
    from std_msgs.msg import Float64MultiArray
    tactile_every = max(1, round(rate_hz / tactile_rate_hz))
    clock_every = max(1, round(rate_hz / clock_rate_hz)) if clock_rate_hz else 1
    messages, latched = built_messages()
    stop = _stop_on_signal()
    rclpy.init(args=sys.argv, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    node = Node('mujoco_sim')
    qos = sensor_qos(False, 10)
    special = {'/clock': 10, '/tf': TF_QOS}
    pubs = {topic: node.create_publisher(type(msg), topic, special.get(topic, qos))
            for topic, msg in messages.items()}
    for topic, msg in latched.items():
        node.create_publisher(type(msg), topic,
                              TF_STATIC_QOS if topic == '/tf_static' else LATCHED_QOS
                              ).publish(msg)
    joints = messages['joint_states']
    effort = list(joints.effort)

    def on_command(msg: Float64MultiArray) -> None:
        rows = np.asarray(msg.data).reshape(-1, 6)
        effort[:] = rows[:, 2].tolist()  # the feedforward, as pure feedforward applies it

    node.create_subscription(Float64MultiArray, 'servo_commands/full', on_command, qos)
    executor = make_executor(executor_kind(node))
    executor.add_node(node)

    def loop() -> None:
        tick = 0
        start = time.monotonic()
        while not stop.is_set():
            tick += 1
            stamp = conversions.time_to_msg(tick / rate_hz)
            for topic, msg in messages.items():
                if topic == '/clock':
                    if tick % clock_every:
                        continue
                    msg.clock = stamp
                    pubs[topic].publish(msg)
                    continue
                if topic.startswith('tactile/') and tick % tactile_every:
                    continue
                if topic == '/tf':
                    for transform in msg.transforms:
                        transform.header.stamp = stamp
                else:
                    msg.header.stamp = stamp
                if topic == 'joint_states':
                    msg.effort = effort
                pubs[topic].publish(msg)
            delay = start + tick / rate_hz - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    while not stop.is_set():
        executor.spin_once(timeout_sec=0.1)
    thread.join(timeout=5.0)
    node.destroy_node()
    rclpy.try_shutdown()


def subscribe(role: str) -> None:
    """Take the topics ``role`` takes, doing nothing with them, until a signal."""
    from grasp_monitor.nodes.process import executor_kind, make_executor
    from grasp_monitor.nodes.qos import LATCHED_QOS, sensor_qos
    from nav_msgs.msg import Odometry
    import rclpy
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState, PointCloud2
    from std_msgs.msg import String
    types = {'contacts': PointCloud2, 'joint_states': JointState}
    stop = _stop_on_signal()
    rclpy.init(args=sys.argv, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    node = Node(f'floor_{role}', parameter_overrides=[Parameter('use_sim_time', value=True)])
    qos = sensor_qos(False, 10)
    for topic in SUBSCRIBED[role]:
        node.create_subscription(types.get(topic, Odometry), topic, lambda m: None, qos)
    node.create_subscription(String, 'contacts/bodies', lambda m: None, LATCHED_QOS)
    executor = make_executor(executor_kind(node))
    executor.add_node(node)
    while not stop.is_set():
        executor.spin_once(timeout_sec=0.1)
    node.destroy_node()
    rclpy.try_shutdown()


def _stop_on_signal() -> threading.Event:
    """Return an event set by SIGINT or SIGTERM."""
    import signal
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    return stop


if __name__ == '__main__':
    if sys.argv[1] == 'pub':
        publish(*(float(x) for x in sys.argv[2:5]))
    else:
        subscribe(sys.argv[2])
