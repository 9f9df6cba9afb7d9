"""Messages as bytes: published and read, the same messages as rclpy's.

``conversions.cdr`` serialises a message once and ``conversions.serialized`` rewrites
its numbers every tick; raw subscriptions read bytes back with ``read_message``.
rclpy's own serialisation is the reference.
"""

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from grasp_monitor.core.errors import InputError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.conversions import serialized
from grasp_monitor.nodes.conversions.cdr import ENCAPSULATION
from grasp_monitor.nodes.conversions.cdr_reader import read_message
from grasp_monitor.nodes.conversions.cdr_template import Template
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.scenes import build_scene
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import Float64MultiArray
from tf2_msgs.msg import TFMessage


def padding_free(template: Template) -> np.ndarray:
    """Mask of the bytes that hold data (CDR padding is whatever the writer left there)."""
    mask = np.zeros(len(template.buffer), bool)
    mask[:len(ENCAPSULATION)] = True
    for offset, length in template.spans:
        mask[offset:offset + length] = True
    return mask


@pytest.mark.parametrize('msg', [
    Clock(clock=Time(sec=3, nanosec=7)), JointState(), Odometry(), TFMessage(), PointCloud2(),
    JointState(name=['a', 'bb'], position=[1.0, 2.0], velocity=[], effort=[3.0, -1.0]),
    Float64MultiArray(data=[1.5, -2.0]),
    DiagnosticArray(status=[DiagnosticStatus(level=b'\x01', name='n', values=[
        KeyValue(key='k', value='v')])]),
], ids=lambda msg: type(msg).__name__)
def test_a_template_is_rclpys_serialisation(msg):
    template = Template(msg)
    ours = np.frombuffer(template.serialized(), np.uint8)
    # rclpy's buffer is as long as Fast CDR's size bound, which counts an alignment for
    # every empty sequence of 8-byte numbers: what follows the message is left over
    reference = np.frombuffer(serialize_message(msg), np.uint8)
    assert ours.size <= reference.size
    mask = padding_free(template)
    np.testing.assert_array_equal(ours[mask], reference[:ours.size][mask])
    assert deserialize_message(template.serialized(), type(msg)) == msg


def test_every_stream_of_the_simulator_is_the_conversions_message_tick_after_tick():
    sim = Simulator(build_scene('pick_lift', {}))
    writers = (serialized.ClockBytes(), serialized.JointStateBytes(),
               serialized.OdometryBytes(), serialized.TfBytes(), serialized.ContactsBytes(),
               serialized.TactileBytes('finger_left'))
    clock, joints, odometry, tf, contacts, tactile = writers
    with_slip = serialized.TactileBytes('finger_left')
    rng = np.random.default_rng(0)
    widths = set()
    for _ in range(400):  # the fingers close on the object: contacts come and go
        sim.step(2)
        assert deserialize_message(clock(sim.time_s), Clock) == conversions.clock_to_msg(
            sim.time_s)
        states = sim.joint_states()
        assert deserialize_message(joints(states), JointState) == \
            conversions.joint_state_to_msg(states)
        bodies = sim.body_arrays()
        assert [deserialize_message(data, Odometry) for data in odometry(bodies)] == \
            conversions.odometry_from_body_arrays(bodies)
        frames = sim.frame_transforms()
        assert deserialize_message(tf(frames), TFMessage) == conversions.tf_message(frames)
        pad = sim.pad_contacts()
        widths.add(len(pad))
        assert deserialize_message(contacts(pad), PointCloud2) == \
            conversions.pad_contacts_to_msg(pad)
        n = int(rng.integers(0, 5))
        positions, forces = rng.normal(size=(n, 3)), rng.normal(size=(n, 1 + 2 * (n % 2)))
        assert deserialize_message(tactile(positions, forces, sim.time_s), PointCloud2) == \
            conversions.tactile_cloud_to_msg(positions, forces, 'finger_left', sim.time_s)
        slip = rng.normal(size=(n, 3))
        assert deserialize_message(with_slip(positions, forces, sim.time_s, slip),
                                   PointCloud2) == conversions.tactile_cloud_to_msg(
            positions, forces, 'finger_left', sim.time_s, slip)
    assert len(widths) > 1, widths  # the contacts' layout changed on the way


@pytest.mark.parametrize('msg', [
    Odometry(), JointState(name=['a', 'bb'], position=[1.0, 2.0], velocity=[], effort=[3.0]),
    PointCloud2(), DiagnosticArray(status=[DiagnosticStatus(level=b'\x02', name='n', values=[
        KeyValue(key='k', value='v'), KeyValue(key='é', value='')])]),
    Float64MultiArray(data=[1.5, -2.0]), Clock(clock=Time(sec=3, nanosec=7)),
], ids=lambda msg: type(msg).__name__)
def test_a_message_read_from_its_bytes_has_the_messages_fields(msg):
    fields = read_message(serialize_message(msg), type(msg))

    def same(ours, theirs):
        if hasattr(theirs, 'get_fields_and_field_types'):
            return all(same(getattr(ours, name), getattr(theirs, name))
                       for name in theirs.get_fields_and_field_types())
        if isinstance(theirs, list) and theirs and hasattr(theirs[0], 'SLOT_TYPES'):
            return len(ours) == len(theirs) and all(map(same, ours, theirs))
        if isinstance(theirs, bytes) and len(theirs) == 1:  # a byte field
            return ours == theirs[0]
        if isinstance(ours, bytes):  # uint8[]: bytes as they are
            return ours == bytes(theirs)
        return np.array_equal(np.asarray(ours), np.asarray(theirs))
    assert same(fields, msg)


def test_bytes_that_are_not_the_message_are_refused_as_malformed_input():
    raw = serialize_message(Odometry(child_frame_id='object'))
    with pytest.raises(InputError, match='Odometry') as error:
        read_message(raw[:40], Odometry)
    assert error.value.kind == 'malformed'
    with pytest.raises(InputError, match='little-endian') as error:
        read_message(b'\x00\x00' + raw[2:], Odometry)
    assert error.value.kind == 'malformed'


def test_the_monitor_and_the_metrics_read_the_simulators_bytes_as_its_messages():
    sim = Simulator(build_scene('pick_lift', {}))
    sim.step(600)
    (odometry, *_) = conversions.odometry_from_body_arrays(sim.body_arrays())
    joints = conversions.joint_state_to_msg(sim.joint_states())
    contacts = conversions.pad_contacts_to_msg(sim.pad_contacts())
    assert len(contacts.data)
    for msg, read in ((odometry, conversions.body_state_from_odometry),
                      (joints, conversions.joint_velocities_from_msg),
                      (contacts, conversions.pad_contacts_from_msg)):
        ours = read(read_message(serialize_message(msg), type(msg)))
        assert repr(ours) == repr(read(msg))
