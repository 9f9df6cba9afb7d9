"""The ``grasp_controller`` node: drives pick_lift through approach, close, lift and hold."""

from __future__ import annotations

import sys

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.command_hold import CommandHold
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.grasp_controller_parameters import node_settings, PARAMETERS
from grasp_monitor.nodes.interfaces import diagnostics, publishes, service
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import SERVICE_QOS
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import SimRunner
from rclpy.node import Node
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

INTERFACES = (
    publishes('servo_commands/full', 'std_msgs/msg/Float64MultiArray', 'sensor',
              'approach, close, lift, hold, at `rate`', when='!hosted'),
    diagnostics('script phase'),
    service('~/start', 'std_srvs/srv/Trigger', 'restart the script from the approach'),
)


class GraspControllerNode(Node):
    """Send the scripted pick of ``PickLiftScript`` as full servo commands.

    Parameters: ``grasp_controller_parameters.PARAMETERS``; topics and services:
    ``INTERFACES`` (diagnostics also at each phase change). Time is the node clock, so
    with ``use_sim_time`` the script follows ``/clock``.

    Hosted in the simulator's process (keyword ``runner``, the simulator's ``controller``
    parameter), it is in lockstep with the physics: before the tick at each ``k / rate``
    of simulated time it sets that tick's command on the simulator itself, so machine
    load cannot delay a command; it then publishes no commands (the simulator would
    apply them a second time, late).
    """

    def __init__(self, *, runner: SimRunner | None = None, **kwargs) -> None:
        super().__init__('grasp_controller', **kwargs)
        settings = node_settings(declare(self, PARAMETERS))
        if settings.hosted != (runner is not None):
            raise ConfigError(f'hosted is {settings.hosted}, but the node runs '
                              f"{'in' if runner is not None else 'outside'} the simulator's "
                              "process: the simulator's `controller` parameter sets it")
        self.script = settings.script
        self.start_s: float | None = None
        self._published_phase = ''
        self.runner = runner
        self.period_s = 1.0 / settings.rate_hz
        self.hold = CommandHold(self.script.command, settings.rate_hz)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_service(Trigger, '~/start', self._on_start, qos_profile=SERVICE_QOS)
        if runner is None:
            self.command_pub = self.create_publisher(
                Float64MultiArray, 'servo_commands/full', settings.qos)
            self.create_timer(self.period_s, self._send)
        else:
            runner.add_control_callback(self._control)
        diagnostics_timer(self, self._publish_diagnostics)
        if settings.autostart:
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
