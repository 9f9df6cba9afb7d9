"""MCAP recordings of ROS 2 topics, without ROS: schemas, writing, reading, playing back.

Files follow the MCAP ``ros2`` profile, as ``ros2 bag`` (rosbag2_storage_mcap) and
Foxglove read them: message encoding ``cdr`` (the bytes as they travelled), schema
encoding ``ros2msg`` and each channel's ``offered_qos_profiles`` in rosbag2's YAML.
"""

from grasp_monitor.recording.holding_writer import HoldingWriter, MAX_HELD
from grasp_monitor.recording.player import PlaybackConfig, Player
from grasp_monitor.recording.qos import offered_qos, TopicQos
from grasp_monitor.recording.reader import (
    message_counts, read_messages, read_topics, RecordedMessage, RecordedTopic,
    recording_start_ns)
from grasp_monitor.recording.schemas import (
    cdr_stamp_ns, field_types, find_msg_file, is_stamped, message_definition, SEPARATOR,
    split_type)
from grasp_monitor.recording.writer import COMPRESSION, McapRecordingWriter, TopicSelection

__all__ = [
    'cdr_stamp_ns', 'COMPRESSION', 'field_types', 'find_msg_file', 'HoldingWriter', 'is_stamped',
    'MAX_HELD', 'McapRecordingWriter', 'message_counts', 'message_definition', 'offered_qos',
    'PlaybackConfig', 'Player', 'read_messages', 'read_topics', 'RecordedMessage',
    'RecordedTopic', 'recording_start_ns', 'SEPARATOR', 'split_type', 'TopicQos', 'TopicSelection',
]
