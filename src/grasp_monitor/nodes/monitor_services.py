"""The ``grasp_monitor`` node's trial services: start, stop, tare, and each event's enable."""

from __future__ import annotations

import json
from typing import Callable

from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.monitor import GraspMonitor, MonitorInputs
from grasp_monitor.nodes.monitor_output import MonitorOutput
from grasp_monitor.nodes.monitor_verdicts import MonitorVerdicts
from grasp_monitor.nodes.qos import SERVICE_QOS
from rclpy.node import Node
from std_srvs.srv import SetBool, Trigger


class TrialServices:
    """Offer ``grasp_monitor/start``, ``stop``, ``tare`` and ``<event>/enable`` (``INTERFACES``).

    A start tares the pads and opens a trial (message: its id); a stop ends it (message:
    the JSON summary of its events) and the simulator's force test.
    """

    def __init__(self, node: Node, monitor: GraspMonitor, inputs: MonitorInputs,
                 output: MonitorOutput, verdicts: MonitorVerdicts,
                 waiting_for: Callable[[], str], group) -> None:
        self.node, self.monitor, self.inputs = node, monitor, inputs
        self.output, self.verdicts, self.waiting_for = output, verdicts, waiting_for
        for name, callback in (('start', self._on_start), ('stop', self._on_stop),
                               ('tare', self._on_tare)):
            node.create_service(Trigger, f'grasp_monitor/{name}', callback,
                                callback_group=group, qos_profile=SERVICE_QOS)
        for name in monitor.events.names:
            node.create_service(SetBool, f'grasp_monitor/{name}/enable',
                                lambda q, r, name=name: self._on_enable(name, q, r),
                                callback_group=group, qos_profile=SERVICE_QOS)

    def _on_tare(self, request: Trigger.Request, response: Trigger.Response):
        self.inputs.tare()
        response.success = True
        response.message = f'taring over the next {self.inputs.config.tare_time} s of readings'
        return response

    def _on_start(self, request: Trigger.Request, response: Trigger.Response):
        self.output.records = []
        self.output.emit(self.monitor.start_trial())
        self.inputs.tare()  # each trial from the pads' zero as they are now
        response.success, response.message = True, str(self.monitor.trial_id)
        if self.inputs.missing():
            self.node.get_logger().info(f'trial {response.message} opens at the first sample; '
                                        f'no input yet from {self.waiting_for()}')
        return response

    def _on_stop(self, request: Trigger.Request, response: Trigger.Response):
        self.output.emit(self.monitor.stop_trial('stop service'))
        self.verdicts.stop_force()
        response.success = True
        response.message = json.dumps({'events': self.output.records})
        return response

    def _on_enable(self, name: str, request: SetBool.Request, response: SetBool.Response):
        try:
            self.monitor.set_enabled(name, request.data)
            response.success, response.message = True, f'{name} enabled: {request.data}'
        except GraspMonitorError as error:
            response.success, response.message = False, str(error)
        return response
