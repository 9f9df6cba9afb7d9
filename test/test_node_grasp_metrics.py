"""The grasp_metrics node over real rclpy: energy during a trial, criteria and reward after it."""

import math
import time

from common import NAMESPACE, ScriptedHand, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.core.quality import EpsilonConfig, grasp_quality
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.grasp_metrics import GraspMetricsNode
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.qos import EVENTS_QOS
import numpy as np
import pytest
from rclpy.parameter import Parameter
from std_srvs.srv import Trigger


def test_energy_then_criteria_and_reward_on_diagnostics(ros, tmp_path):
    ros.add(GraspMonitorNode(context=ros.context, parameter_overrides=[
        Parameter('simulator', value=''), Parameter('event_log', value=str(tmp_path / 'e')),
        Parameter('max_sample_age', value=0.5)]))
    ros.add(GraspMetricsNode(context=ros.context))
    client = ros.client()
    hand = ScriptedHand(client)
    energy, reward, diagnostics, events, epsilon = [], [], [], [], []
    client.create_subscription(DiagnosticStatus, 'grasp_monitor/events', events.append,
                               EVENTS_QOS)
    client.create_subscription(Vector3Stamped, 'grasp_metrics/energy', energy.append, 100)
    client.create_subscription(Vector3Stamped, 'grasp_metrics/reward', reward.append, 10)
    client.create_subscription(Vector3Stamped, 'grasp_metrics/epsilon', epsilon.append, 100)
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    start = client.create_client(Trigger, 'grasp_monitor/start')
    stop = client.create_client(Trigger, 'grasp_monitor/stop')
    hand.pad_force_n.update(finger_left=1.0, finger_right=1.0)
    time.sleep(0.5)  # the touching hand's readings are in
    started_s = client.get_clock().now().nanoseconds * 1e-9
    ros.call(start, Trigger.Request())
    assert wait_for(lambda: len(energy) > 20)
    # the criteria at k need the grasp in the trial: stop only once it has fired
    assert wait_for(lambda: 'grasp' in [e.name for e in events])
    # everything still: no energy is needed to return the object to its start pose
    values, stamps = zip(*map(conversions.stamped_value_from_msg, energy))
    assert max(abs(v) for v in values) < 1e-9
    # each energy is stamped with its sample's time: the hand's stamps, on the 100 Hz grid
    assert all(b > a for a, b in zip(stamps, stamps[1:]))
    assert started_s - 1.0 < stamps[0]
    assert stamps[-1] <= client.get_clock().now().nanoseconds * 1e-9
    assert all((e.header.stamp.nanosec + 1000) % 10_000_000 <= 2000 for e in energy)
    time.sleep(0.5)
    ros.call(stop, Trigger.Request())
    assert wait_for(lambda: reward, timeout_s=5.0)
    # the reward is stamped when it is known: after the trial's last energy sample
    total, reward_s = conversions.stamped_value_from_msg(reward[-1])
    assert reward_s >= conversions.stamped_value_from_msg(energy[-1])[1]

    def criteria():
        for array in diagnostics:
            for status in array.status:
                if status.name == f'{NAMESPACE}/grasp_metrics: criteria':
                    return {kv.key: kv.value for kv in status.values}
        return None

    values = wait_for(criteria, timeout_s=5.0)
    assert values is not None
    # equal and opposite pad forces: net force 0, reward 1; both pads in contact at the grasp
    assert float(values['force']) == 1.0 and float(values['instant_contacting_link']) == 1.0
    assert float(values['total']) == total  # in full: replays compare to 1e-6
    assert values['trial'] == '1'
    assert values['basis'] == 'contacts'  # the pads' contacts with the object, not taxels
    assert wait_for(lambda: any(s.name == f'{NAMESPACE}/grasp_metrics: energy'
                                and s.level == DiagnosticStatus.OK
                                for array in diagnostics for s in array.status))
    # the grasp quality of every sample: the hand's four contacts (two per pad, 2 cm
    # apart, 5 cm across) about the object's centre, stamped on the same grid
    points = [[0.0, y, z] for y in (0.025, -0.025) for z in (0.01, -0.01)]
    normals = [[0.0, -1.0, 0.0]] * 2 + [[0.0, 1.0, 0.0]] * 2
    expected = grasp_quality(points, normals, np.zeros(3), EpsilonConfig())
    assert expected.l1 > 0 and expected.linf > expected.l1
    held = [e for e in epsilon if e.vector.z == 4.0]
    assert held and all(e.header.stamp.nanosec % 10_000_000 <= 2000 or
                        e.header.stamp.nanosec % 10_000_000 >= 10_000_000 - 2000
                        for e in held)
    assert held[-1].vector.x == pytest.approx(expected.l1, rel=1e-9)
    assert math.isnan(held[-1].vector.y)  # L∞: not the configured variant

    def quality():
        for array in reversed(diagnostics):
            for status in array.status:
                if status.name == f'{NAMESPACE}/grasp_metrics: grasp quality' and \
                        status.values:
                    return {kv.key: kv.value for kv in status.values}
        return None

    status = wait_for(quality, timeout_s=5.0)
    assert status['variant'] == 'l1' and status['contacts'] == '4'
    assert float(status['epsilon']) == pytest.approx(expected.l1, rel=1e-9)
