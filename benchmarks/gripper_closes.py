"""Many GripperCommand closes on pick_lift, as MoveIt sends them: outcomes and result latency.

Starts mujoco_sim (with the `typical` joint realism, so joint_states carry encoder
quantisation and velocity noise, and Gaussian motor noise that makes blocked fingers
jitter), grasp_monitor and gripper_action as processes, lowers the lift to the object,
then closes and opens ``--closes`` times; with ``--nothing`` the lift stays above the
object, so there is nothing to close on. Prints how the closes ended (stalled, reached,
aborted or no answer) and, for stalled ones, the latency of the result after the monitor's
grasp in simulated time (the result's arrival on /clock minus the grasp event's stamp) and
in wall time (result arrival minus grasp event arrival).

    python benchmarks/gripper_closes.py [--closes 100] [--motor-noise 0.5] [--nothing]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

os.environ['ROS_DOMAIN_ID'] = str(101 + os.getpid() % 100)
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
NAMESPACE = f'/gripper_bench_{os.getpid()}'


def main() -> int:
    """Run the closes; print a Markdown summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--closes', type=int, default=100)
    parser.add_argument('--motor-noise', type=float, default=0.5,
                        help='standard deviation of the servos torque noise, N')
    parser.add_argument('--preset', default='typical', help="joint_states' realism preset")
    parser.add_argument('--nothing', action='store_true', help='close on nothing')
    parser.add_argument('--log', default=os.devnull, help="the nodes' output")
    args = parser.parse_args()

    import rclpy
    from rclpy.action import ActionClient
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from action_msgs.msg import GoalStatus
    from control_msgs.action import GripperCommand
    from diagnostic_msgs.msg import DiagnosticStatus
    from grasp_monitor.nodes import node_command
    from grasp_monitor.nodes.qos import EVENTS_QOS
    from sensor_msgs.msg import JointState

    sim = {'real_time_factor': 1.0, 'publish_rate': 500.0, 'command_timeout': 0.0,
           'force_test.amplitude_per_kg': 0.0, 'force_test.offset': 0.0,
           'realism.preset': args.preset, 'motor_noise_type': 'gaussian',
           'motor_noise_range': args.motor_noise}
    log = open(args.log, 'w')
    processes = [subprocess.Popen(node_command(name, params, namespace=NAMESPACE),
                                  stdout=log, stderr=subprocess.STDOUT)
                 for name, params in (('mujoco_sim', sim),
                                      ('grasp_monitor', {'use_sim_time': 'true',
                                                         'max_sample_age': 0.5,
                                                         'event_log': os.devnull}),
                                      ('gripper_action', {'use_sim_time': 'true'}))]
    rclpy.init(args=['--ros-args', '-r', f'__ns:={NAMESPACE}'])
    node = rclpy.create_node('moveit', parameter_overrides=[
        Parameter('use_sim_time', value=True)])
    executor = SingleThreadedExecutor()
    executor.add_node(node)

    def spin():
        try:
            executor.spin()
        except ExternalShutdownException:
            pass
    threading.Thread(target=spin, daemon=True).start()
    seen = {'grasp': None, 'lift': None}

    def on_event(msg):
        if msg.name == 'grasp':
            stamp = {kv.key: kv.value for kv in msg.values}.get('time_s')
            seen['grasp'] = (float(stamp), time.monotonic())

    def on_state(msg):
        seen['lift'] = msg.position[msg.name.index('lift')]

    node.create_subscription(DiagnosticStatus, 'grasp_monitor/events', on_event, EVENTS_QOS)
    node.create_subscription(JointState, 'joint_states', on_state, 10)
    lift = node.create_publisher(JointState, 'servo_commands', 10)
    client = ActionClient(node, GripperCommand, 'gripper_action/gripper_cmd')

    def wait(predicate, timeout_s):
        deadline = time.monotonic() + timeout_s
        while not predicate() and time.monotonic() < deadline:
            time.sleep(0.005)
        return predicate()

    def goal(position_m, effort_n):
        message = GripperCommand.Goal()
        message.command.position, message.command.max_effort = position_m, effort_n
        sent = client.send_goal_async(message)
        if not wait(sent.done, 30.0):
            return 'no answer', None
        if not sent.result().accepted:
            return 'rejected', None
        finished = sent.result().get_result_async()
        if not wait(finished.done, 30.0):
            return 'no result', None
        now = (node.get_clock().now().nanoseconds * 1e-9, time.monotonic())
        return finished.result(), now

    outcomes = {'stalled': 0, 'reached': 0, 'aborted': 0, 'rejected': 0, 'no result': 0,
                'no answer': 0}
    sim_ms, wall_ms = [], []
    try:
        if not client.wait_for_server(timeout_sec=60.0):
            print('gripper_action never came up', file=sys.stderr)
            return 1
        # until the gripper has heard joint_states it rejects goals: hold open until accepted
        if not wait(lambda: goal(0.0, 0.0)[0] != 'rejected' or time.sleep(0.5), 30.0):
            print('gripper_action rejected every goal', file=sys.stderr)
            return 1
        height = 0.1 if args.nothing else 0.0
        command = JointState(name=['lift'], position=[height], velocity=[0.0], effort=[9.0])
        if not wait(lambda: lift.publish(command) or (
                seen['lift'] is not None and abs(seen['lift'] - height) < 0.002), 30.0):
            print('the lift never reached the grasp height', file=sys.stderr)
            return 1
        for _ in range(args.closes):
            seen['grasp'] = None
            result, at = goal(0.054 if not args.nothing else 0.045, 10.0)
            if isinstance(result, str):
                outcomes[result] += 1
            elif result.status != GoalStatus.STATUS_SUCCEEDED:
                outcomes['aborted'] += 1
            elif result.result.stalled:
                outcomes['stalled'] += 1
                if seen['grasp'] is not None:
                    sim_ms.append(1e3 * (at[0] - seen['grasp'][0]))
                    wall_ms.append(1e3 * (at[1] - seen['grasp'][1]))
            else:
                outcomes['reached'] += 1
            goal(0.0, 10.0)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
        for process in processes:
            process.send_signal(signal.SIGINT)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

    what = 'nothing' if args.nothing else 'the object'
    print(f'{args.closes} closes on {what}, joint realism `{args.preset}`, motor noise '
          f'{args.motor_noise:g} N: ' + ', '.join(f'{n} {k}' for k, n in outcomes.items()))
    if sim_ms:
        print(f'result after the grasp event: simulated median {statistics.median(sim_ms):.1f} '
              f'ms, max {max(sim_ms):.1f} ms; wall median {statistics.median(wall_ms):.1f} '
              f'ms, max {max(wall_ms):.1f} ms')
    return 0


if __name__ == '__main__':
    sys.exit(main())
