"""Where ROS messages meet core values: pure functions, one per direction.

One module per message family: ``clock`` (time stamps, the clock), ``joints`` (joint
states, servo commands), ``tactile`` (tactile clouds, markers), ``contacts`` (contact
clouds and arrows, body names), ``poses`` (tf, odometry), ``diagnostics`` (diagnostics,
verdicts, stamped values), ``event_markers`` (the monitor's events as rviz text). Every
name is offered here: ``conversions.time_to_msg(...)``. ``cdr_reader`` and
``cdr_template`` read and write the bytes of messages (raw subscriptions,
``read_message``; streams published as bytes, ``serialized``), and every ``*_from_msg``
takes what ``read_message`` returns.
"""

from grasp_monitor.nodes.conversions.cdr_reader import read_message
from grasp_monitor.nodes.conversions.clock import clock_to_msg, time_from_msg, time_to_msg
from grasp_monitor.nodes.conversions.contacts import (
    ARROW_SIZES_M, body_names_from_msg, body_names_to_msg, CONTACT_FIELDS,
    contact_markers_to_msg, pad_contacts_from_msg, pad_contacts_to_msg)
from grasp_monitor.nodes.conversions.diagnostics import (
    diagnostic_status, LEVELS, stamped_value_from_msg, stamped_value_to_msg,
    stamped_vector_to_msg, VERDICT,
    verdict_from_msg, verdict_to_msg)
from grasp_monitor.nodes.conversions.event_markers import (
    event_markers_to_msg, EVENT_NAMESPACE, event_text)
from grasp_monitor.nodes.conversions.joints import (
    joint_state_from_msg, joint_state_to_msg, joint_velocities_from_msg,
    servo_command_from_joint_state, servo_command_from_multiarray, servo_command_to_multiarray)
from grasp_monitor.nodes.conversions.poses import (
    body_state_from_odometry, frame_transforms_from_msg, odometry_from_body_arrays,
    tf_message, UNIT_QUATERNION_TOLERANCE)
from grasp_monitor.nodes.conversions.tactile import (
    MARKER_LEVELS, SLIP_FIELDS, tactile_cloud_from_msg, tactile_cloud_to_msg, TACTILE_FIELDS,
    tactile_markers_to_msg, tactile_reading_from_msg, tactile_slip_from_msg)

__all__ = [
    'ARROW_SIZES_M', 'body_names_from_msg', 'body_names_to_msg', 'body_state_from_odometry',
    'clock_to_msg', 'contact_markers_to_msg', 'CONTACT_FIELDS', 'diagnostic_status',
    'event_markers_to_msg', 'EVENT_NAMESPACE', 'event_text', 'frame_transforms_from_msg',
    'joint_state_from_msg', 'joint_state_to_msg', 'joint_velocities_from_msg', 'LEVELS',
    'MARKER_LEVELS',
    'odometry_from_body_arrays', 'pad_contacts_from_msg', 'pad_contacts_to_msg', 'read_message',
    'servo_command_from_joint_state', 'servo_command_from_multiarray',
    'servo_command_to_multiarray', 'SLIP_FIELDS', 'stamped_value_from_msg',
    'stamped_value_to_msg', 'stamped_vector_to_msg',
    'TACTILE_FIELDS', 'tactile_cloud_from_msg', 'tactile_cloud_to_msg', 'tactile_markers_to_msg',
    'tactile_reading_from_msg', 'tactile_slip_from_msg',
    'tf_message', 'time_from_msg', 'time_to_msg', 'UNIT_QUATERNION_TOLERANCE', 'VERDICT',
    'verdict_from_msg', 'verdict_to_msg',
]
