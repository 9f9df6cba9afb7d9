"""MCAP recordings of ROS 2 topics, without ROS: schemas, writing, reading, counting.

Files follow the MCAP ``ros2`` profile, as ``ros2 bag`` (rosbag2_storage_mcap) and
Foxglove read them: message encoding ``cdr`` (the bytes as they travelled), schema
encoding ``ros2msg`` (the type's ``.msg`` text followed by every type it uses, each after
a line of 80 ``=`` and ``MSG: <package>/<Name>``), and each channel's
``offered_qos_profiles`` in rosbag2's YAML.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
import importlib.util
import os
from pathlib import Path
import struct
import sys
from typing import Callable, Iterable, Iterator

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.pacing import Pacer
from mcap.exceptions import InvalidMagic, McapError
from mcap.reader import make_reader
from mcap.records import Channel, Message
from mcap.stream_reader import StreamReader
from mcap.writer import CompressionType, Writer
import yaml

PROFILE = 'ros2'
SCHEMA_ENCODING = 'ros2msg'
MESSAGE_ENCODING = 'cdr'
SEPARATOR = '=' * 80
#: Field types that are not messages.
PRIMITIVES = frozenset((
    'bool', 'byte', 'char', 'float32', 'float64', 'int8', 'uint8', 'int16', 'uint16',
    'int32', 'uint32', 'int64', 'uint64', 'string', 'wstring'))
#: First-field types whose CDR starts with a builtin_interfaces/Time (sec, nanosec).
STAMPED_FIRST_FIELDS = frozenset(('std_msgs/Header', 'builtin_interfaces/Time'))
#: rmw enum values of the QoS policies rosbag2 writes (and their short names).
RELIABILITY = {'reliable': 1, 'best_effort': 2}
DURABILITY = {'transient_local': 1, 'volatile': 2}
#: A stamp later than its log time by more than this is on another clock, ns (no message
#: is published after it is received; the slack covers the node clock lagging /clock).
MAX_STAMP_AHEAD_NS = 1_000_000_000
#: A replay this late (wall s) starts pacing afresh from the late message.
MAX_LAG_S = 0.02
COMPRESSION = {'none': CompressionType.NONE, 'lz4': CompressionType.LZ4,
               'zstd': CompressionType.ZSTD}


def split_type(type_name: str) -> tuple[str, str]:
    """Split ``pkg/msg/Name`` or ``pkg/Name`` into (package, Name).

    Raises:
        ConfigError: not a message type name.
    """
    parts = type_name.split('/')
    if len(parts) == 3 and parts[1] == 'msg' or len(parts) == 2:
        if all(parts):
            return parts[0], parts[-1]
    raise ConfigError(f'{type_name!r} is not a message type (package/msg/Name)')


def share_directories(package: str) -> Iterator[Path]:
    """Yield where ``package``'s share directory may be, most specific first.

    The ament index (``AMENT_PREFIX_PATH``), then the prefix the package's Python
    module is installed under (``<prefix>/lib/pythonX.Y/site-packages/<package>``), then
    this interpreter's prefix. The module is located, not imported.
    """
    for prefix in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep):
        if prefix:
            yield Path(prefix) / 'share' / package
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            yield Path(location).parents[3] / 'share' / package
    yield Path(sys.prefix) / 'share' / package


def find_msg_file(type_name: str) -> Path:
    """Return the installed ``.msg`` file of a message type.

    Raises:
        ConfigError: no such file where the package is installed.
    """
    package, name = split_type(type_name)
    tried = []
    for share in share_directories(package):
        path = share / 'msg' / f'{name}.msg'
        if path.is_file():
            return path
        tried.append(str(path.parent))
    raise ConfigError(f'no definition of {package}/msg/{name}: {name}.msg is in none of '
                      f'{", ".join(dict.fromkeys(tried))}')


def field_types(text: str, package: str) -> list[str]:
    """Return the message types (``pkg/Name``) of the fields of a ``.msg`` text, in order.

    Constants and primitive fields are skipped; a bare ``Name`` is of ``package``.
    """
    types = []
    for line in text.splitlines():
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        # constants are of primitive types, so they drop out here too
        kind = line.split()[0].split('[', 1)[0].split('<=', 1)[0]
        if kind in PRIMITIVES:
            continue
        types.append(kind if '/' in kind else f'{package}/{kind}')
    return types


def message_definition(type_name: str,
                       read: Callable[[str], str] | None = None) -> str:
    """Return the ``ros2msg`` schema text of a message type, with all its dependencies.

    Args:
        type_name: ``pkg/msg/Name`` (or ``pkg/Name``).
        read: returns the ``.msg`` text of a ``pkg/Name``; default: the installed file.

    Raises:
        ConfigError: a definition that cannot be found.
    """
    def read_installed(name: str) -> str:
        return find_msg_file(name).read_text()

    read = read or read_installed
    package, name = split_type(type_name)
    root = f'{package}/{name}'
    texts = {root: read(root)}
    pending = [root]
    while pending:  # breadth first, each type once
        current = pending.pop(0)
        for dependency in field_types(texts[current], current.split('/')[0]):
            if dependency not in texts:
                texts[dependency] = read(dependency)
                pending.append(dependency)
    parts = [texts.pop(root).rstrip()]
    for dependency, text in texts.items():
        parts += [SEPARATOR, f'MSG: {dependency}', text.rstrip()]
    return '\n'.join(parts) + '\n'


def is_stamped(definition: str, package: str) -> bool:
    """Whether a type's first field is a header or a time, so its CDR starts with a stamp."""
    for line in definition.split(SEPARATOR, 1)[0].splitlines():
        line = line.split('#', 1)[0].strip()
        if line:
            kind = line.split()[0]
            return (kind if '/' in kind else f'{package}/{kind}') in STAMPED_FIRST_FIELDS
    return False


def cdr_stamp_ns(data: bytes) -> int | None:
    """Return the stamp a CDR message starts with, ns (None if too short)."""
    if len(data) < 12:
        return None
    order = '<' if data[1] & 1 else '>'  # encapsulation kind: odd is little endian
    sec, nanosec = struct.unpack(order + 'iI', data[4:12])
    return sec * 1_000_000_000 + nanosec


@dataclass(frozen=True)
class TopicQos:
    """The QoS a topic was offered with, as far as matching goes.

    Attributes:
        reliable: reliable (else best effort).
        transient_local: transient local durability (else volatile).
        depth: history depth (keep last).
    """

    reliable: bool = True
    transient_local: bool = False
    depth: int = 10

    def to_yaml(self) -> str:
        """Return rosbag2's ``offered_qos_profiles`` text (one profile; durations unset)."""
        unset = {'sec': 0, 'nsec': 0}
        return yaml.safe_dump([{
            'history': 1, 'depth': self.depth,
            'reliability': RELIABILITY['reliable' if self.reliable else 'best_effort'],
            'durability': DURABILITY['transient_local' if self.transient_local
                                     else 'volatile'],
            'deadline': unset, 'lifespan': unset, 'liveliness': 1,
            'liveliness_lease_duration': unset, 'avoid_ros_namespace_conventions': False,
        }], sort_keys=False)

    @classmethod
    def from_yaml(cls, text: str) -> 'TopicQos':
        """Read ``offered_qos_profiles`` (rmw integers or rosbag2's names); default if empty.

        With several publishers, the topic is reliable or transient local only if all were.
        """
        try:
            profiles = yaml.safe_load(text) or []
        except yaml.YAMLError:
            profiles = []
        if not isinstance(profiles, list) or not profiles:
            return cls()

        def value(profile: dict, key: str, names: dict[str, int]) -> int:
            raw = profile.get(key, 0)
            return names.get(str(raw).lower(), raw) if isinstance(raw, str) else raw

        return cls(
            reliable=all(value(p, 'reliability', RELIABILITY) != 2 for p in profiles),
            transient_local=all(value(p, 'durability', DURABILITY) == 1 for p in profiles),
            depth=max(int(p.get('depth', 0) or 0) for p in profiles) or 10)


def offered_qos(reliable: Iterable[bool], transient_local: Iterable[bool],
                depth: int = 10) -> TopicQos:
    """Return the QoS that matches every publisher of a topic, each given by its policies.

    A reliable subscription does not match a best-effort publisher, nor a transient-local
    one a volatile publisher, so either holds only if every publisher offers it.
    """
    reliable, transient_local = list(reliable), list(transient_local)
    return TopicQos(all(reliable), bool(transient_local) and all(transient_local), depth)


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


@dataclass(frozen=True)
class PlaybackConfig:
    """How a recording is played back.

    Attributes:
        selection: the topics played (the clock topic is played as the clock).
        rate: recorded seconds per wall second (0 = as fast as possible).
        loop: start again from the beginning at the end.
        clock_topic: the recorded clock, played as it is when recorded and selected.
        clock_period_ns: without a recorded clock, a clock is made from the log times
            with this period, ns (0 = none).
    """

    selection: TopicSelection = TopicSelection()
    rate: float = 1.0
    loop: bool = False
    clock_topic: str = '/clock'
    clock_period_ns: int = 10_000_000

    def __post_init__(self) -> None:
        if not 0 <= self.rate <= 1000:
            raise ConfigError(f'rate must be in [0, 1000] (0 = as fast as possible), '
                              f'got {self.rate}')
        if self.clock_period_ns < 0:
            raise ConfigError(f'clock_period_ns must be >= 0, got {self.clock_period_ns}')


class Player:
    """Plays a finished recording's messages as recorded, paced by log time on the wall clock.

    Messages go out in the order they were written, which is log-time order unless log
    time went back (a recording on simulated time across a reset): pacing then starts
    afresh from the message that went back, so each timeline plays as it ran. A made
    clock never goes back: it ticks again once log time passes its last tick.

    The clock is the recording's own clock topic when it has one (each message's stamp);
    otherwise one is made from the log times. Pausing and resuming are safe from other
    threads; pacing restarts from the current message on resume, and when playback falls
    more than ``MAX_LAG_S`` behind (counted in ``late``): a loaded machine slows it down
    instead of making it send a burst, so subscribers see the recorded spacing.

    Args:
        path: the MCAP file.
        config: what and how to play.
        publish: called with (topic, CDR bytes) for every message played, the recorded
            clock included.
        clock: called with the time (ns) of every made clock tick.

    Raises:
        ConfigError: not a finished recording, or a selection that matches no topic.
    """

    def __init__(self, path: str | os.PathLike, config: PlaybackConfig,
                 publish: Callable[[str, bytes], None],
                 clock: Callable[[int], None] | None = None) -> None:
        self.path = path
        self.config = config
        self.topics = read_topics(path)
        self.start_ns = recording_start_ns(path)
        selection = config.selection
        self.recorded_clock = config.clock_topic in self.topics and \
            config.clock_topic not in selection.exclude
        self.played = {t: info for t, info in self.topics.items()
                       if selection.wants(t) or self.recorded_clock
                       and t == config.clock_topic}
        if not self.played:
            raise ConfigError(f'no topic of {path} is selected; it has '
                              f'{", ".join(sorted(self.topics))}')
        self._publish = publish
        self._clock = clock
        self.counts: Counter[str] = Counter()
        self.clock_ns: int | None = None
        self.state = 'playing'
        self._pause_at_ns: int | None = None
        self.pacer = Pacer(config.rate, unit_s=1e-9)
        self.late = 0

    @property
    def paused(self) -> bool:
        """Whether playback is suspended."""
        return self.pacer.paused

    def set_paused(self, paused: bool) -> None:
        """Suspend or resume playback."""
        self.pacer.set_paused(paused)

    def pause_at(self, log_time_ns: int | None) -> None:
        """Pause before the first message logged after ``log_time_ns`` (None: never)."""
        self._pause_at_ns = log_time_ns

    def stop(self) -> None:
        """Make ``run`` return after the current message."""
        self.pacer.stop()

    def _wait(self, log_time_ns: int) -> bool:
        """Wait until a message is due or playback pauses/stops; True when it is due."""
        pacer = self.pacer
        while not pacer.stopped:
            pause_at = self._pause_at_ns
            if pause_at is not None and log_time_ns > pause_at:
                self._pause_at_ns = None
                self.set_paused(True)
            if pacer.paused:
                self.state = 'paused'
                pacer.sleep(0.01)
                continue
            self.state = 'playing'
            if pacer.rate == 0:
                return True
            delay = pacer.delay_s(log_time_ns)
            if delay < -MAX_LAG_S:  # late: slow down rather than bunch messages up
                pacer.rebase()
                self.late += 1
                continue
            if delay <= 0:
                return True
            pacer.sleep(min(delay, 0.01))
        return False

    def _play_once(self) -> bool:
        """Play the file once; False when stopped."""
        period = self.config.clock_period_ns if self._clock is not None else 0
        next_tick_ns: int | None = None
        last_ns: int | None = None
        self.clock_ns = None
        for message in read_messages(self.path, sorted(self.played), log_time_order=False):
            if last_ns is not None and message.log_time_ns < last_ns:
                self.pacer.rebase()  # a new timeline (a reset), not lateness
            last_ns = message.log_time_ns
            if not self.recorded_clock and period:
                next_tick_ns = message.log_time_ns if next_tick_ns is None else next_tick_ns
                while next_tick_ns <= message.log_time_ns:
                    if not self._wait(next_tick_ns):
                        return False
                    self._clock(next_tick_ns)
                    self.clock_ns = next_tick_ns
                    next_tick_ns += period
            if not self._wait(message.log_time_ns):
                return False
            self._publish(message.topic, message.data)
            self.counts[message.topic] += 1
            if self.recorded_clock and message.topic == self.config.clock_topic:
                self.clock_ns = cdr_stamp_ns(message.data)
        return True

    def run(self) -> None:
        """Play until the end (again and again with ``loop``) or ``stop()``."""
        while self._play_once() and self.config.loop and not self.pacer.stopped:
            self.pacer.rebase()
        self.state = 'stopped' if self.pacer.stopped else 'done'
