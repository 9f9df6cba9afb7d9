"""The ``grasp_controller`` node: drives pick_lift through approach, close, lift and hold."""

from __future__ import annotations

import sys

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.command_hold import CommandHold
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.core.settings import Setting
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.interfaces import diagnostics, publishes, service
from grasp_monitor.nodes.params import COMMON, declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import sensor_qos, SERVICE_QOS
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import SimRunner
from rclpy.node import Node
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

PARAMETERS = COMMON + (
    Setting('rate', 100.0, 'Command rate, Hz.', 1.0, 1000.0, read_only=True),
    Setting('autostart', True, 'Start the script as soon as the node is up.',
            read_only=True),
    Setting('grip_force', 10.0, 'Closing force of each finger, N (0 = never close).',
            0.0, 20.0, read_only=True),
    Setting('approach_height', 0.1, 'Start height above the grasp, m.', 0.0, 0.5,
            read_only=True),
    Setting('lift_height', 0.2, 'How far to lift, m.', 0.0, 0.5, read_only=True),
    Setting('approach_duration', 1.0, 'Approach phase, s.', 0.01, 60.0, read_only=True),
    Setting('close_duration', 1.0, 'Close phase, s.', 0.01, 60.0, read_only=True),
    Setting('close_ramp', 0.5, 'Time for the grip force to rise from 0 at the start of the '
            'close, s (at most close_duration).', 0.0, 60.0, read_only=True),
    Setting('lift_duration', 1.5, 'Lift phase, s.', 0.01, 60.0, read_only=True),
    Setting('close_speed', 0.0, 'Close at this finger speed (a moving position target, the '
            'grip force its cap), m/s; 0 = under the grip force.', 0.0, 1.0, read_only=True),
    Setting('hosted', False, "In the simulator's process, commanding its ticks directly "
            '(set by the simulator with its `controller` parameter; no servo_commands).',
            read_only=True),
)

INTERFACES = (
    publishes('servo_commands/full', 'std_msgs/msg/Float64MultiArray', 'sensor',
              'approach, close, lift, hold, at `rate`', when='!hosted'),
    diagnostics('script phase'),
    service('~/start', 'std_srvs/srv/Trigger', 'restart the script from the approach'),
)


class GraspControllerNode(Node):
    """Send the scripted pick of ``PickLiftScript`` as full servo commands.

    Parameters: rate, autostart, grip_force, approach_height, lift_height,
    approach_duration, close_duration, close_ramp, lift_duration, close_speed, qos.*.
    Publishes: ``servo_commands/full`` (Float64MultiArray), ``/diagnostics`` (phase, 1 Hz
    and at each phase change).
    Services: ``~/start`` (Trigger): restart the script from the approach.
    Time is the node clock, so with ``use_sim_time`` the script follows ``/clock``.

    Hosted in the simulator's process (keyword ``runner``, the simulator's ``controller``
    parameter), it is in lockstep with the physics: before the tick at each ``k / rate``
    of simulated time it sets that tick's command on the simulator itself, so machine
    load cannot delay a command; it then publishes no commands (the simulator would
    apply them a second time, late).
    """

    def __init__(self, *, runner: SimRunner | None = None, **kwargs) -> None:
        super().__init__('grasp_controller', **kwargs)
        p = declare(self, PARAMETERS)
        if p['hosted'] != (runner is not None):
            raise ConfigError(f"hosted is {p['hosted']}, but the node runs "
                              f"{'in' if runner is not None else 'outside'} the simulator's "
                              "process: the simulator's `controller` parameter sets it")
        self.script = PickLiftScript(
            approach_height_m=p['approach_height'], lift_height_m=p['lift_height'],
            grip_force_n=p['grip_force'], approach_s=p['approach_duration'],
            close_s=p['close_duration'], close_ramp_s=p['close_ramp'],
            close_speed_m_per_s=p['close_speed'],
            lift_s=p['lift_duration'])
        self.start_s: float | None = None
        self._published_phase = ''
        self.runner = runner
        self.period_s = 1.0 / p['rate']
        self.hold = CommandHold(self.script.command, p['rate'])
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_service(Trigger, '~/start', self._on_start, qos_profile=SERVICE_QOS)
        if runner is None:
            self.command_pub = self.create_publisher(
                Float64MultiArray, 'servo_commands/full',
                sensor_qos(p['qos.best_effort'], p['qos.depth']))
            self.create_timer(self.period_s, self._send)
        else:
            runner.add_control_callback(self._control)
        diagnostics_timer(self, self._publish_diagnostics)
        if p['autostart']:
            self._start()

    def _now_s(self) -> float:
        if self.runner is not None:
            return self.runner.sim.time_s
        return self.get_clock().now().nanoseconds * 1e-9

    def _start(self) -> None:
        self.start_s = self._now_s()
        self.hold.restart(self.start_s)

    def _on_start(self, request: Trigger.Request, response: Trigger.Response):
        self._start()
        response.success, response.message = True, 'approach'
        return response

    @property
    def phase(self) -> str:
        """The script's phase now ('idle' before a start)."""
        if self.start_s is None:
            return 'idle'
        return self.script.phase(self._now_s() - self.start_s)

    def _send(self) -> None:
        if self.start_s is None:
            return
        now_s = self._now_s()
        if now_s < self.start_s:  # time went back: the simulation was reset
            self.start_s = now_s
        command = self.script.command(now_s - self.start_s)
        self.command_pub.publish(conversions.servo_command_to_multiarray(command))
        if self.phase != self._published_phase:  # a phase change is news now, not within 1 s
            self._publish_diagnostics()

    def _control(self, sim: Simulator) -> None:
        """Set the command due at this tick: at the first tick at or after each ``k / rate``."""
        if self.start_s is None:
            return
        command = self.hold.due(sim.time_s)
        self.start_s = self.hold.start_s  # earlier after a reset
        if command is not None:
            sim.set_command(command)
            if self.phase != self._published_phase:
                self._publish_diagnostics()

    def destroy_node(self) -> None:
        """Leave the simulator's ticks before the node goes."""
        if self.runner is not None:
            self.runner.remove_tick_callback(self._control)
        super().destroy_node()

    def _publish_diagnostics(self) -> None:
        self._published_phase = self.phase
        msg = DiagnosticArray()
        # hosted: the simulator's time, as every stamp the graph gives
        msg.header.stamp = conversions.time_to_msg(self._now_s())
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: script', 'OK', self.phase,
            {'phase': self.phase, 'grip_force_n': self.script.grip_force_n})]
        self.diag_pub.publish(msg)


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(GraspControllerNode, args)


if __name__ == '__main__':
    sys.exit(main())
