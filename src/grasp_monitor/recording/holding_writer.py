"""Recording on a clock that may not have started: messages before its first time wait."""

from __future__ import annotations

import threading
from typing import Callable

from grasp_monitor.recording.qos import TopicQos
from grasp_monitor.recording.writer import McapRecordingWriter

#: Messages held while a node on simulated time waits for its first /clock.
MAX_HELD = 100_000


class HoldingWriter:
    """Writes each message at the clock's time; holds those that come before it has one.

    Under simulated time the messages received before the first ``/clock``
    (transient-local ones, say) are written when it comes, at its time; any still
    held when the file is closed are written at time 0. Safe from several threads.

    Args:
        writer: the recording.
        now_ns: the clock's time, ns; None while it has none (simulated, no /clock yet).

    Attributes:
        held: (topic, CDR bytes) of the messages waiting for the clock.
        dropped: messages dropped because ``MAX_HELD`` were held already.
    """

    def __init__(self, writer: McapRecordingWriter, now_ns: Callable[[], int | None]) -> None:
        self.writer = writer
        self.now_ns = now_ns
        self.lock = threading.Lock()  # the writer against the final close
        self.held: list[tuple[str, bytes]] = []
        self.dropped = 0

    def add_topic(self, topic: str, type_name: str, qos: TopicQos = TopicQos()) -> None:
        """Open a channel for ``topic`` (see ``McapRecordingWriter.add_topic``)."""
        with self.lock:
            self.writer.add_topic(topic, type_name, qos)

    def flush(self) -> None:
        """Write the held messages, if the clock has a time now."""
        with self.lock:
            self._flush(self.now_ns())

    def _flush(self, now_ns: int | None) -> None:
        """Write the held messages at ``now_ns`` (nothing while it is None); under the lock."""
        if now_ns is not None and self.held and not self.writer.closed:
            for topic, data in self.held:
                self.writer.write(topic, data, now_ns)
            self.held.clear()

    def write(self, topic: str, data: bytes) -> bool:
        """Write (or hold) one message; False when it is dropped, ``MAX_HELD`` being held.

        After ``close`` messages are dropped silently.
        """
        with self.lock:
            if self.writer.closed:
                return True
            now_ns = self.now_ns()
            if now_ns is None:
                if len(self.held) < MAX_HELD:
                    self.held.append((topic, data))
                    return True
                self.dropped += 1
                return False
            self._flush(now_ns)
            self.writer.write(topic, data, now_ns)
            return True

    def close(self) -> int:
        """Finish the file, the messages still held at time 0; return how many those were."""
        with self.lock:
            held = len(self.held)
            self._flush(0)
            self.writer.close()
        return held

    def diagnostics(self) -> dict[str, object]:
        """Return the diagnostic values of the recording: what it holds, messages per topic."""
        counts = dict(self.writer.counts)
        values: dict[str, object] = {'path': self.writer.path, 'topics': len(counts),
                                     'messages': sum(counts.values()),
                                     'held_before_clock': len(self.held),
                                     'dropped_before_clock': self.dropped}
        values.update({f'messages.{topic}': n for topic, n in sorted(counts.items())})
        return values
