"""Lost inputs: messages that never reached a node's callbacks, counted by topic.

The middleware's own count (the ``message_lost`` QoS event, which Fast DDS raises for
samples lost on the way) plus the gaps in each publisher's publication sequence numbers,
which is how a subscription queue that overflowed shows (Fast DDS replaces the oldest
sample of a full KEEP_LAST queue without an event). ``subscription.subscribe`` feeds them.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from grasp_monitor.core.monitor import StampGrid
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.node import Node


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


def lost_counts(node: Node) -> dict[str, int]:
    """Return the node's lost inputs as diagnostic values (``LostInputs.counts``)."""
    return lost_inputs(node).counts()


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
