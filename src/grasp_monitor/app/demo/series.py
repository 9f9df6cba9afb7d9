"""The summary figure's time series, read back from the recording."""

from __future__ import annotations

from pathlib import Path

from geometry_msgs.msg import Vector3Stamped
from grasp_monitor.app.demo.pad_forces import pad_inputs, read_pad
from grasp_monitor.app.demo.plan import GraphPlan
from grasp_monitor.app.demo.report import Series
from grasp_monitor.nodes.conversions import stamped_value_from_msg, time_from_msg
from grasp_monitor.recording import read_messages
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState, PointCloud2


#: pick_lift's lift axis, drawn beside the fingers.
LIFT_JOINT = 'lift'


def series_from_recording(path: Path, plan: GraphPlan) -> Series:
    """Read the figure's time series back from the recording: every sample, as recorded.

    Every series is on simulated time: joint and tactile samples, the energy and the
    grasp quality carry their stamps.

    Raises:
        ConfigError: the recording does not read back.
    """
    series = Series()
    inputs = pad_inputs(plan)
    pads = {f'/tactile/{pad}': pad for pad in plan.pads}
    topics = ['/joint_states', '/grasp_metrics/energy', '/grasp_metrics/epsilon', *pads]
    for message in read_messages(path, topics):
        if message.topic == '/grasp_metrics/epsilon':
            msg = deserialize_message(message.data, Vector3Stamped)
            series.epsilon.append((time_from_msg(msg.header.stamp), msg.vector.x,
                                   msg.vector.y, msg.vector.z))
        elif message.topic == '/grasp_metrics/energy':
            energy_j, stamp_s = stamped_value_from_msg(
                deserialize_message(message.data, Vector3Stamped))
            series.energy.append((stamp_s, energy_j))
        elif message.topic == '/joint_states':
            msg = deserialize_message(message.data, JointState)
            stamp_s = time_from_msg(msg.header.stamp)
            for name, position in zip(msg.name, msg.position):
                if name in plan.finger_joints:
                    series.joints.setdefault(name, []).append((stamp_s, position))
                elif name == LIFT_JOINT:
                    series.lift.append((stamp_s, position))
        else:
            pad = pads[message.topic]
            stamp_s = read_pad(inputs, pad, deserialize_message(message.data, PointCloud2))
            if stamp_s is not None:
                force = float(inputs.pad_forces_n()[plan.pads.index(pad)])
                series.pad_force.setdefault(pad, []).append((stamp_s, force))
    series.energy.sort()  # in stamp order, whatever order they were logged in
    series.epsilon.sort()
    return series
