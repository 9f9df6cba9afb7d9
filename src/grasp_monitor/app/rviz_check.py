"""Check an rviz config against a running graph, as rviz2 would read it, without rviz2.

For each display that reads a topic: the topic must be published with the display's
message type and reach the display at its QoS, and every frame its messages name
(headers, each marker's, the robot description's links) must resolve through /tf and
/tf_static to the fixed frame. The TF display's row checks every frame on /tf.
``grasp-monitor rviz <scenario> --check`` runs it beside a running graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import re
import time
from typing import Any
import xml.etree.ElementTree as ElementTree

from grasp_monitor.app.rviz_config import displays
from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.frames import FrameLookupError, FrameTree
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.qos import (
    message_class, TF_QOS, TF_STATIC_LISTENER_QOS)
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

TF_TYPE = 'tf2_msgs/msg/TFMessage'


@dataclass
class DisplayCheck:
    """What one display would get from the graph.

    Attributes:
        display: the display's name.
        topic: its fully qualified topic.
        type_name: the message type it reads.
        published_as: the types the topic's publishers offer.
        received: messages it received at its QoS.
        frames: every frame its messages named.
        unresolved: the frames that did not reach the fixed frame, with why.
    """

    display: str
    topic: str
    type_name: str
    published_as: set[str] = field(default_factory=set)
    received: int = 0
    frames: set[str] = field(default_factory=set)
    unresolved: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Published with the display's type, received, every frame resolved."""
        return self.published_as == {self.type_name} and self.received > 0 and not self.unresolved

    def problem(self) -> str:
        """Say what is wrong ('' when nothing is)."""
        if not self.published_as:
            return 'not published'
        if self.published_as != {self.type_name}:
            return f'published as {", ".join(sorted(self.published_as))}'
        if not self.received:
            return "nothing received at the display's QoS"
        return '; '.join(f'{frame}: {why}' for frame, why in sorted(self.unresolved.items()))


def message_frames(type_name: str, msg: Any) -> set[str]:
    """Return the frames a display reading ``msg`` needs in the fixed frame."""
    if type_name == 'visualization_msgs/msg/MarkerArray':
        # DELETEALL (3) and DELETE (2) draw nothing: rviz transforms only what it adds
        return {m.header.frame_id for m in msg.markers if m.action == 0}
    if type_name == 'std_msgs/msg/String':  # a robot description: its links
        return {link.get('name') for link in ElementTree.fromstring(msg.data).iter('link')}
    if type_name == TF_TYPE:
        return {t.child_frame_id for t in msg.transforms} | {
            t.header.frame_id for t in msg.transforms}
    return {msg.header.frame_id}


def _qos(display: dict[str, Any]) -> QoSProfile:
    return QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE if display['reliable']
                      else ReliabilityPolicy.BEST_EFFORT,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL if display['latched']
                      else DurabilityPolicy.VOLATILE)


def check_rviz_config(config: dict[str, Any], context: rclpy.Context | None = None,
                      namespace: str = '', timeout_s: float = 30.0,
                      wanted: int = 3) -> list[DisplayCheck]:
    """Subscribe as the config's displays do; return what each got from the graph.

    Waits until every display has ``wanted`` messages (a latched one: one) and every
    frame resolves, or ``timeout_s`` passes.

    Args:
        config: the rviz config, as YAML loads it.
        context: an initialised rclpy context (default: the global one).
        namespace: the namespace rviz2 would run in (relative topics resolve in it).
        timeout_s: how long to wait, s.
        wanted: messages to see per display before the frames are judged.
    """
    fixed = config['Visualization Manager']['Global Options']['Fixed Frame']
    node = rclpy.create_node('rviz_config_check', namespace=namespace or None,
                             context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    tree = FrameTree(fixed)
    shown = displays(config)
    checks = [DisplayCheck('TF', '/tf, /tf_static', TF_TYPE)] + [
        DisplayCheck(d['name'], node.resolve_topic_name(d['topic']), d['type'])
        for d in shown]

    def on_tf(msg: TFMessage, static: bool) -> None:
        try:
            tree.update(conversions.frame_transforms_from_msg(msg), static)
        except GraspMonitorError:
            return
        checks[0].received += 1
        checks[0].frames |= message_frames(TF_TYPE, msg)

    def on_message(check: DisplayCheck, msg: Any) -> None:
        check.received += 1
        check.frames |= message_frames(check.type_name, msg)

    for topic, qos in (('/tf', TF_QOS), ('/tf_static', TF_STATIC_LISTENER_QOS)):
        node.create_subscription(TFMessage, topic,
                                 lambda m, s=topic == '/tf_static': on_tf(m, s), qos)
    for check, display in zip(checks[1:], shown):
        node.create_subscription(message_class(check.type_name), check.topic,
                                 lambda m, c=check: on_message(c, m), _qos(display))

    def judge() -> bool:
        for check in checks:
            check.published_as = {info.topic_type for topic in check.topic.split(', ')
                                  for info in node.get_publishers_info_by_topic(topic)}
            check.unresolved = {}
            for frame in check.frames:
                try:
                    tree.pose(frame)
                except FrameLookupError as error:
                    why = re.search(r'\((.*?)\)', str(error))
                    check.unresolved[frame] = why.group(1) if why else str(error)
        return all(c.ok and c.received >= (1 if d.get('latched') else wanted)
                   for c, d in zip(checks, [{}] + shown))

    deadline = time.monotonic() + timeout_s
    try:
        while not judge() and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
    finally:
        executor.shutdown(timeout_sec=2.0)
        node.destroy_node()
    return checks


def check_table(checks: list[DisplayCheck], fixed_frame: str = 'world') -> str:
    """Return the checks as a table: display, topic, type, messages, frames resolved."""
    rows = [('display', 'topic', 'type (published as)', 'msgs',
             f'frames resolved to {fixed_frame}', 'result')]
    for c in checks:
        types = c.type_name if c.published_as == {c.type_name} else \
            f'{c.type_name} ({", ".join(sorted(c.published_as)) or "none"})'
        resolved = sorted(c.frames - set(c.unresolved))
        if len(resolved) > 4:
            frames = f'{len(resolved)}/{len(c.frames)}: {", ".join(resolved[:3])}, ...'
        else:
            frames = f'{len(resolved)}/{len(c.frames)}' + (
                f': {", ".join(resolved)}' if resolved else '')
        rows.append((c.display, c.topic, types, str(c.received), frames,
                     'ok' if c.ok else f'FAIL: {c.problem()}'))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ['  '.join(cell.ljust(w) for cell, w in zip(row, widths)) + '  ' + row[-1]
             for row in rows]
    lines.insert(1, '  '.join('-' * w for w in widths) + '  ------')
    return '\n'.join(lines)
