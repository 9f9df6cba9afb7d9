"""Conversions between messages and core values round-trip exactly."""

from grasp_monitor.core.errors import CommandError, InputError
from grasp_monitor.core.servo import ServoConfig
from grasp_monitor.core.values import BodyArrays
from grasp_monitor.nodes import conversions
import numpy as np
import pytest
from sensor_msgs.msg import JointState


def test_tactile_cloud_round_trip():
    positions = np.arange(12.0).reshape(4, 3) * 0.01
    forces = np.arange(12.0).reshape(4, 3) - 6.0
    msg = conversions.tactile_cloud_to_msg(positions, forces, 'finger_left', 1.25)
    assert [f.name for f in msg.fields] == ['x', 'y', 'z', 'fx', 'fy', 'fz']
    assert msg.header.frame_id == 'finger_left' and msg.width == 4 and msg.point_step == 24
    p, f, t = conversions.tactile_cloud_from_msg(msg)
    np.testing.assert_allclose(p, positions, rtol=1e-6)
    np.testing.assert_array_equal(f, forces)
    assert t == 1.25


def test_a_cloud_with_slip_has_vx_vy_vz_after_the_forces_and_reads_the_same_forces():
    positions = np.arange(12.0).reshape(4, 3) * 0.01
    forces = np.arange(12.0).reshape(4, 3) - 6.0
    slip = np.arange(12.0).reshape(4, 3) * -0.5
    msg = conversions.tactile_cloud_to_msg(positions, forces, 'finger_left', 1.25, slip)
    assert [f.name for f in msg.fields] == ['x', 'y', 'z', 'fx', 'fy', 'fz', 'vx', 'vy', 'vz']
    assert msg.point_step == 36 and len(msg.data) == 4 * 36
    p, f, t = conversions.tactile_cloud_from_msg(msg)
    np.testing.assert_allclose(p, positions, rtol=1e-6)
    np.testing.assert_array_equal(f, forces)
    np.testing.assert_array_equal(conversions.tactile_slip_from_msg(msg), slip)
    assert t == 1.25
    without = conversions.tactile_cloud_to_msg(positions, forces, 'finger_left', 1.25)
    assert conversions.tactile_slip_from_msg(without) is None
    msg.fields = msg.fields[:7]  # neither layout
    with pytest.raises(InputError, match='or with vx vy vz after them in 36, got x y z fx '
                                         'fy fz vx in 36'):
        conversions.tactile_slip_from_msg(msg)


def test_scalar_touch_values_publish_as_fz():
    msg = conversions.tactile_cloud_to_msg(np.zeros((2, 3)), [[1.5], [2.0]], 'pad', 0.0)
    _, forces, _ = conversions.tactile_cloud_from_msg(msg)
    assert forces.tolist() == [[0, 0, 1.5], [0, 0, 2.0]]


def test_a_cloud_with_another_layout_is_refused():
    msg = conversions.tactile_cloud_to_msg(np.zeros((2, 3)), np.zeros((2, 3)), 'pad', 0.0)
    msg.fields = msg.fields[:3]
    with pytest.raises(InputError, match='tactile cloud must have float32 fields x y z fx'):
        conversions.tactile_cloud_from_msg(msg)


def test_odometry_twist_is_in_the_body_frame_and_reads_back_in_the_world():
    # body turned 90 degrees about z: world +x velocity is body -y
    quaternion = [np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)]
    bodies = BodyArrays(('cube',), [[1.0, 2.0, 3.0]], [quaternion], [[1.0, 0, 0]],
                        [[0, 0, 2.0]], 4.5)
    (msg,) = conversions.odometry_from_body_arrays(bodies)
    linear = msg.twist.twist.linear
    assert (linear.x, linear.y, linear.z) == pytest.approx((0.0, -1.0, 0.0))
    assert msg.child_frame_id == 'cube' and msg.header.frame_id == 'world'
    state = conversions.body_state_from_odometry(msg)
    np.testing.assert_allclose(state.linear_velocity_in_world, [1.0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(state.angular_velocity_in_world, [0, 0, 2.0], atol=1e-12)
    assert state.time_s == 4.5


def test_editing_one_tactile_cloud_leaves_the_next_one_valid():
    first = conversions.tactile_cloud_to_msg(np.zeros((1, 3)), np.ones((1, 3)), 'pad', 0.0)
    first.fields[0].name = 'rgb'
    second = conversions.tactile_cloud_to_msg(np.zeros((1, 3)), np.ones((1, 3)), 'pad', 0.0)
    assert [field.name for field in second.fields] == ['x', 'y', 'z', 'fx', 'fy', 'fz']


def test_a_stamped_value_round_trips_in_vector_x():
    msg = conversions.stamped_value_to_msg(0.0057, conversions.time_to_msg(4.43))
    assert (msg.vector.x, msg.vector.y, msg.vector.z) == (0.0057, 0.0, 0.0)
    assert msg.header.frame_id == ''
    assert conversions.stamped_value_from_msg(msg) == (0.0057, pytest.approx(4.43, abs=1e-9))


def test_contacts_cloud_round_trips_at_full_precision():
    from grasp_monitor.core.pad_contacts import PadContacts
    contacts = PadContacts([[0.1, 0.2, 1 / 3]], [[0.0, -1.0, 0.0]], [[1e-7, -2.5, 0.2]],
                           [3], [1], 1.25)
    msg = conversions.pad_contacts_to_msg(contacts)
    assert msg.header.frame_id == 'world' and msg.width == 1
    assert [f.name for f in msg.fields] == list(conversions.CONTACT_FIELDS)
    back = conversions.pad_contacts_from_msg(msg)
    assert back.position_in_world.tolist() == contacts.position_in_world.tolist()  # float64
    assert back.force_in_world.tolist() == contacts.force_in_world.tolist()
    assert (back.body1.tolist(), back.body2.tolist(), back.time_s) == ([3], [1], 1.25)
    assert len(conversions.pad_contacts_from_msg(conversions.pad_contacts_to_msg(
        PadContacts(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), [], [])))) == 0
    names = ('world', 'table', 'object')
    assert conversions.body_names_from_msg(conversions.body_names_to_msg(names)) == names


def test_a_contacts_cloud_with_another_layout_is_refused():
    msg = conversions.tactile_cloud_to_msg(np.zeros((1, 3)), np.zeros((1, 3)), 'pad', 0.0)
    with pytest.raises(InputError, match='contacts cloud must have fields x y z nx ny nz'):
        conversions.pad_contacts_from_msg(msg)


def test_contact_arrows_start_at_the_point_scale_with_force_and_clear_the_last_ones():
    from grasp_monitor.core.pad_contacts import PadContacts
    from visualization_msgs.msg import Marker
    contacts = PadContacts([[0.1, 0.2, 0.3], [0.0, 0.0, 0.4]], [[0, -1, 0], [0, 0, -1]],
                           [[0.0, -2.0, 0.0], [0.0, 0.0, -10.0]], [3, 4], [6, 1], 2.5)
    markers = conversions.contact_markers_to_msg(contacts, 0.01, object_ids=[6]).markers
    assert [m.action for m in markers] == [Marker.DELETEALL, Marker.ADD, Marker.ADD]
    assert all(m.header.frame_id == 'world' and m.header.stamp.sec == 2
               and m.header.stamp.nanosec == 500_000_000 for m in markers)
    on_object, on_table = markers[1:]
    assert [(m.type, m.ns, m.id) for m in markers[1:]] == [(Marker.ARROW, 'contacts', 0),
                                                           (Marker.ARROW, 'contacts', 1)]
    assert [[p.x, p.y, p.z] for p in on_object.points] == \
        [[0.1, 0.2, 0.3], pytest.approx([0.1, 0.18, 0.3])]  # 2 N at 1 cm/N
    assert [[p.x, p.y, p.z] for p in on_table.points] == \
        [[0.0, 0.0, 0.4], pytest.approx([0.0, 0.0, 0.3])]
    assert on_object.color.r == 1.0 and on_table.color.r == on_table.color.g  # red, grey
    assert (on_object.scale.x, on_object.scale.y) == conversions.ARROW_SIZES_M[:2]
    empty = PadContacts(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), [], [])
    assert [m.action for m in conversions.contact_markers_to_msg(empty, 0.01).markers] == \
        [Marker.DELETEALL]


def test_a_servo_command_without_a_position_is_refused_and_nan_turns_it_off():
    config = ServoConfig(('lift', 'finger_left'), kp=300.0, kd=10.0)
    with pytest.raises(CommandError) as error:
        conversions.servo_command_from_joint_state(
            JointState(name=['lift'], velocity=[0.5]), config, None)
    assert (str(error.value), error.value.kind) == (
        'servo command has no position: give one per name (lift); NaN turns position control '
        'off', 'missing_position')
    command = conversions.servo_command_from_joint_state(
        JointState(name=['lift'], position=[float('nan')], velocity=[0.5]), config, None)
    assert np.isnan(command.position[0]) and command.velocity.tolist() == [0.5, 0.0]
