"""Reading an MCAP recording: its topics, its messages in order, their counts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
import os
import struct
from typing import Iterable, Iterator

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.recording.qos import TopicQos
from grasp_monitor.recording.schemas import MESSAGE_ENCODING
from mcap.exceptions import InvalidMagic, McapError
from mcap.reader import make_reader
from mcap.records import Channel, Message
from mcap.stream_reader import StreamReader


@dataclass(frozen=True)
class RecordedTopic:
    """A topic of a recording: its type, offered QoS and schema text."""

    name: str
    type_name: str
    qos: TopicQos
    definition: str


@dataclass(frozen=True)
class RecordedMessage:
    """One message of a recording: topic, CDR bytes, log and publish times (ns)."""

    topic: str
    data: bytes
    log_time_ns: int
    publish_time_ns: int


def _open(path: str | os.PathLike):
    try:
        return open(path, 'rb')
    except OSError as error:
        raise ConfigError(f'cannot read the recording {path}: {error}') from error


def _read_summary(path: str | os.PathLike):
    with _open(path) as stream:
        try:
            summary = make_reader(stream).get_summary()
        except (McapError, ValueError, struct.error) as error:
            raise ConfigError(f'{path} is not a finished MCAP recording: {error}') from error
    if summary is None:
        raise ConfigError(f'{path} is not a finished MCAP recording: it has no summary')
    return summary


def read_topics(path: str | os.PathLike) -> dict[str, RecordedTopic]:
    """Return the topics of a finished recording, by name.

    Raises:
        ConfigError: not an MCAP file, or one whose recorder did not finish it.
    """
    summary = _read_summary(path)
    topics = {}
    for channel in summary.channels.values():
        schema = summary.schemas.get(channel.schema_id)
        if schema is None or channel.message_encoding != MESSAGE_ENCODING:
            continue
        topics[channel.topic] = RecordedTopic(
            channel.topic, schema.name,
            TopicQos.from_yaml(channel.metadata.get('offered_qos_profiles', '')),
            schema.data.decode())
    return topics


def recording_start_ns(path: str | os.PathLike) -> int:
    """Return the log time of the first message of a finished recording, ns (0 if none).

    Raises:
        ConfigError: not an MCAP file, or one whose recorder did not finish it.
    """
    statistics = _read_summary(path).statistics
    return statistics.message_start_time if statistics is not None else 0


def read_messages(path: str | os.PathLike, topics: Iterable[str] | None = None,
                  log_time_order: bool = True) -> Iterator[RecordedMessage]:
    """Yield the CDR messages of a finished recording in log-time order.

    Args:
        path: the MCAP file.
        topics: only these topics (None: all).
        log_time_order: in log-time order; False: in the order they were written
            (the same, unless log time went back: a reset of a simulated clock).

    Raises:
        ConfigError: not a readable MCAP file.
    """
    wanted = None if topics is None else list(topics)
    with _open(path) as stream:
        try:
            reader = make_reader(stream)
            for _, channel, message in reader.iter_messages(
                    topics=wanted, log_time_order=log_time_order):
                yield RecordedMessage(channel.topic, message.data, message.log_time,
                                      message.publish_time)
        except (McapError, struct.error) as error:
            raise ConfigError(f'{path} is not a readable MCAP file: {error}') from error


def message_counts(path: str | os.PathLike) -> dict[str, int]:
    """Return the number of messages of each topic of a recording (0 for a silent topic).

    A finished file is counted from its summary statistics; an unfinished one (its
    recorder was killed) by reading every record up to where it breaks off.

    Raises:
        ConfigError: not an MCAP file.
    """
    with _open(path) as stream:
        try:
            summary = make_reader(stream).get_summary()
        except (McapError, ValueError, struct.error):
            summary = None
        if summary is not None and summary.statistics is not None:
            counts = summary.statistics.channel_message_counts
            return {channel.topic: counts.get(channel_id, 0)
                    for channel_id, channel in summary.channels.items()}
        stream.seek(0)
        return _count_records(stream, path)


def _count_records(stream, path) -> dict[str, int]:
    topics: dict[int, str] = {}
    counts: Counter[str] = Counter()
    records = StreamReader(stream, skip_magic=False, emit_chunks=False).records
    try:
        for record in records:
            if isinstance(record, Channel):
                topics[record.id] = record.topic
                counts[record.topic] += 0
            elif isinstance(record, Message):
                counts[topics[record.channel_id]] += 1
    except InvalidMagic as error:
        raise ConfigError(f'{path} is not an MCAP file: {error}') from error
    except (McapError, struct.error, ValueError):
        pass  # the file breaks off where its recorder was killed
    return dict(counts)
