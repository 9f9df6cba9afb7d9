"""Where ROS messages meet core values: pure functions, one per direction."""

from __future__ import annotations

from functools import lru_cache
import math
from typing import Mapping, Sequence

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Point, TransformStamped, Vector3Stamped
from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.frames import FrameTransforms
from grasp_monitor.core.pad_contacts import PadContacts
from grasp_monitor.core.rotations import rotate
from grasp_monitor.core.servo import COMMAND_FIELDS, ServoCommand, ServoConfig
from grasp_monitor.core.values import BodyArrays, BodyState, JointStates
from nav_msgs.msg import Odometry
import numpy as np
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, PointCloud2, PointField
from std_msgs.msg import ColorRGBA, Float64MultiArray, String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import Marker, MarkerArray

#: Fields of a tactile cloud, in order: taxel position (m) and force (N), pad frame.
TACTILE_FIELDS = ('x', 'y', 'z', 'fx', 'fy', 'fz')
#: Fields of a contacts cloud, in order: float64 point (m), normal, force (N), world
#: frame; then int32 body ids: body1 (the pad) exerts the force on body2.
CONTACT_FIELDS = ('x', 'y', 'z', 'nx', 'ny', 'nz', 'fx', 'fy', 'fz', 'body1', 'body2')
_CONTACT_DTYPE = np.dtype([(name, '<f8') for name in CONTACT_FIELDS[:9]]
                          + [(name, '<i4') for name in CONTACT_FIELDS[9:]])
#: Sphere sizes of the tactile markers, from an unloaded taxel (0) to full scale.
MARKER_LEVELS = 8
#: Red, green and blue of the tactile marker colour map at 0, 1/2 and full scale.
_MARKER_COLOURS = ((0.2, 1.0, 0.9), (0.4, 0.9, 0.05), (1.0, 0.1, 0.05))
#: Largest departure of an orientation's norm from 1 that is still a unit quaternion.
UNIT_QUATERNION_TOLERANCE = 1e-3
#: DiagnosticStatus levels by name.
LEVELS = {
    'OK': DiagnosticStatus.OK, 'WARN': DiagnosticStatus.WARN,
    'ERROR': DiagnosticStatus.ERROR, 'STALE': DiagnosticStatus.STALE,
}


def time_to_msg(time_s: float) -> Time:
    """Convert seconds to builtin_interfaces/Time (rounded to the nanosecond)."""
    nanoseconds = int(round(time_s * 1e9))
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def time_from_msg(stamp: Time) -> float:
    """Convert builtin_interfaces/Time to seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def clock_to_msg(time_s: float) -> Clock:
    """Convert simulated time to rosgraph_msgs/Clock."""
    return Clock(clock=time_to_msg(time_s))


def joint_state_to_msg(states: JointStates) -> JointState:
    """Convert JointStates to sensor_msgs/JointState, stamped with the sample time."""
    msg = JointState()
    msg.header.stamp = time_to_msg(states.time_s)
    msg.name = list(states.names)
    msg.position = states.position.tolist()
    msg.velocity = states.velocity.tolist()
    msg.effort = states.effort.tolist()
    return msg


def joint_state_from_msg(msg: JointState) -> JointStates:
    """Convert sensor_msgs/JointState to JointStates; missing arrays become NaN."""
    n = len(msg.name)

    def column(values: object) -> np.ndarray:
        array = np.asarray(values, float)
        return array if array.size == n else np.full(n, np.nan)

    return JointStates(tuple(msg.name), column(msg.position), column(msg.velocity),
                       column(msg.effort), time_from_msg(msg.header.stamp))


def joint_velocities_from_msg(msg: JointState) -> tuple[list[str], np.ndarray, float]:
    """Read the joint names, velocities and time of a sensor_msgs/JointState.

    Raises:
        CommandError: not one velocity per name ('wrong_length'), or one is NaN or
            infinite ('not_finite').
    """
    velocity = np.asarray(msg.velocity, float)
    if velocity.size != len(msg.name):
        raise CommandError(f'joint_states has {velocity.size} velocities for '
                           f'{len(msg.name)} names', 'wrong_length')
    if not np.isfinite(velocity).all():
        raise CommandError('joint_states holds a NaN or infinite velocity', 'not_finite')
    return list(msg.name), velocity, time_from_msg(msg.header.stamp)


def servo_command_from_joint_state(
    msg: JointState, config: ServoConfig, previous: ServoCommand | None
) -> ServoCommand:
    """Build a servo command from JointState (position θ*, velocity θ̇*, effort τ_ff).

    Joints not named keep ``previous``; an empty array leaves its field as it was.
    NaN position disables position feedback; kp/kd scales and maximum torque keep
    their previous values (``servo_commands/full`` sets them).

    Raises:
        CommandError: unknown or repeated joint, wrong lengths, non-finite values.
    """
    if not msg.name:
        raise CommandError('servo command names no joint', 'wrong_length')
    return ServoCommand.from_named(
        config, list(msg.name),
        {'position': msg.position, 'velocity': msg.velocity,
         'feedforward_torque': msg.effort},
        previous)


def servo_command_from_multiarray(msg: Float64MultiArray, joints: int) -> ServoCommand:
    """Build a full servo command: rows = joints, columns = the six command fields.

    Raises:
        CommandError: wrong size or invalid values.
    """
    return ServoCommand.from_rows(np.asarray(msg.data, float), joints)


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
        CommandError: a value is NaN or infinite ('not_finite'), a rotation is not a unit
            quaternion ('out_of_range'), or a frame id is empty ('wrong_layout').
    """
    parents, children, values = [], [], []
    stamp_s = -math.inf
    for t in msg.transforms:
        v, r = t.transform.translation, t.transform.rotation
        if not t.header.frame_id or not t.child_frame_id:
            raise CommandError(f'transform {t.header.frame_id!r} -> {t.child_frame_id!r} '
                               'names no frame', 'wrong_layout')
        parents.append(t.header.frame_id)
        children.append(t.child_frame_id)
        values.append((v.x, v.y, v.z, r.w, r.x, r.y, r.z))
        stamp_s = max(stamp_s, time_from_msg(t.header.stamp))
    table = np.array(values, float).reshape(-1, 7)
    if not np.isfinite(table).all():
        raise CommandError(f'a transform of {children} holds NaN or inf', 'not_finite')
    norm = np.linalg.norm(table[:, 3:], axis=1)
    bad = np.flatnonzero(np.abs(norm - 1.0) > UNIT_QUATERNION_TOLERANCE)
    if bad.size:
        raise CommandError(f'rotation of {children[bad[0]]!r}: {table[bad[0], 3:].tolist()} '
                           '(w x y z) is not a unit quaternion', 'out_of_range')
    return FrameTransforms(parents, children, table[:, :3], table[:, 3:] / norm[:, None],
                           stamp_s if table.size else 0.0)


def servo_command_to_multiarray(command: ServoCommand) -> Float64MultiArray:
    """Convert a servo command to ``servo_commands/full`` rows (one per joint)."""
    table = np.stack([getattr(command, name) for name in COMMAND_FIELDS], axis=1)
    return Float64MultiArray(data=table.reshape(-1).tolist())


def tactile_cloud_to_msg(
    positions_in_pad: np.ndarray, forces_in_pad: np.ndarray, frame_id: str, time_s: float
) -> PointCloud2:
    """Build a tactile PointCloud2: float32 fields x y z (m) fx fy fz (N), one point per taxel.

    Args:
        positions_in_pad: (N, 3) taxel positions in the pad frame, m.
        forces_in_pad: (N, 3) force on each taxel in the pad frame, N; a scalar
            touch function gives (N, 1), published as fz with fx = fy = 0.
        frame_id: the pad body's frame.
        time_s: sample time, s.
    """
    forces = np.asarray(forces_in_pad, np.float32)
    if forces.ndim == 2 and forces.shape[1] == 1:
        forces = np.concatenate([np.zeros((forces.shape[0], 2), np.float32), forces], axis=1)
    points = np.concatenate([np.asarray(positions_in_pad, np.float32), forces], axis=1)
    msg = PointCloud2()
    msg.header.stamp = time_to_msg(time_s)
    msg.header.frame_id = frame_id
    msg.height, msg.width = 1, points.shape[0]
    # Fresh fields per message: a caller that edits one message must not edit the next.
    msg.fields = [PointField(name=name, offset=4 * i, datatype=PointField.FLOAT32, count=1)
                  for i, name in enumerate(TACTILE_FIELDS)]
    msg.is_bigendian = False
    msg.point_step = 4 * len(TACTILE_FIELDS)
    msg.row_step = msg.point_step * points.shape[0]
    msg.is_dense = True
    msg.data = points.astype('<f4').tobytes()
    return msg


@lru_cache(maxsize=32)
def _taxel_points(positions: bytes) -> tuple[Point, ...]:
    """Point messages of a pad's taxels (float64 x y z rows), made once per layout.

    A pad's taxels never move in its frame, and building 10^3 Points is most of a
    markers message's cost; messages may share them (publishing serialises).
    """
    return tuple(Point(x=x, y=y, z=z)
                 for x, y, z in np.frombuffer(positions).reshape(-1, 3).tolist())


def tactile_markers_to_msg(
    pads: Sequence[tuple[str, str, np.ndarray, np.ndarray, float]], time_s: float,
    full_scale_n: float,
) -> MarkerArray:
    """Build rviz markers of tactile pads: taxels as spheres coloured and sized by force.

    Per pad (namespace ``tactile/<pad>``, frame = the pad body), ``MARKER_LEVELS``
    sphere lists with ids 0 to ``MARKER_LEVELS - 1``: list k holds the taxels
    whose force magnitude ``|f|`` has ``ceil(|f| / full_scale_n x (MARKER_LEVELS - 1))
    = k`` (0: unloaded; beyond full scale: the last), drawn with diameter
    ``(0.5 + k / (MARKER_LEVELS - 1)) x spacing``. Each sphere's colour runs from
    blue (no force) through yellow (half scale) to red (full scale). A list with
    no taxel is sent as DELETE, so rviz drops what it showed before.

    Args:
        pads: per pad: name, frame id, taxel positions (N, 3) m in that frame,
            taxel values (N, 1) or (N, 3) N, and the taxel spacing, m.
        time_s: sample time, s.
        full_scale_n: force magnitude drawn largest and reddest, N (> 0).
    """
    msg = MarkerArray()
    stamp = time_to_msg(time_s)
    top = MARKER_LEVELS - 1
    for name, frame_id, positions, values, spacing_m in pads:
        values = np.asarray(values, float).reshape(len(positions), -1)
        magnitude = np.sqrt(np.einsum('ij,ij->i', values, values))
        ratio = np.minimum(magnitude / full_scale_n, 1.0)
        level = np.ceil(ratio * top).astype(np.int64)
        colours = np.stack([np.interp(ratio, (0.0, 0.5, 1.0), stops)
                            for stops in _MARKER_COLOURS], axis=1)
        points = _taxel_points(np.ascontiguousarray(positions, float).tobytes())
        for k in range(MARKER_LEVELS):
            members = np.flatnonzero(level == k)
            marker = Marker(ns=f'tactile/{name}', id=k, type=Marker.SPHERE_LIST,
                            action=Marker.ADD if members.size else Marker.DELETE)
            marker.header.stamp = stamp
            marker.header.frame_id = frame_id
            marker.pose.orientation.w = 1.0
            marker.scale.x = marker.scale.y = marker.scale.z = spacing_m * (0.5 + k / top)
            marker.color.a = 1.0
            marker.points = [points[i] for i in members.tolist()]
            marker.colors = [ColorRGBA(r=r, g=g, b=b, a=1.0)
                             for r, g, b in colours[members].tolist()]
            msg.markers.append(marker)
    return msg


def pad_contacts_to_msg(contacts: PadContacts, frame_id: str = 'world') -> PointCloud2:
    """Build a contacts PointCloud2 (``CONTACT_FIELDS``), one point per contact."""
    points = np.empty(len(contacts), _CONTACT_DTYPE)
    for i, name in enumerate(CONTACT_FIELDS[:9]):
        array = (contacts.position_in_world, contacts.normal_in_world,
                 contacts.force_in_world)[i // 3]
        points[name] = array[:, i % 3]
    points['body1'], points['body2'] = contacts.body1, contacts.body2
    msg = PointCloud2()
    msg.header.stamp = time_to_msg(contacts.time_s)
    msg.header.frame_id = frame_id
    msg.height, msg.width = 1, len(contacts)
    msg.fields = [PointField(name=name, offset=_CONTACT_DTYPE.fields[name][1],
                             datatype=PointField.FLOAT64 if i < 9 else PointField.INT32,
                             count=1) for i, name in enumerate(CONTACT_FIELDS)]
    msg.is_bigendian = False
    msg.point_step = _CONTACT_DTYPE.itemsize
    msg.row_step = msg.point_step * len(contacts)
    msg.is_dense = True
    msg.data = points.tobytes()
    return msg


def pad_contacts_from_msg(msg: PointCloud2) -> PadContacts:
    """Read a contacts PointCloud2 back.

    Raises:
        CommandError: not the ``CONTACT_FIELDS`` layout, or non-finite values.
    """
    layout = [(f.name, f.offset, f.datatype) for f in msg.fields]
    expected = [(name, _CONTACT_DTYPE.fields[name][1],
                 PointField.FLOAT64 if i < 9 else PointField.INT32)
                for i, name in enumerate(CONTACT_FIELDS)]
    if layout != expected or msg.point_step != _CONTACT_DTYPE.itemsize or msg.is_bigendian:
        raise CommandError(
            f'contacts cloud must have fields {" ".join(CONTACT_FIELDS)} (float64, then '
            f'int32) packed in {_CONTACT_DTYPE.itemsize} bytes, got '
            f'{" ".join(name for name, _, _ in layout)} in {msg.point_step}', 'wrong_layout')
    count = msg.width * msg.height
    if len(msg.data) != _CONTACT_DTYPE.itemsize * count:
        raise CommandError(f'contacts cloud holds {len(msg.data)} bytes for {count} points',
                           'wrong_length')
    points = np.frombuffer(bytes(msg.data), dtype=_CONTACT_DTYPE)
    values = np.stack([points[name] for name in CONTACT_FIELDS[:9]], axis=1)
    if not np.isfinite(values).all():
        raise CommandError(f'contacts cloud holds {np.count_nonzero(~np.isfinite(values))} '
                           'non-finite values', 'not_finite')
    return PadContacts(values[:, 0:3], values[:, 3:6], values[:, 6:9], points['body1'],
                       points['body2'], time_from_msg(msg.header.stamp))


def body_names_to_msg(names: Sequence[str]) -> String:
    """Build the table of body names by id: one name a line, line i = body id i."""
    return String(data='\n'.join(names))


def body_names_from_msg(msg: String) -> tuple[str, ...]:
    """Read the table of body names by id back."""
    return tuple(msg.data.split('\n'))


def tactile_cloud_from_msg(msg: PointCloud2) -> tuple[np.ndarray, np.ndarray, float]:
    """Read a tactile PointCloud2 back: positions (N, 3) m, forces (N, 3) N, time s.

    Raises:
        CommandError: the cloud does not have the float32 x y z fx fy fz layout, or
            holds NaN or infinite values.
    """
    names = tuple(field.name for field in msg.fields)
    if names != TACTILE_FIELDS or any(
            f.datatype != PointField.FLOAT32 or f.offset != 4 * i
            for i, f in enumerate(msg.fields)) or msg.point_step != 24 or msg.is_bigendian:
        raise CommandError(
            f'tactile cloud must have float32 fields {" ".join(TACTILE_FIELDS)} packed in '
            f'24 bytes, got {" ".join(names)} in {msg.point_step}', 'wrong_layout')
    count = msg.width * msg.height
    if len(msg.data) != 24 * count:
        raise CommandError(f'tactile cloud holds {len(msg.data)} bytes for {count} points',
                           'wrong_length')
    points = np.frombuffer(bytes(msg.data), dtype='<f4').reshape(count, 6).astype(float)
    if not np.isfinite(points).all():
        raise CommandError(f'tactile cloud holds {np.count_nonzero(~np.isfinite(points))} '
                           'non-finite values', 'not_finite')
    return points[:, :3], points[:, 3:], time_from_msg(msg.header.stamp)


def body_state_from_odometry(msg: Odometry) -> BodyState:
    """Convert nav_msgs/Odometry (child-frame twist) to BodyState (world twist).

    Raises:
        CommandError: a pose or twist value is NaN or infinite ('not_finite'), or the
            orientation is not a unit quaternion ('out_of_range').
    """
    p = msg.pose.pose.position
    o = msg.pose.pose.orientation
    quaternion = np.array([o.w, o.x, o.y, o.z])
    lin = msg.twist.twist.linear
    ang = msg.twist.twist.angular
    if not np.isfinite([p.x, p.y, p.z, *quaternion, lin.x, lin.y, lin.z,
                        ang.x, ang.y, ang.z]).all():
        raise CommandError(f'odometry of {msg.child_frame_id!r} holds NaN or inf', 'not_finite')
    if abs(np.linalg.norm(quaternion) - 1.0) > UNIT_QUATERNION_TOLERANCE:
        raise CommandError(f'odometry of {msg.child_frame_id!r}: orientation '
                           f'{quaternion.tolist()} is not a unit quaternion', 'out_of_range')
    return BodyState(
        msg.child_frame_id, [p.x, p.y, p.z], quaternion,
        rotate(quaternion, [lin.x, lin.y, lin.z]), rotate(quaternion, [ang.x, ang.y, ang.z]),
        time_from_msg(msg.header.stamp))


def diagnostic_status(
    name: str, level: str, message: str, values: Mapping[str, object], hardware_id: str = ''
) -> DiagnosticStatus:
    """Build a DiagnosticStatus with ``values`` as key/value strings."""
    return DiagnosticStatus(
        level=LEVELS[level], name=name, message=message, hardware_id=hardware_id,
        values=[KeyValue(key=str(k), value=str(v)) for k, v in values.items()])


#: The verdict's status name and keys, on ``grasp_monitor/verdicts``.
VERDICT = 'verdict'


def verdict_to_msg(time_s: float, command: str, next_s: float, stale: bool,
                   node: str) -> DiagnosticArray:
    """Build the monitor's verdict on the sample at ``time_s``: command, next sample due.

    A stale sample's verdict is STALE-level: the clock, not the inputs, made it.
    """
    msg = DiagnosticArray()
    msg.header.stamp = time_to_msg(time_s)
    msg.status = [diagnostic_status(f'{node}: {VERDICT}', 'STALE' if stale else 'OK', command,
                                    {'next_s': repr(next_s)})]
    return msg


def verdict_from_msg(msg: DiagnosticArray) -> tuple[float, str, float, bool] | None:
    """Return (sample time s, command, next sample s, stale), or None for another message."""
    for status in msg.status:
        if status.name.endswith(f': {VERDICT}'):
            values = {kv.key: kv.value for kv in status.values}
            try:
                return (time_from_msg(msg.header.stamp), status.message,
                        float(values['next_s']), status.level == DiagnosticStatus.STALE)
            except (KeyError, ValueError):
                return None
    return None


def stamped_value_to_msg(value: float, stamp: Time) -> Vector3Stamped:
    """Carry one number with its stamp: the value in ``vector.x``, y and z 0, no frame.

    No standard message holds a stamped scalar; a Vector3Stamped plots in PlotJuggler and
    Foxglove against its header stamp, on the same axis as every other stamped topic.
    """
    msg = Vector3Stamped()
    msg.header.stamp = stamp
    msg.vector.x = float(value)
    return msg


def stamped_value_from_msg(msg: Vector3Stamped) -> tuple[float, float]:
    """Return (value, stamp in s) of a message made by ``stamped_value_to_msg``."""
    return msg.vector.x, time_from_msg(msg.header.stamp)
