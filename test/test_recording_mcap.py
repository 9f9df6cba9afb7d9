"""MCAP recordings without ROS: schema text, writing, reading back, counting."""

import struct
import subprocess
import sys
import threading

from common import wait_for
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.recording import (
    cdr_stamp_ns, field_types, HoldingWriter, McapRecordingWriter, message_counts,
    message_definition, offered_qos, PlaybackConfig, Player, read_messages, read_topics,
    SEPARATOR, TopicQos, TopicSelection)
from grasp_monitor.recording import holding_writer
from mcap.reader import make_reader
import pytest


def stamped_cdr(sec, nanosec, payload=b''):
    """CDR (little endian) of a message whose first field is a time: sec, nanosec, more."""
    return b'\x00\x01\x00\x00' + struct.pack('<iI', sec, nanosec) + payload


def test_joint_state_definition_carries_its_dependencies_once():
    text = message_definition('sensor_msgs/msg/JointState')
    assert text.startswith('# This is a message that holds data')
    assert 'std_msgs/Header header\n' in text and 'float64[] effort' in text
    sections = text.split(SEPARATOR + '\n')
    assert [s.splitlines()[0] for s in sections[1:]] == \
        ['MSG: std_msgs/Header', 'MSG: builtin_interfaces/Time']
    assert 'int32 sec' in sections[2] and 'uint32 nanosec' in sections[2]


def test_dependencies_come_from_bare_names_arrays_and_bounds_not_constants():
    texts = {
        'demo/Outer': 'uint8 KIND_A=1  # constant\nInner[] inners\nother/Thing[<=3] things\n'
                      'string<=8 label\nInner single\n',
        'demo/Inner': 'builtin_interfaces/Time stamp\n',
        'other/Thing': 'float64 x 0.5\n',
        'builtin_interfaces/Time': 'int32 sec\nuint32 nanosec\n',
    }
    assert field_types(texts['demo/Outer'], 'demo') == \
        ['demo/Inner', 'other/Thing', 'demo/Inner']
    text = message_definition('demo/msg/Outer', texts.__getitem__)
    assert [line for line in text.splitlines() if line.startswith('MSG:')] == \
        ['MSG: demo/Inner', 'MSG: other/Thing', 'MSG: builtin_interfaces/Time']


def test_an_unknown_type_says_where_it_was_looked_for():
    with pytest.raises(ConfigError, match=r'no definition of sensor_msgs/msg/NoSuch: '
                                          r'NoSuch.msg is in none of .*sensor_msgs/msg'):
        message_definition('sensor_msgs/msg/NoSuch')
    with pytest.raises(ConfigError, match="'JointState' is not a message type"):
        message_definition('JointState')


def test_stamp_of_little_and_big_endian_cdr():
    assert cdr_stamp_ns(stamped_cdr(3, 250)) == 3_000_000_250
    assert cdr_stamp_ns(b'\x00\x00\x00\x00' + struct.pack('>iI', 2, 7)) == 2_000_000_007
    assert cdr_stamp_ns(b'\x00\x01\x00\x00') is None


def test_written_file_reads_back_with_counts_times_and_qos(tmp_path):
    path = tmp_path / 'trial.mcap'
    writer = McapRecordingWriter(path)
    writer.add_topic('/clock', 'rosgraph_msgs/msg/Clock')
    writer.add_topic('/ns/events', 'diagnostic_msgs/msg/DiagnosticStatus',
                     TopicQos(reliable=True, transient_local=True, depth=100))
    writer.add_topic('/ns/quiet', 'std_msgs/msg/Float64', TopicQos(reliable=False))
    writer.add_topic('/clock', 'rosgraph_msgs/msg/Clock')  # again: no second channel
    for i in range(5):
        writer.write('/clock', stamped_cdr(0, 2_000_000 * i), 1_000 + i)
    writer.write('/ns/events', b'\x00\x01\x00\x00' + bytes(8), 2_000)
    # a stamp on another clock (wall time, logged on simulated time): the log time
    writer.write('/clock', stamped_cdr(1_700_000_000, 0), 3_000_000_000)
    writer.close()
    writer.close()
    assert message_counts(path) == {'/clock': 6, '/ns/events': 1, '/ns/quiet': 0}
    messages = list(read_messages(path))
    assert [m.topic for m in messages] == ['/clock'] * 5 + ['/ns/events', '/clock']
    # publish time is the stamp the message carries; without one, the log time
    assert [m.publish_time_ns for m in messages] == [1_000, 2_000_000, 4_000_000, 6_000_000,
                                                     8_000_000, 2_000, 3_000_000_000]
    assert messages[2].data == stamped_cdr(0, 4_000_000) and messages[2].log_time_ns == 1_002
    assert [m.topic for m in read_messages(path, ['/ns/events'])] == ['/ns/events']
    topics = read_topics(path)
    assert topics['/ns/events'].qos == TopicQos(True, True, 100)
    assert topics['/ns/quiet'].qos == TopicQos(False, False, 10)
    assert topics['/clock'].type_name == 'rosgraph_msgs/msg/Clock'
    assert 'MSG: builtin_interfaces/Time' in topics['/clock'].definition
    with path.open('rb') as stream:
        reader = make_reader(stream)
        assert reader.get_header().profile == 'ros2'
        summary = reader.get_summary()
    assert {s.encoding for s in summary.schemas.values()} == {'ros2msg'}
    assert {c.message_encoding for c in summary.channels.values()} == {'cdr'}
    assert summary.chunk_indexes


def test_messages_before_the_clock_wait_for_it(tmp_path, monkeypatch):
    monkeypatch.setattr(holding_writer, 'MAX_HELD', 2)
    clock = [None]
    output = HoldingWriter(McapRecordingWriter(tmp_path / 'sim.mcap'), lambda: clock[0])
    output.add_topic('/a', 'std_msgs/msg/Float64')
    assert output.write('/a', bytes(12)) and output.write('/a', bytes(12))
    assert not output.write('/a', bytes(12)) and output.dropped == 1
    output.flush()  # no clock yet: still held
    assert output.diagnostics() == {
        'path': tmp_path / 'sim.mcap', 'topics': 1, 'messages': 0, 'held_before_clock': 2,
        'dropped_before_clock': 1, 'messages./a': 0}
    clock[0] = 7
    assert output.write('/a', bytes(12)) and not output.held
    clock[0] = None
    assert output.write('/a', bytes(12)) and output.close() == 1
    assert output.write('/a', bytes(12))  # closed: dropped silently
    assert [m.log_time_ns for m in read_messages(tmp_path / 'sim.mcap')] == [0, 7, 7, 7]


def test_an_unfinished_file_is_counted_up_to_where_it_breaks_off(tmp_path):
    path = tmp_path / 'killed.mcap'
    writer = McapRecordingWriter(path, compression='lz4')
    writer.add_topic('/clock', 'rosgraph_msgs/msg/Clock')
    for i in range(3):
        writer.write('/clock', stamped_cdr(i, 0), i)
    writer.close()
    data = path.read_bytes()
    with path.open('rb') as stream:
        last_chunk = make_reader(stream).get_summary().chunk_indexes[-1]
    data_end = last_chunk.chunk_start_offset + last_chunk.chunk_length
    (tmp_path / 'cut.mcap').write_bytes(data[:data_end + 3])
    assert message_counts(tmp_path / 'cut.mcap') == {'/clock': 3}
    with pytest.raises(ConfigError, match='is not a finished MCAP recording'):
        read_topics(tmp_path / 'cut.mcap')
    (tmp_path / 'text.mcap').write_text('not a recording')
    with pytest.raises(ConfigError, match='is not an MCAP file'):
        message_counts(tmp_path / 'text.mcap')
    with pytest.raises(ConfigError, match='cannot read the recording'):
        message_counts(tmp_path / 'missing.mcap')
    with pytest.raises(ConfigError, match='cannot write the recording'):
        McapRecordingWriter(tmp_path / 'no' / 'dir.mcap')
    with pytest.raises(ConfigError, match="compression 'bz2' is not one of none, lz4, zstd"):
        McapRecordingWriter(tmp_path / 'x.mcap', compression='bz2')


def test_qos_matches_every_publisher_and_round_trips_rosbag2_yaml():
    assert offered_qos([True, True], [True, True], 7) == TopicQos(True, True, 7)
    assert offered_qos([True, False], [True, False]) == TopicQos(False, False, 10)
    assert TopicQos.from_yaml(TopicQos(False, True, 3).to_yaml()) == TopicQos(False, True, 3)
    # rosbag2 of newer distros writes policy names; several publishers: the weakest
    names = ('- {history: keep_last, depth: 5, reliability: reliable, durability: volatile}\n'
             '- {history: keep_last, depth: 1, reliability: reliable, '
             'durability: transient_local}\n')
    assert TopicQos.from_yaml(names) == TopicQos(True, False, 5)
    assert TopicQos.from_yaml('') == TopicQos() == TopicQos.from_yaml(': not yaml [')


def test_topic_selection():
    every = TopicSelection(exclude=('/rosout',))
    assert every.wants('/clock') and not every.wants('/rosout')
    some = TopicSelection(('/clock', '/ns/joint_states'))
    assert some.wants('/clock') and not some.wants('/ns/tactile/left')
    with pytest.raises(ConfigError, match="topic 'clock' must be a full name"):
        TopicSelection(('clock',))


def test_recording_module_does_not_load_ros():
    code = ('import sys, grasp_monitor.recording\n'
            "leaks = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('rclpy', 'std_msgs', 'sensor_msgs', 'rosgraph_msgs'))\n"
            'assert not leaks, leaks\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def clock_recording(path, clock=True):
    """Write 5 clock ticks 2 ms apart and a reading logged 1 ms after each."""
    writer = McapRecordingWriter(path, compression='none')
    if clock:
        writer.add_topic('/clock', 'rosgraph_msgs/msg/Clock')
    writer.add_topic('/ns/joint_states', 'sensor_msgs/msg/JointState')
    writer.add_topic('/ns/events', 'diagnostic_msgs/msg/DiagnosticStatus')
    for i in range(5):
        log_ns = 1_000_000_000 + 2_000_000 * i
        if clock:
            writer.write('/clock', stamped_cdr(0, 2_000_000 * i), log_ns)
        writer.write('/ns/joint_states', stamped_cdr(0, 2_000_000 * i, b'joints'),
                     log_ns + 1_000_000)
    writer.close()
    return path


def test_player_plays_every_selected_message_in_order_with_the_recorded_clock(tmp_path):
    path = clock_recording(tmp_path / 'a.mcap')
    played, ticks = [], []
    player = Player(path, PlaybackConfig(TopicSelection(('/ns/joint_states',)), rate=0.0),
                    lambda topic, data: played.append((topic, cdr_stamp_ns(data))),
                    ticks.append)
    assert player.recorded_clock and sorted(player.played) == ['/clock', '/ns/joint_states']
    assert player.start_ns == 1_000_000_000
    player.run()
    # the recorded clock is played as it is; no clock is made beside it
    assert played == [(topic, 2_000_000 * i) for i in range(5)
                      for topic in ('/clock', '/ns/joint_states')]
    assert ticks == [] and player.state == 'done' and player.clock_ns == 8_000_000
    assert player.counts == {'/clock': 5, '/ns/joint_states': 5}


def test_player_makes_a_clock_from_log_times_without_a_recorded_one(tmp_path):
    path = clock_recording(tmp_path / 'b.mcap', clock=False)
    played, ticks = [], []
    config = PlaybackConfig(rate=0.0, clock_period_ns=3_000_000)
    Player(path, config, lambda topic, data: played.append(topic), ticks.append).run()
    # ticks every 3 ms from the first log time, each before the messages logged after it
    assert ticks == [1_001_000_000, 1_004_000_000, 1_007_000_000]
    assert played == ['/ns/joint_states'] * 5
    excluded = PlaybackConfig(TopicSelection(exclude=('/clock',)), rate=0.0,
                              clock_period_ns=4_000_000)
    ticks.clear()
    player = Player(clock_recording(tmp_path / 'c.mcap'), excluded, lambda t, d: None,
                    ticks.append)
    player.run()
    assert not player.recorded_clock and ticks == [1_001_000_000, 1_005_000_000,
                                                   1_009_000_000]


def test_player_pauses_after_a_log_time_and_resumes_from_there(tmp_path):
    path = clock_recording(tmp_path / 'd.mcap')
    played = []
    player = Player(path, PlaybackConfig(rate=0.0), lambda t, d: played.append(t))
    player.pause_at(1_004_000_000)  # after the third clock tick
    thread = threading.Thread(target=player.run)
    thread.start()
    assert wait_for(lambda: player.state == 'paused')
    assert sum(player.counts.values()) == 5 and player.clock_ns == 4_000_000
    player.set_paused(False)
    thread.join(timeout=10.0)
    assert player.state == 'done' and sum(player.counts.values()) == 10


def test_player_loops_until_stopped_and_refuses_a_selection_of_nothing(tmp_path):
    path = clock_recording(tmp_path / 'e.mcap')
    player = Player(path, PlaybackConfig(rate=0.0, loop=True),
                    lambda t, d: player.counts['/clock'] >= 12 and player.stop())
    player.run()
    assert player.state == 'stopped' and player.counts['/clock'] >= 12
    with pytest.raises(ConfigError, match='no topic of .* is selected; it has /clock, '
                                          '/ns/events, /ns/joint_states'):
        Player(path, PlaybackConfig(TopicSelection(('/other',)), rate=0.0,
                                    clock_topic='/other_clock'), lambda t, d: None)
    with pytest.raises(ConfigError, match=r'rate must be in \[0, 1000\]'):
        PlaybackConfig(rate=-1.0)


def test_player_plays_a_recording_across_a_reset_as_it_ran(tmp_path):
    # simulated log times: three ticks from 2 s, then a reset back to 0 and two more
    path = tmp_path / 'reset.mcap'
    writer = McapRecordingWriter(path, compression='none')
    writer.add_topic('/clock', 'rosgraph_msgs/msg/Clock')
    writer.add_topic('/ns/joint_states', 'sensor_msgs/msg/JointState')
    times_ns = [2_000_000_000, 2_002_000_000, 2_004_000_000, 0, 2_000_000]
    for time_ns in times_ns:
        stamp = stamped_cdr(*divmod(time_ns, 1_000_000_000))
        writer.write('/clock', stamp, time_ns)
        writer.write('/ns/joint_states', stamp, time_ns + 1_000_000)
    writer.close()
    played = []
    player = Player(path, PlaybackConfig(rate=1.0),
                    lambda t, d: t == '/clock' and played.append(cdr_stamp_ns(d)))
    player.run()
    # in the order recorded, not log-time order; the reset is no lateness
    assert played == times_ns and player.late == 0
    assert [m.log_time_ns for m in read_messages(path, ['/clock'])] == sorted(times_ns)
    ticks = []
    made = PlaybackConfig(TopicSelection(exclude=('/clock',)), rate=0.0,
                          clock_period_ns=3_000_000)
    Player(path, made, lambda t, d: None, ticks.append).run()
    # a made clock never goes back (subscribers would take it for a reset)
    assert ticks == [2_001_000_000, 2_004_000_000]
