"""The simulator's streams as serialised messages, rewritten in place every tick.

Each writer builds its first message with the conversion of its family (so the content
is defined once, there), keeps it as a ``cdr_template.Template`` and from then on writes only
the numbers of a tick into the template's bytes. A new layout (other names, another
number of points) builds a new template; clouds keep one per width.
"""

from __future__ import annotations

from typing import Callable, Hashable

from grasp_monitor.core.frames import FrameTransforms
from grasp_monitor.core.pad_contacts import PadContacts
from grasp_monitor.core.values import BodyArrays, JointStates
from grasp_monitor.nodes.conversions.cdr_template import Template
from grasp_monitor.nodes.conversions.clock import clock_to_msg
from grasp_monitor.nodes.conversions.contacts import contact_points, pad_contacts_to_msg
from grasp_monitor.nodes.conversions.joints import joint_state_to_msg
from grasp_monitor.nodes.conversions.poses import odometry_from_body_arrays, tf_message
from grasp_monitor.nodes.conversions.tactile import tactile_cloud_to_msg, tactile_points
import numpy as np

#: Quaternion (w, x, y, z) columns in message order (x, y, z, w).
_XYZW = [1, 2, 3, 0]
#: Cloud templates kept per writer (one per width seen).
_MAX_WIDTHS = 64


def _stamp(time_s: float) -> list[int]:
    """Return sec and nanosec of ``time_s`` as ``time_to_msg`` rounds them."""
    nanoseconds = int(round(time_s * 1e9))
    return [nanoseconds // 1_000_000_000, nanoseconds % 1_000_000_000]


class _Layouts:
    """Templates by layout key, each with the indices its writer fills."""

    def __init__(self, index: Callable[[Template], dict], keep: int = 1) -> None:
        self.index = index
        self.keep = keep
        self.templates: dict[Hashable, tuple[Template, dict]] = {}

    def get(self, key: Hashable, build: Callable[[], object]) -> tuple[Template, dict]:
        found = self.templates.get(key)
        if found is None:
            if len(self.templates) >= self.keep:
                self.templates.pop(next(iter(self.templates)))
            template = Template(build())
            found = self.templates[key] = (template, self.index(template))
        return found


class ClockBytes:
    """``/clock`` (rosgraph_msgs/Clock)."""

    def __init__(self) -> None:
        self.template = Template(clock_to_msg(0.0))
        self.stamp = self.template.index('clock.sec', 2)

    def __call__(self, time_s: float) -> bytes:
        """Return the message of ``time_s``, s."""
        self.template.int32s[self.stamp] = _stamp(time_s)
        return self.template.serialized()


class JointStateBytes:
    """``joint_states`` (sensor_msgs/JointState), as ``joint_state_to_msg``."""

    def __init__(self) -> None:
        def index(t: Template) -> dict:
            n = t.fields['position'][2]
            return {'stamp': t.index('header.stamp.sec', 2),
                    'values': np.concatenate([t.index(name, n) if n else np.zeros(0, int)
                                              for name in ('position', 'velocity', 'effort')])}
        self.layouts = _Layouts(index)

    def __call__(self, states: JointStates) -> bytes:
        """Return the message of ``states``."""
        template, at = self.layouts.get(tuple(states.names), lambda: joint_state_to_msg(states))
        template.int32s[at['stamp']] = _stamp(states.time_s)
        template.doubles[at['values']] = np.concatenate(
            [states.position, states.velocity, states.effort])
        return template.serialized()


class OdometryBytes:
    """``ground_truth/<body>`` (nav_msgs/Odometry) per body, as ``odometry_from_body_arrays``."""

    def __init__(self, frame_id: str = 'world') -> None:
        self.frame_id = frame_id
        self.key: tuple | None = None
        self.templates: list[tuple[Template, np.ndarray, np.ndarray]] = []

    def __call__(self, bodies: BodyArrays) -> list[bytes]:
        """Return the message of each body, in order."""
        if self.key != tuple(bodies.names):
            self.key = tuple(bodies.names)
            # a template per body: its child frame's length moves what follows it
            self.templates = [
                (t, t.index('header.stamp.sec', 2),
                 np.concatenate([t.index('pose.pose.position.x', 7),
                                 t.index('twist.twist.linear.x', 6)]))
                for t in map(Template, odometry_from_body_arrays(bodies, self.frame_id))]
        linear, angular = bodies.twist_in_body()
        rows = np.concatenate([bodies.position, bodies.quaternion[:, _XYZW], linear, angular],
                              axis=1)
        stamp = _stamp(bodies.time_s)
        out = []
        for (template, stamp_at, values_at), row in zip(self.templates, rows):
            template.int32s[stamp_at] = stamp
            template.doubles[values_at] = row
            out.append(template.serialized())
        return out


class TfBytes:
    """``/tf`` (tf2_msgs/TFMessage), as ``tf_message``."""

    def __init__(self) -> None:
        def index(t: Template) -> dict:
            n = sum(path.endswith('.transform.translation.x') for path in t.fields)
            empty = [np.zeros(0, int)]
            return {'count': n,
                    'stamps': np.concatenate([t.index(f'transforms[{i}].header.stamp.sec', 2)
                                              for i in range(n)] or empty),
                    'values': np.concatenate([
                        t.index(f'transforms[{i}].transform.translation.x', 7)
                        for i in range(n)] or empty)}
        self.layouts = _Layouts(index)

    def __call__(self, transforms: FrameTransforms) -> bytes:
        """Return the message of ``transforms``."""
        template, at = self.layouts.get((tuple(transforms.parents), tuple(transforms.children)),
                                        lambda: tf_message(transforms))
        template.int32s[at['stamps']] = _stamp(transforms.time_s) * at['count']
        template.doubles[at['values']] = np.concatenate(
            [transforms.translation, transforms.quaternion[:, _XYZW]], axis=1).ravel()
        return template.serialized()


class _CloudBytes:
    """A PointCloud2 stream whose point layout is fixed and width varies."""

    def __init__(self) -> None:
        self.layouts = _Layouts(lambda t: {'stamp': t.index('header.stamp.sec', 2),
                                           'data': t.view('data')}, keep=_MAX_WIDTHS)

    def write(self, points: np.ndarray, time_s: float, build: Callable[[], object]) -> bytes:
        template, at = self.layouts.get(len(points), build)
        template.int32s[at['stamp']] = _stamp(time_s)
        at['data'][:] = np.frombuffer(points.tobytes(), np.uint8)
        return template.serialized()


class ContactsBytes(_CloudBytes):
    """``contacts`` (sensor_msgs/PointCloud2), as ``pad_contacts_to_msg``."""

    def __init__(self, frame_id: str = 'world') -> None:
        super().__init__()
        self.frame_id = frame_id

    def __call__(self, contacts: PadContacts) -> bytes:
        """Return the message of ``contacts``."""
        return self.write(contact_points(contacts), contacts.time_s,
                          lambda: pad_contacts_to_msg(contacts, self.frame_id))


class TactileBytes(_CloudBytes):
    """``tactile/<pad>`` (sensor_msgs/PointCloud2) of one pad, as ``tactile_cloud_to_msg``."""

    def __init__(self, frame_id: str) -> None:
        super().__init__()
        self.frame_id = frame_id

    def __call__(self, positions_in_pad: np.ndarray, forces_in_pad: np.ndarray,
                 time_s: float, slip_in_pad: np.ndarray | None = None) -> bytes:
        """Return the message of the pad's taxels (as ``tactile_cloud_to_msg``).

        A pad publishes slip in every message or in none: the layout is kept per width.
        """
        return self.write(tactile_points(positions_in_pad, forces_in_pad, slip_in_pad), time_s,
                          lambda: tactile_cloud_to_msg(positions_in_pad, forces_in_pad,
                                                       self.frame_id, time_s, slip_in_pad))
