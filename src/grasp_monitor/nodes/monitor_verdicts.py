"""What the ``grasp_monitor`` node asks of its simulator: a verdict per sample, the force test."""

from __future__ import annotations

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.monitor import Command
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.qos import VERDICTS_QOS
from rclpy.node import Node
from std_srvs.srv import Trigger


class MonitorVerdicts:
    """Publish each sample's verdict; call the simulator's external force start and stop.

    Without a simulator (``simulator`` "", as on hardware) every verdict is CONTINUE and
    no service is called.
    """

    def __init__(self, node: Node, simulator: str, period_s: float) -> None:
        self.node, self.period_s = node, period_s
        self.pub = node.create_publisher(DiagnosticArray, 'grasp_monitor/verdicts',
                                         VERDICTS_QOS)
        self.force_clients = {
            start: node.create_client(Trigger, f'{simulator}/external_force/{start}')
            for start in ('start', 'stop')} if simulator else {}

    def send(self, time_s: float, stale: bool, command: Command) -> None:
        """Publish the verdict on the sample of ``time_s``; start or stop the force test."""
        asked = command if self.force_clients else Command.CONTINUE
        self.pub.publish(conversions.verdict_to_msg(
            time_s, asked.value, time_s + self.period_s, stale, self.node.get_name()))
        if command is Command.ACTIVATE and 'start' in self.force_clients:
            self.force_clients['start'].call_async(Trigger.Request())
        elif command is Command.STOP:
            self.stop_force()

    def stop_force(self) -> None:
        """Ask the simulator to stop the external force test (none: nothing)."""
        if 'stop' in self.force_clients:
            self.force_clients['stop'].call_async(Trigger.Request())
