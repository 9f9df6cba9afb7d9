"""Where frames and bodies are: tf transforms and body odometry."""

from __future__ import annotations

import math

from geometry_msgs.msg import TransformStamped
from grasp_monitor.core.errors import InputError
from grasp_monitor.core.frames import FrameTransforms
from grasp_monitor.core.rotations import rotate
from grasp_monitor.core.values import BodyArrays, BodyState
from grasp_monitor.nodes.conversions.clock import time_from_msg, time_to_msg
from nav_msgs.msg import Odometry
import numpy as np
from tf2_msgs.msg import TFMessage

#: Largest departure of an orientation's norm from 1 that is still a unit quaternion.
UNIT_QUATERNION_TOLERANCE = 1e-3


def tf_message(transforms: FrameTransforms) -> TFMessage:
    """Build a tf2_msgs/TFMessage: one TransformStamped per child frame, all one stamp."""
    stamp = time_to_msg(transforms.time_s)
    msg = TFMessage()
    for parent, child, t, q in zip(transforms.parents, transforms.children,
                                   transforms.translation.tolist(),
                                   transforms.quaternion.tolist()):
        transform = TransformStamped(child_frame_id=child)
        transform.header.stamp = stamp
        transform.header.frame_id = parent
        v, r = transform.transform.translation, transform.transform.rotation
        v.x, v.y, v.z = t
        r.w, r.x, r.y, r.z = q
        msg.transforms.append(transform)
    return msg


def frame_transforms_from_msg(msg: TFMessage) -> FrameTransforms:
    """Read a tf2_msgs/TFMessage; the batch's stamp is its newest transform's.

    Raises:
        InputError: a value is NaN or infinite ('not_finite'), a rotation is not a unit
            quaternion ('out_of_range'), or a frame id is empty ('wrong_layout').
    """
    parents, children, values = [], [], []
    stamp_s = -math.inf
    for t in msg.transforms:
        v, r = t.transform.translation, t.transform.rotation
        if not t.header.frame_id or not t.child_frame_id:
            raise InputError(f'transform {t.header.frame_id!r} -> {t.child_frame_id!r} '
                             'names no frame', 'wrong_layout')
        parents.append(t.header.frame_id)
        children.append(t.child_frame_id)
        values.append((v.x, v.y, v.z, r.w, r.x, r.y, r.z))
        stamp_s = max(stamp_s, time_from_msg(t.header.stamp))
    table = np.array(values, float).reshape(-1, 7)
    if not np.isfinite(table).all():
        raise InputError(f'a transform of {children} holds NaN or inf', 'not_finite')
    norm = np.linalg.norm(table[:, 3:], axis=1)
    bad = np.flatnonzero(np.abs(norm - 1.0) > UNIT_QUATERNION_TOLERANCE)
    if bad.size:
        raise InputError(f'rotation of {children[bad[0]]!r}: {table[bad[0], 3:].tolist()} '
                         '(w x y z) is not a unit quaternion', 'out_of_range')
    return FrameTransforms(parents, children, table[:, :3], table[:, 3:] / norm[:, None],
                           stamp_s if table.size else 0.0)


def odometry_from_body_arrays(bodies: BodyArrays, frame_id: str = 'world') -> list[Odometry]:
    """Build one nav_msgs/Odometry per body: pose in ``frame_id``, twist in the body frame."""
    stamp = time_to_msg(bodies.time_s)
    linear, angular = bodies.twist_in_body()
    messages = []
    for name, p, q, v, w in zip(bodies.names, bodies.position.tolist(),
                                bodies.quaternion.tolist(), linear.tolist(), angular.tolist()):
        msg = Odometry()
        msg.header.stamp = stamp
        msg.header.frame_id = frame_id
        msg.child_frame_id = name
        pose = msg.pose.pose
        pose.position.x, pose.position.y, pose.position.z = p
        pose.orientation.w, pose.orientation.x, pose.orientation.y, pose.orientation.z = q
        twist = msg.twist.twist
        twist.linear.x, twist.linear.y, twist.linear.z = v
        twist.angular.x, twist.angular.y, twist.angular.z = w
        messages.append(msg)
    return messages


def body_state_from_odometry(msg: Odometry) -> BodyState:
    """Convert nav_msgs/Odometry (child-frame twist) to BodyState (world twist).

    Raises:
        InputError: a pose or twist value is NaN or infinite ('not_finite'), or the
            orientation is not a unit quaternion ('out_of_range').
    """
    p = msg.pose.pose.position
    o = msg.pose.pose.orientation
    lin = msg.twist.twist.linear
    ang = msg.twist.twist.angular
    # plain floats: a ground-truth stream comes every tick, numpy's overhead per call is
    # most of the cost at this size
    values = (p.x, p.y, p.z, o.w, o.x, o.y, o.z, lin.x, lin.y, lin.z, ang.x, ang.y, ang.z)
    if not all(map(math.isfinite, values)):
        raise InputError(f'odometry of {msg.child_frame_id!r} holds NaN or inf', 'not_finite')
    quaternion = np.array(values[3:7])
    if abs(math.sqrt(math.fsum(v * v for v in values[3:7])) - 1.0) > UNIT_QUATERNION_TOLERANCE:
        raise InputError(f'odometry of {msg.child_frame_id!r}: orientation '
                         f'{quaternion.tolist()} is not a unit quaternion', 'out_of_range')
    return BodyState(
        msg.child_frame_id, values[:3], quaternion,
        rotate(quaternion, values[7:10]), rotate(quaternion, values[10:13]),
        time_from_msg(msg.header.stamp))
