"""Writing an MCAP recording: the topics chosen, each message's CDR bytes as it travelled."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
import os
from pathlib import Path
from typing import Callable

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.recording.qos import TopicQos
from grasp_monitor.recording.schemas import (
    cdr_stamp_ns, is_stamped, message_definition, MESSAGE_ENCODING, PROFILE, SCHEMA_ENCODING,
    split_type)
from mcap.writer import CompressionType, Writer


#: A stamp later than its log time by more than this is on another clock, ns (no message
#: is published after it is received; the slack covers the node clock lagging /clock).
MAX_STAMP_AHEAD_NS = 1_000_000_000


COMPRESSION = {'none': CompressionType.NONE, 'lz4': CompressionType.LZ4,
               'zstd': CompressionType.ZSTD}


@dataclass(frozen=True)
class TopicSelection:
    """Which topics a recording or a replay takes, by full name.

    Attributes:
        topics: the topics taken; empty = every topic.
        exclude: topics never taken.
    """

    topics: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in (*self.topics, *self.exclude):
            if not name.startswith('/'):
                raise ConfigError(f'topic {name!r} must be a full name (starting with /)')

    def wants(self, topic: str) -> bool:
        """Whether ``topic`` is taken."""
        return (not self.topics or topic in self.topics) and topic not in self.exclude


class McapRecordingWriter:
    """Writes CDR messages to an MCAP file of the ``ros2`` profile, counting them per topic.

    Args:
        path: the file to create (its directory must exist).
        compression: chunk compression: ``none``, ``lz4`` or ``zstd``.
        definition: returns the schema text of a type; default ``message_definition``.

    Raises:
        ConfigError: the file cannot be created, or an unknown compression.
    """

    def __init__(self, path: str | os.PathLike, compression: str = 'zstd',
                 definition: Callable[[str], str] = message_definition) -> None:
        if compression not in COMPRESSION:
            raise ConfigError(f'compression {compression!r} is not one of '
                              f'{", ".join(COMPRESSION)}')
        try:
            self._file = open(path, 'wb')
        except OSError as error:
            raise ConfigError(f'cannot write the recording {path}: {error}') from error
        self.path = Path(path)
        self._definition = definition
        self._writer = Writer(self._file, compression=COMPRESSION[compression])
        self._writer.start(profile=PROFILE, library='grasp_monitor')
        self._schemas: dict[str, tuple[int, bool]] = {}
        self._channels: dict[str, tuple[int, bool]] = {}
        self.counts: Counter[str] = Counter()
        self.closed = False

    def add_topic(self, topic: str, type_name: str, qos: TopicQos = TopicQos()) -> None:
        """Open a channel for ``topic`` (again for the same topic: nothing happens).

        Raises:
            ConfigError: the type's definition cannot be found.
        """
        if topic in self._channels:
            return
        package, name = split_type(type_name)
        schema_name = f'{package}/msg/{name}'
        if schema_name not in self._schemas:
            text = self._definition(schema_name)
            schema_id = self._writer.register_schema(
                schema_name, SCHEMA_ENCODING, text.encode())
            self._schemas[schema_name] = (schema_id, is_stamped(text, package))
        schema_id, stamped = self._schemas[schema_name]
        channel_id = self._writer.register_channel(
            topic, MESSAGE_ENCODING, schema_id, {'offered_qos_profiles': qos.to_yaml()})
        self._channels[topic] = (channel_id, stamped)
        self.counts[topic] += 0

    def write(self, topic: str, data: bytes, log_time_ns: int) -> None:
        """Append one CDR message, logged at ``log_time_ns``.

        Its publish time is the stamp it starts with (header or time), unless it has none,
        a zero one, or one more than ``MAX_STAMP_AHEAD_NS`` after the log time: a stamp
        on another clock (a wall-clock stamp recorded on simulated time, say). Then it
        is the log time, so every record is on the recording's one clock.
        """
        channel_id, stamped = self._channels[topic]
        stamp_ns = cdr_stamp_ns(data) if stamped else None
        publish_time_ns = stamp_ns if stamp_ns and \
            stamp_ns <= log_time_ns + MAX_STAMP_AHEAD_NS else log_time_ns
        self._writer.add_message(
            channel_id, log_time=log_time_ns, data=data,
            publish_time=publish_time_ns, sequence=self.counts[topic])
        self.counts[topic] += 1

    def close(self) -> None:
        """Finish the file: last chunk, summary, indexes and footer. Idempotent."""
        if not self.closed:
            self.closed = True
            self._writer.finish()
            self._file.close()
