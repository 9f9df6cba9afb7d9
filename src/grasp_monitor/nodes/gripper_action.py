"""The ``gripper_action`` node: control_msgs's GripperCommand action, judged by the monitor."""

from __future__ import annotations

import sys

from control_msgs.action import GripperCommand, ParallelGripperCommand
from diagnostic_msgs.msg import DiagnosticStatus
from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.servo.gripper_goal import GripperGoal
from grasp_monitor.nodes.conversions.gripper import (
    action_state, finger_command_to_msg, finger_states_from_msg, goal_from_request)
from grasp_monitor.nodes.gripper_action_parameters import gripper_limits, PARAMETERS
from grasp_monitor.nodes.interfaces import action, calls, publishes, subscribes
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import EVENTS_QOS, sensor_qos
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.node import Node
from rclpy.task import Future
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

INTERFACES = (
    publishes('servo_commands', 'sensor_msgs/msg/JointState', 'sensor',
              "the fingers' position (m) and speed (m/s) targets, at `rate` from a goal on"),
    subscribes('joint_states', 'sensor_msgs/msg/JointState', 'sensor',
               "the fingers' positions (m) and efforts (N)"),
    subscribes('<monitor>/events', 'diagnostic_msgs/msg/DiagnosticStatus', 'events',
               "the monitor's events: its grasp ends a closing goal stalled"),
    calls('<monitor>/start', 'std_srvs/srv/Trigger', 'closing starts a trial', when='trials'),
    calls('<monitor>/stop', 'std_srvs/srv/Trigger', 'opening ends it', when='trials'),
    action('~/gripper_cmd', 'control_msgs/action/GripperCommand', 'goal: every finger to '
           '`position` (m) pushing at most `max_effort` (N); result: stalled at the '
           "monitor's grasp, reached_goal at the target"),
    action('~/parallel_gripper_cmd', 'control_msgs/action/ParallelGripperCommand', 'the '
           'same, the fingers named: one position (m), effort (N) and velocity (m/s) optional'),
)


class GripperActionNode(Node):
    """The gripper actions on the finger servos, each result the monitor's verdict.

    ``gripper_action_parameters.PARAMETERS``, ``INTERFACES``; docs/gripper_action.md.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('gripper_action', **kwargs)
        p = declare(self, PARAMETERS)
        self.limits = gripper_limits(p)
        self.joints = tuple(p['joints'])
        self.fingers = None  # (positions m, efforts N) of the latest joint_states
        self.drive: GripperGoal | None = None  # what the fingers follow, after a goal too
        self.active = None  # (goal handle, goal, future of its outcome, action type)
        self.grasped = False  # the monitor fired grasp since the running goal started
        qos = sensor_qos(p['qos.best_effort'], p['qos.depth'])
        self.command_pub = self.create_publisher(JointState, 'servo_commands', qos)
        self.create_subscription(JointState, 'joint_states', self._on_joints, qos)
        self.create_subscription(DiagnosticStatus, f'{p["monitor"]}/events', self._on_event,
                                 EVENTS_QOS)
        self.trials = {name: self.create_client(Trigger, f'{p["monitor"]}/{name}')
                       for name in ('start', 'stop')} if p['trials'] else {}
        self.servers = [ActionServer(
            self, action_type, name, execute_callback=self._execute,
            goal_callback=self._on_goal, handle_accepted_callback=self._on_accepted,
            cancel_callback=lambda handle: CancelResponse.ACCEPT)
            for action_type, name in ((GripperCommand, '~/gripper_cmd'),
                                      (ParallelGripperCommand, '~/parallel_gripper_cmd'))]
        self.create_timer(1.0 / p['rate'], self._tick)

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def destroy_node(self) -> None:
        """Destroy the action servers first: each holds the node's handle alive."""
        for server in self.servers:
            server.destroy()
        super().destroy_node()

    def _on_joints(self, msg: JointState) -> None:
        try:
            self.fingers = finger_states_from_msg(msg, self.joints) or self.fingers
        except CommandError as error:
            self.get_logger().warning(f'ignored joint_states: {error}', throttle_duration_sec=1.0)

    def _on_event(self, msg: DiagnosticStatus) -> None:
        if msg.name == 'grasp':
            self.grasped = True
            if self.active is not None and self.active[1].closing:  # now, not at a tick
                self._finish('stalled')

    def _goal(self, request) -> GripperGoal:
        if self.fingers is None:
            raise CommandError(f'no joint_states of {", ".join(self.joints)} yet', 'stale')
        position, effort, speed = goal_from_request(request, self.joints)
        return self.limits.goal(position, effort, self._now_s(), self.fingers[0], speed)

    def _on_goal(self, request) -> GoalResponse:
        try:
            self._goal(request)
        except CommandError as error:
            self.get_logger().warning(f'rejected gripper goal: {error}')
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _on_accepted(self, handle) -> None:
        if self.active is not None:  # preempted, as ros2_controllers' gripper controller
            self._finish('preempted')
        handle.execute()

    async def _execute(self, handle):
        goal = self._goal(handle.request)
        action_type = (ParallelGripperCommand if isinstance(
            handle.request, ParallelGripperCommand.Goal) else GripperCommand)
        future = Future()
        self.active = (handle, goal, future, action_type)
        self.drive, self.grasped = goal, False
        if self.trials and (goal.closing or goal.opening):  # a pick's trial, its release
            self.trials['start' if goal.closing else 'stop'].call_async(Trigger.Request())
        outcome = await future
        {'stalled': handle.succeed, 'reached': handle.succeed,
         'canceled': handle.canceled}.get(outcome, handle.abort)()
        if outcome in ('timeout', 'preempted'):
            self.get_logger().warning(f'gripper goal to {goal.target_m:g} m aborted: {outcome}')
        return action_state(action_type.Result(), action_type is ParallelGripperCommand,
                            self.joints, self.fingers, outcome == 'stalled', outcome == 'reached')

    def _finish(self, outcome: str) -> None:
        future, self.active = self.active[2], None
        future.set_result(outcome)

    def _tick(self) -> None:
        if self.drive is None or self.fingers is None:
            return
        now_s, positions = self._now_s(), self.fingers[0]
        self.command_pub.publish(finger_command_to_msg(
            self.joints, *self.drive.setpoint(now_s, positions)))
        if self.active is None:
            return
        handle, goal, _, action_type = self.active
        if handle.is_cancel_requested:  # hold where they are, pushing no harder
            self.drive = self.limits.hold(goal.effort_n, now_s, positions)
            self._finish('canceled')
            return
        outcome = goal.outcome(now_s, positions, self.grasped)
        if outcome is not None:
            self._finish(outcome)
        else:
            handle.publish_feedback(action_state(
                action_type.Feedback(), action_type is ParallelGripperCommand, self.joints,
                self.fingers))


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(GripperActionNode, args)


if __name__ == '__main__':
    sys.exit(main())
