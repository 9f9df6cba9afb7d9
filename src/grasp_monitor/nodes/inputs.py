"""How nodes take their inputs: a refused message is counted by kind, logged and dropped.

A lost one (never handed to a callback) is counted by topic (``subscribe``): the
middleware's own count (the ``message_lost`` QoS event, which Fast DDS raises for samples
lost on the way) plus the gaps in each publisher's publication sequence numbers, which is
how a subscription queue that overflowed shows (Fast DDS replaces the oldest sample of a
full KEEP_LAST queue without an event).
"""

from __future__ import annotations

from collections import Counter
import inspect
from typing import Callable, TypeVar

from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.monitor import StampGrid
from grasp_monitor.core.pad_contacts import ObjectContacts, PadContacts
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.interfaces import subscribes
from grasp_monitor.nodes.qos import LATCHED_QOS
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import PointCloud2
from std_msgs.msg import String

T = TypeVar('T')


def resolved(node: Node, names: list[str]) -> tuple[str, ...]:
    """Resolve topic names against the node's namespace ('' entries are dropped)."""
    return tuple(node.resolve_topic_name(name) for name in names if name)


def read_input(node: Node, refused: Counter, topic: str, read: Callable[[], T]) -> T | None:
    """Return ``read()``; a refused input is counted by kind, logged (throttled), gives None."""
    try:
        return read()
    except GraspMonitorError as error:
        refused[getattr(error, 'kind', 'invalid')] += 1
        node.get_logger().warning(f'dropped {topic}: {error}', throttle_duration_sec=1.0)
        return None


def log_refused_stamps(node: Node, grid: StampGrid, names: tuple[str, ...]) -> None:
    """Log the first reading of each input ``grid`` refuses for its stamp, once per input.

    The rest are counted only (``refused_stamps``): a flood must not flood the log too.
    """
    warned: set[int] = set()

    def on_refused(index: int, stamp_s: float, last_s: float) -> None:
        if index not in warned:
            warned.add(index)
            node.get_logger().warning(
                f'refused {names[index]} stamped {stamp_s:.6f} s: off its stream (last '
                f'{last_s:.6f} s) and its next reading went on from there; further ones '
                'are counted in refused_stamps, not logged')
    grid.stamps.on_refused = on_refused


def follow_sources(node: Node, grid: StampGrid, topics: tuple[str, ...]) -> None:
    """Tell ``grid`` when input ``i``'s topic ``topics[i]`` hears a new source (``LostInputs``).

    A simulator restarted mid-trial starts its time again at 0, but its first messages go
    out before the middleware has matched it with this node: the first heard may be
    stamped past where the old one stopped. Its new publishers tell the restart apart.
    """
    index = {topic.lstrip('/'): i for i, topic in enumerate(topics)}

    def on_new_source(topic: str) -> None:
        if topic in index:
            grid.new_source(index[topic])
    lost_inputs(node).on_new_source = on_new_source


def refusal_counts(refused: Counter, total_key: str) -> dict[str, int]:
    """Return diagnostic values of refusals: their total under ``total_key``, then by kind."""
    return {total_key: sum(refused.values())} | {
        f'refused.{kind}': count for kind, count in refused.items()}


class LostInputs:
    """Messages that never reached a node's callbacks, by topic.

    Publication sequence numbers carry no publisher id, so each topic keeps one run per
    matched publisher: a message continues the run with the highest number below its own,
    and the numbers it skipped are lost. Exact with one publisher; with several, an
    estimate once their numbers cross (a flooding publisher's lost messages are counted
    too).

    A topic's message is from a *new source* (a restarted simulator, say) when its
    numbers restart below every run, or when a publisher matched since the topic's last
    message and the message continues no run: ``on_new_source`` is then called with the
    topic before the message is read. (rclpy gives no publisher id with a message; the
    match and the numbers stand in for it.)
    """

    def __init__(self) -> None:
        self.lost: Counter[str] = Counter()
        self._runs: dict[str, list[int]] = {}  # per topic, latest number per run, by recency
        self._publishers: dict[str, int] = {}
        self._joined: set[str] = set()  # a publisher matched since the topic's last message
        #: called with a topic whose message comes from a new source, before it is read
        self.on_new_source: Callable[[str], object] | None = None

    def on_message(self, topic: str, sequence: int | None) -> None:
        """Note a message's publication sequence number (None: the middleware gives none)."""
        if sequence is None:
            return
        runs = self._runs.setdefault(topic, [])
        heard = bool(runs)
        best = -1
        for i, last in enumerate(runs):
            if last < sequence and (best < 0 or last > runs[best]):
                best = i
        new = heard and (best < 0 or topic in self._joined and sequence != runs[best] + 1)
        if new:
            self._joined.discard(topic)
        if best >= 0 and not new:
            skipped = sequence - runs.pop(best) - 1
            if skipped > 0:
                self.lost[topic] += skipped
        elif len(runs) >= max(1, self._publishers.get(topic, 1)):
            runs.pop(0)  # a publisher restarted its numbers: drop the stalest run
        runs.append(sequence)
        if new and self.on_new_source is not None:
            self.on_new_source(topic)

    def events(self, topic: str) -> SubscriptionEventCallbacks:
        """Return the QoS event callbacks that count ``topic``'s lost messages."""
        def lost(status) -> None:
            self.lost[topic] += status.total_count_change

        def matched(status) -> None:
            self._publishers[topic] = status.current_count
            if status.current_count_change > 0 and self._runs.get(topic):
                self._joined.add(topic)
        return SubscriptionEventCallbacks(message_lost=lost, matched=matched)

    def counts(self) -> dict[str, int]:
        """Return diagnostic values: ``lost_inputs`` (total), then ``lost.<topic>``."""
        return {'lost_inputs': sum(self.lost.values())} | {
            f'lost.{topic}': count for topic, count in sorted(self.lost.items())}


def lost_inputs(node: Node) -> LostInputs:
    """Return the node's count of lost inputs (made on first use)."""
    lost = getattr(node, '_grasp_monitor_lost_inputs', None)
    if lost is None:
        lost = LostInputs()
        setattr(node, '_grasp_monitor_lost_inputs', lost)
    return lost


class _WithInfo:
    """A subscription callback that takes the message and its info, from either executor.

    rclpy's executors call ``callback(msg, info)``; its EventsExecutor (7.1) calls
    ``callback((msg, info))``. The signature asks rclpy for the info.
    """

    __signature__ = inspect.Signature([
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in ('msg', 'info')])

    def __init__(self, on_message: Callable) -> None:
        self.on_message = on_message

    def __call__(self, *args) -> None:
        self.on_message(*(args if len(args) == 2 else args[0]))


def subscribe(node: Node, msg_type, topic: str, callback: Callable, qos, **kwargs):
    """``node.create_subscription`` whose lost messages are counted (``lost_inputs``)."""
    lost = lost_inputs(node)
    name = topic.lstrip('/')

    def on_message(msg, info) -> None:
        lost.on_message(name, info.get('publication_sequence_number'))
        callback(msg)
    return node.create_subscription(msg_type, topic, _WithInfo(on_message), qos,
                                    event_callbacks=lost.events(name), **kwargs)


def lost_counts(node: Node) -> dict[str, int]:
    """Return the node's lost inputs as diagnostic values (``LostInputs.counts``)."""
    return lost_inputs(node).counts()


def subscribe_contacts(node: Node, refused: Counter, topic: str, contacts: ObjectContacts,
                       qos: QoSProfile, group, sink: Callable[[PadContacts], None]) -> None:
    """Subscribe to the pads' contacts on ``topic`` and their body names on ``topic/bodies``.

    Each sample goes to ``sink`` once the names are known (until then ``contacts`` holds
    it); a malformed one is counted and logged as ``read_input`` does.
    """
    def on_contacts(raw: bytes) -> None:
        sample = read_input(node, refused, 'contacts', lambda: conversions.pad_contacts_from_msg(
            conversions.read_message(raw, PointCloud2)))
        if sample is not None:
            for held in contacts.take(sample):
                sink(held)

    def on_bodies(msg: String) -> None:
        try:
            held = contacts.bodies(conversions.body_names_from_msg(msg))
        except GraspMonitorError as error:
            node.get_logger().error(f'contacts/bodies: {error}')
            return
        for sample in held:
            sink(sample)

    # raw: read from the bytes, at a fraction of the cost of rclpy's message
    subscribe(node, PointCloud2, topic, on_contacts, qos, callback_group=group, raw=True)
    node.create_subscription(String, f'{topic}/bodies', on_bodies, LATCHED_QOS,
                             callback_group=group)


#: The endpoints ``subscribe_pads`` creates, for a node's INTERFACES table.
PAD_INPUTS = (
    subscribes('tactile/<pad>', 'sensor_msgs/msg/PointCloud2', 'sensor',
               'each of `pads`: contacts estimated from the taxels', when='!contacts'),
    subscribes('<contacts>', 'sensor_msgs/msg/PointCloud2', 'sensor',
               "the pads' contacts (mujoco_sim's `contacts`)", when='contacts'),
    subscribes('<contacts>/bodies', 'std_msgs/msg/String', 'latched',
               'body names by id', when='contacts'),
)


def subscribe_pads(node: Node, refused: Counter, contacts_topic: str,
                   contacts: ObjectContacts | None, pads: list[str], qos: QoSProfile, group,
                   on_contacts: Callable[[PadContacts], None],
                   on_pad: Callable[[str, PointCloud2], None]) -> None:
    """Subscribe to the pads' input: the simulator's contacts, or without them each taxel cloud.

    With ``contacts`` the samples of ``contacts_topic`` go to ``on_contacts`` (see
    ``subscribe_contacts``); otherwise each pad's ``tactile/<pad>`` goes to ``on_pad``.
    """
    if contacts is not None:
        subscribe_contacts(node, refused, contacts_topic, contacts, qos, group, on_contacts)
        return
    for pad in pads:
        subscribe(node, PointCloud2, f'tactile/{pad}', lambda m, pad=pad: on_pad(pad, m), qos,
                  callback_group=group)
