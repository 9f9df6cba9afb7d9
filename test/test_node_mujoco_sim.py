"""The mujoco_sim node over real rclpy and DDS: commands, refusals, services, clock, /tf, URDF."""

import io
import math
import time

from common import wait_for
from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.frames import FrameTree
from grasp_monitor.core.rotations import quat_to_matrix
from grasp_monitor.core.servo import COMMAND_FIELDS
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from grasp_monitor.nodes.qos import LATCHED_QOS, TF_QOS, TF_STATIC_LISTENER_QOS
from grasp_monitor.sim.scenes import SCENARIOS
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rclpy.parameter import Parameter
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import SetBool, Trigger
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import Marker, MarkerArray
import yourdfpy

PUBLISH_RATE_HZ = 100.0


def start_sim(ros, **overrides):
    params = {'publish_rate': PUBLISH_RATE_HZ, 'command_timeout': 0.0} | overrides
    return ros.add(MujocoSimNode(
        context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()]))


def latest(messages):
    return messages[-1] if messages else None


def test_commanded_joint_moves_in_joint_states(ros):
    start_sim(ros)
    client = ros.client()
    states = []
    client.create_subscription(JointState, 'joint_states', states.append, 10)
    commands = client.create_publisher(JointState, 'servo_commands', 10)
    assert wait_for(lambda: states)
    assert states[-1].name == ['lift', 'finger_left', 'finger_right']
    start = states[-1].position[0]
    assert math.isclose(start, 0.1, abs_tol=0.01)

    def lift_at_target():
        commands.publish(JointState(name=['lift'], position=[0.03], effort=[9.0]))
        return abs(latest(states).position[0] - 0.03) < 0.005

    assert wait_for(lift_at_target, timeout_s=20.0), latest(states).position
    # The other joints were not commanded: no torque on them.
    assert latest(states).effort[1] == 0.0 and latest(states).effort[2] == 0.0


def test_full_command_sets_every_column(ros):
    sim = start_sim(ros)
    client = ros.client()
    full = client.create_publisher(Float64MultiArray, 'servo_commands/full', 10)
    row = [0.02, 0.0, 9.0, 1.0, 1.0, 55.0]
    msg = Float64MultiArray(data=row + [math.nan, 0, 1.5, 0, 0.5, 2.0] * 2)
    assert wait_for(lambda: (full.publish(msg), sim.sim.servos.received is not None)[1])
    command = sim.sim.servos.received
    assert command.maximum_torque.tolist() == [55.0, 2.0, 2.0]
    assert command.feedforward_torque.tolist() == [9.0, 1.5, 1.5]
    assert math.isnan(command.position[1]) and command.kd_scale[2] == 0.5


def test_bad_commands_are_refused_counted_and_the_node_lives_on(ros):
    sim = start_sim(ros)
    client = ros.client()
    states, diagnostics = [], []
    client.create_subscription(JointState, 'joint_states', states.append, 10)
    client.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    commands = client.create_publisher(JointState, 'servo_commands', 10)
    full = client.create_publisher(Float64MultiArray, 'servo_commands/full', 10)
    good = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0] * 3
    bad = {
        'unknown_joint': JointState(name=['elbow'], position=[0.1]),
        'wrong_length': JointState(name=['lift', 'finger_left'], position=[0.1]),
        'not_finite': JointState(name=['lift'], position=[math.inf]),
    }
    bad_full = {
        'wrong_length': Float64MultiArray(data=[0.0] * 5),
        'out_of_range': Float64MultiArray(data=good[:3] + [2.0] + good[4:]),
        'negative': Float64MultiArray(data=good[:5] + [-1.0] + good[6:]),
        'nan_velocity': Float64MultiArray(data=[0.0, math.nan] + good[2:]),
    }
    # A good command on each topic proves both subscriptions are matched both ways.
    probe = JointState(name=['lift'], position=[0.07])
    assert wait_for(lambda: (commands.publish(probe), sim.sim.servos.received)[1] is not None)
    good_full = Float64MultiArray(data=good[:5] + [7.0] + good[6:])
    assert wait_for(lambda: (full.publish(good_full),
                             sim.sim.servos.received.maximum_torque[0] == 7.0)[1])
    sim.refused.clear()
    for msg in bad.values():
        commands.publish(msg)
    for msg in bad_full.values():
        full.publish(msg)
    assert wait_for(lambda: sum(sim.refused.values()) == 7), sim.refused
    assert sim.refused == {'unknown_joint': 1, 'wrong_length': 2, 'not_finite': 2,
                           'out_of_range': 2}
    # nothing bad got through: the last good command is still in force
    received = sim.sim.servos.received
    assert [getattr(received, f).tolist() for f in COMMAND_FIELDS] == \
        np.reshape(good_full.data, (3, 6)).T.tolist()
    count = len(states)
    assert wait_for(lambda: len(states) > count + 10)  # still publishing

    def refusals_in_diagnostics():
        for array in diagnostics:
            for status in array.status:
                values = {kv.key: kv.value for kv in status.values}
                if values.get('refused_commands') == '7':
                    return values
        return None

    values = wait_for(refusals_in_diagnostics, timeout_s=5.0)
    assert values and values['refused.unknown_joint'] == '1'


def test_reset_and_pause_services(ros):
    start_sim(ros)
    client = ros.client()
    clocks = []
    client.create_subscription(Clock, '/clock', clocks.append, 10)
    pause = client.create_client(SetBool, 'mujoco_sim/pause')
    reset = client.create_client(Trigger, 'mujoco_sim/reset')

    def now():
        return clocks[-1].clock.sec + clocks[-1].clock.nanosec * 1e-9

    assert wait_for(lambda: clocks and now() > 0.3)
    assert ros.call(pause, SetBool.Request(data=True)).success
    time.sleep(0.1)  # let messages already in flight arrive
    frozen = now()
    time.sleep(0.5)
    assert now() == frozen
    assert ros.call(pause, SetBool.Request(data=False)).success
    assert wait_for(lambda: now() > frozen + 0.1)
    response = ros.call(reset, Trigger.Request())
    assert response.success and response.message == 'reset pick_lift'
    assert wait_for(lambda: now() < frozen)


def test_clock_never_runs_ahead_of_wall_time_at_real_time_factor_one(ros):
    wall_start = time.monotonic()
    start_sim(ros, real_time_factor=1.0)
    client = ros.client()
    samples = []
    client.create_subscription(
        Clock, '/clock',
        lambda m: samples.append((time.monotonic(), m.clock.sec + m.clock.nanosec * 1e-9)), 50)
    assert wait_for(lambda: samples and samples[-1][1] >= 1.0, timeout_s=30.0)
    period_s = 1.0 / PUBLISH_RATE_HZ
    ahead = max(sim_s - (wall_s - wall_start) for wall_s, sim_s in samples)
    assert ahead <= period_s, f'simulated time ran {ahead:.4f} s ahead of wall time'
    sim_times = [sim_s for _, sim_s in samples]
    assert sim_times == sorted(sim_times)


def test_clock_rate_publishes_clock_every_kth_tick_and_joint_states_every_tick(ros):
    from grasp_monitor.nodes.conversions import time_from_msg
    start_sim(ros, clock_rate=PUBLISH_RATE_HZ / 4)
    client = ros.client()
    clocks, states = [], []
    client.create_subscription(Clock, '/clock', clocks.append, 100)
    client.create_subscription(JointState, 'joint_states', states.append, 100)
    assert wait_for(lambda: len(clocks) >= 6 and len(states) >= 24, timeout_s=30.0)
    clock_ticks = [round(time_from_msg(m.clock) * PUBLISH_RATE_HZ) for m in clocks]
    state_ticks = [round(time_from_msg(m.header.stamp) * PUBLISH_RATE_HZ) for m in states]
    assert all(tick % 4 == 0 for tick in clock_ticks), clock_ticks
    assert [b - a for a, b in zip(clock_ticks, clock_ticks[1:])] == [4] * (len(clocks) - 1)
    assert [b - a for a, b in zip(state_ticks, state_ticks[1:])] == [1] * (len(states) - 1)


def joint_states_with_truth(ros, sim, count):
    """Return ``count`` joint_states messages while the lift moves, and the truth by stamp."""
    truth = {}

    def record(simulator):  # runs after the tick's publish, in the same tick
        states = simulator.joint_states()
        truth[round(states.time_s * PUBLISH_RATE_HZ)] = (states.position, states.velocity)

    sim.runner.add_tick_callback(record)
    client = ros.client()
    states = []
    client.create_subscription(JointState, 'joint_states', states.append, 1000)
    commands = client.create_publisher(JointState, 'servo_commands', 10)

    def enough():
        commands.publish(JointState(name=['lift'], position=[0.03], effort=[9.0]))
        return len(states) >= count

    assert wait_for(enough, timeout_s=30.0)
    sim.runner.remove_tick_callback(record)
    return states, truth


def test_the_ideal_preset_publishes_the_joint_states_as_simulated(ros):
    sim = start_sim(ros, **{'realism.preset': 'ideal'})
    states, truth = joint_states_with_truth(ros, sim, 40)
    ticks = [round(conversions.time_from_msg(m.header.stamp) * PUBLISH_RATE_HZ) for m in states]
    assert np.all(np.diff(ticks) == 1)
    compared = [(m, truth[tick]) for m, tick in zip(states, ticks) if tick in truth]
    assert len(compared) >= 30
    for msg, (position, velocity) in compared:
        assert list(msg.position) == position.tolist()
        assert list(msg.velocity) == velocity.tolist()


def test_a_realistic_preset_publishes_what_encoders_report(ros):
    # typical's differentiated velocity, a coarse encoder to see it, no noise to check it
    sim = start_sim(ros, **{'realism.preset': 'typical', 'realism.seed': 5,
                            'realism.joints.resolution': 1e-4, 'realism.joints.backlash': 0.0,
                            'realism.joints.velocity_noise': 0.0,
                            'realism.joints.drop_rate': 0.3})
    states, truth = joint_states_with_truth(ros, sim, 60)
    ticks = np.array([round(conversions.time_from_msg(m.header.stamp) * PUBLISH_RATE_HZ)
                      for m in states])
    span = ticks[-1] - ticks[0] + 1
    assert 0.1 < (span - ticks.size) / span < 0.5  # frames lost
    position = np.array([m.position for m in states])
    velocity = np.array([m.velocity for m in states])
    np.testing.assert_allclose(position / 1e-4, np.round(position / 1e-4), atol=1e-6)
    moving = 0
    for k in range(1, len(states)):
        if ticks[k] in truth:
            np.testing.assert_allclose(position[k], truth[ticks[k]][0], atol=0.5e-4 + 1e-12)
        if ticks[k] - ticks[k - 1] == 1:  # consecutive frames: the encoder's difference
            np.testing.assert_allclose(velocity[k], (position[k] - position[k - 1])
                                       * PUBLISH_RATE_HZ, rtol=1e-9, atol=1e-9)
            moving += bool(velocity[k][0])
    assert moving >= 5  # the lift moved: its speed is an encoder's, in whole steps


def test_bad_configuration_fails_at_construction_with_the_valid_choices(ros):
    from grasp_monitor.core.errors import ConfigError
    with pytest.raises(ConfigError) as error:
        start_sim(ros, scenario='juggling')
    assert str(error.value) == ("parameter 'scenario' of node 'mujoco_sim' must be a string: "
                                "one of pick_lift, multi_block, industrial_arm, got 'juggling'")


def test_grasp_controller_lifts_the_object_in_the_simulator(ros):
    from nav_msgs.msg import Odometry

    from grasp_monitor.nodes.conversions import time_from_msg
    from grasp_monitor.nodes.grasp_controller import GraspControllerNode
    start_sim(ros, publish_rate=200.0)
    controller = ros.add(GraspControllerNode(context=ros.context, parameter_overrides=[
        Parameter('use_sim_time', value=True)]))
    client = ros.client()
    heights = []  # (simulated time s, object height m)
    client.create_subscription(
        Odometry, 'ground_truth/object',
        lambda m: heights.append((time_from_msg(m.header.stamp), m.pose.pose.position.z)), 10)
    # approach 1 s, close 1 s, lift 0.2 m in 1.5 s, then hold, all in simulated time: the
    # outcome is judged half a simulated second into the hold, however slowly a loaded
    # machine gets there (the timeouts only bound a stuck run)
    assert wait_for(lambda: controller.phase == 'hold', timeout_s=300.0), controller.phase
    hold_s = controller.get_clock().now().nanoseconds * 1e-9
    assert wait_for(lambda: heights and heights[-1][0] > hold_s + 0.5, timeout_s=300.0)
    height_m = next(z for t, z in heights if t > hold_s + 0.5)
    assert height_m > 0.6, f'object at {height_m:.3f} m; it rests on the table at 0.425 m'


def test_every_scenario_starts_in_the_node(ros):
    from sensor_msgs.msg import JointState as States
    for scenario, joints in (('multi_block', 2), ('industrial_arm', 8)):
        node = start_sim(ros, scenario=scenario)
        client = ros.client(f'client_{scenario}')
        states = []
        client.create_subscription(States, 'joint_states', states.append, 10)
        assert wait_for(lambda: states and len(states[-1].name) == joints), scenario
        ros.executor.remove_node(node)
        ros.executor.remove_node(client)
        node.destroy_node()


def test_external_force_test_pulls_the_object_up_and_stops(ros):
    from nav_msgs.msg import Odometry

    from grasp_monitor.nodes.conversions import time_from_msg
    sim = start_sim(ros, **{'force_test.amplitude_per_kg': 0.0, 'force_test.offset': 5.0})
    client = ros.client()
    heights, states = [], []  # heights: (simulated time s, object height m)
    client.create_subscription(
        Odometry, 'ground_truth/object',
        lambda m: heights.append((time_from_msg(m.header.stamp), m.pose.pose.position.z)), 10)
    client.create_subscription(JointState, 'joint_states', states.append, 10)
    commands = client.create_publisher(JointState, 'servo_commands', 10)
    start = client.create_client(Trigger, 'mujoco_sim/external_force/start')
    stop = client.create_client(Trigger, 'mujoco_sim/external_force/stop')

    def gripper_held_up():  # unpowered, it would rest on the object and stop it at 1 cm
        commands.publish(JointState(name=['lift'], position=[0.1], effort=[9.0]))
        # and the object's ground truth has arrived too (its own topic, its own pace)
        return states and abs(states[-1].position[0] - 0.1) < 0.005 and heights

    assert wait_for(gripper_held_up, timeout_s=300.0)
    rest_m = heights[-1][1]
    response = ros.call(start, Trigger.Request())
    pulled_s = sim.sim.time_s
    assert response.success and response.message == 'pulling object'
    # 5 N up on a 0.2 kg object (1.96 N weight): half a simulated second later it is well
    # off the table, however long a loaded machine takes to get there
    assert wait_for(lambda: heights[-1][0] > pulled_s + 0.5, timeout_s=300.0)
    height_m = next(z for t, z in heights if t > pulled_s + 0.5)
    assert height_m > rest_m + 0.05, (rest_m, height_m)
    assert ros.call(stop, Trigger.Request()).message == 'released'


def test_tf_carries_every_moving_body_in_one_tree_rooted_at_world(ros):
    sim = start_sim(ros)
    client = ros.client()
    dynamic, static, truth = [], [], []
    client.create_subscription(TFMessage, '/tf', dynamic.append, TF_QOS)
    client.create_subscription(Odometry, 'ground_truth/finger_left', truth.append, 100)
    # a late listener still gets the static transforms, as from a tf2 static broadcaster
    assert wait_for(lambda: len(dynamic) >= 3 and truth)
    client.create_subscription(TFMessage, '/tf_static', static.append, TF_STATIC_LISTENER_QOS)
    assert wait_for(lambda: static)
    assert len(static) == 1
    moving = dynamic[-1].transforms
    welded = static[0].transforms
    parent = {t.child_frame_id: t.header.frame_id for t in moving + welded}
    assert parent == {'table': 'world', 'base': 'world', 'palm': 'base',
                      'finger_left': 'palm', 'finger_right': 'palm', 'object': 'world'}
    # every body once, each chain ends at world: one tree
    assert len(moving) + len(welded) == len(parent) == sim.sim.model.nbody - 1
    for frame in parent:
        hops = 0
        while frame != 'world':
            frame, hops = parent[frame], hops + 1
            assert hops <= len(parent)
    # one stamp per tick, on simulated time: the ground truth's of the same tick
    (stamp,) = {(t.header.stamp.sec, t.header.stamp.nanosec) for t in moving}

    def same_tick():
        return [o for o in truth if (o.header.stamp.sec, o.header.stamp.nanosec) == stamp]
    assert wait_for(same_tick)
    # composed back, the pad's pose is its world pose of that state
    tree = FrameTree()
    tree.update(conversions.frame_transforms_from_msg(static[0]), static=True)
    tree.update(conversions.frame_transforms_from_msg(dynamic[-1]))
    position, rotation, _ = tree.pose('finger_left')
    pad = conversions.body_state_from_odometry(same_tick()[0])
    np.testing.assert_allclose(position, pad.position_in_world, atol=1e-12)
    np.testing.assert_allclose(rotation, quat_to_matrix(pad.quaternion_in_world), atol=1e-12)


def test_contacts_carry_the_pads_contacts_with_the_bodies_they_touch(ros):
    start_sim(ros)
    client = ros.client()
    contacts, names = [], []
    client.create_subscription(PointCloud2, 'contacts', contacts.append, 10)
    client.create_subscription(String, 'contacts/bodies', names.append, LATCHED_QOS)
    commands = client.create_publisher(JointState, 'servo_commands', 10)
    assert wait_for(lambda: names and contacts)
    bodies = conversions.body_names_from_msg(names[0])
    assert {'world', 'table', 'object', 'finger_left', 'finger_right'} <= set(bodies)
    first = conversions.pad_contacts_from_msg(contacts[-1])
    assert contacts[-1].header.frame_id == 'world' and len(first) == 0  # open, in the air

    def pads_on_the_table():
        # the open hand lowered below the table top: the pads press it, not the object
        commands.publish(JointState(name=['lift', 'finger_left', 'finger_right'],
                                    position=[-0.03, 0.0, 0.0], effort=[9.0, 0.0, 0.0]))
        return len(conversions.pad_contacts_from_msg(contacts[-1])) > 0

    assert wait_for(pads_on_the_table, timeout_s=20.0)
    touching = conversions.pad_contacts_from_msg(contacts[-1])
    assert {bodies[i] for i in touching.body1} <= {'finger_left', 'finger_right'}
    assert {bodies[i] for i in touching.body2} == {'table'}  # the table, never the object
    # oriented from the pad: the normal and the pad's force on the table point down
    assert (touching.normal_in_world[:, 2] < -0.99).all()
    assert touching.force_in_world[:, 2].sum() < 0.0
    assert np.allclose(np.linalg.norm(touching.normal_in_world, axis=1), 1.0)


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_a_late_subscriber_gets_the_urdf_and_tf_places_every_link(ros, scenario):
    sim = start_sim(ros, scenario=scenario)
    client = ros.client()
    dynamic, static, descriptions = [], [], []
    client.create_subscription(TFMessage, '/tf', dynamic.append, TF_QOS)
    client.create_subscription(TFMessage, '/tf_static', static.append, TF_STATIC_LISTENER_QOS)
    assert wait_for(lambda: dynamic and static)
    # joining after the node published it once, as rviz does: transient local
    client.create_subscription(String, '/robot_description', descriptions.append, LATCHED_QOS)
    assert wait_for(lambda: descriptions)
    urdf = yourdfpy.URDF.load(io.StringIO(descriptions[0].data), build_scene_graph=False,
                              load_meshes=False)
    assert urdf.validate(), urdf.errors
    assert urdf.robot.name == scenario
    # what rviz's RobotModel needs: every link a frame that /tf or /tf_static carries
    tree = FrameTree()
    tree.update(conversions.frame_transforms_from_msg(static[0]), static=True)
    tree.update(conversions.frame_transforms_from_msg(dynamic[-1]))
    links = [link.name for link in urdf.robot.links]
    assert set(links) == set(tree.frames) and len(links) == sim.sim.model.nbody
    # each link's parent in the URDF is its parent on /tf
    parent = {t.child_frame_id: t.header.frame_id
              for t in static[0].transforms + dynamic[-1].transforms}
    assert {joint.child: joint.parent for joint in urdf.robot.joints} == parent
    # ... and the welded ones sit where /tf_static puts them
    fixed = {joint.child: joint.origin for joint in urdf.robot.joints if joint.type == 'fixed'}
    for transform in static[0].transforms:
        offset = transform.transform.translation
        np.testing.assert_allclose(fixed[transform.child_frame_id][:3, 3],
                                   [offset.x, offset.y, offset.z], atol=1e-12)
    assert len(descriptions) == 1


def test_contact_markers_are_arrows_of_the_contacts_cloud(ros):
    start_sim(ros, markers_rate=20.0, markers_scale=0.01)
    client = ros.client()
    contacts, markers = [], []
    client.create_subscription(PointCloud2, 'contacts', contacts.append, 1000)
    client.create_subscription(MarkerArray, 'contacts/markers', markers.append, 10)
    commands = client.create_publisher(JointState, 'servo_commands', 10)

    def tick_of(msg):
        return (msg.header.stamp.sec, msg.header.stamp.nanosec)

    def arrows_on_the_table():
        # the open hand lowered onto the table: the pads press it
        commands.publish(JointState(name=['lift', 'finger_left', 'finger_right'],
                                    position=[-0.03, 0.0, 0.0], effort=[9.0, 0.0, 0.0]))
        return len(markers) > 1 and len(markers[-1].markers) > 1 and any(
            tick_of(cloud) == tick_of(markers[-1].markers[0]) for cloud in contacts)

    assert wait_for(arrows_on_the_table, timeout_s=20.0)
    first = markers[0].markers
    assert first[0].action == Marker.DELETEALL  # even before any contact: stale arrows go
    latest = markers[-1].markers
    cloud = next(c for c in contacts if tick_of(c) == tick_of(latest[0]))
    touching = conversions.pad_contacts_from_msg(cloud)
    assert latest[0].action == Marker.DELETEALL and len(latest) == len(touching) + 1
    for arrow, point, force in zip(latest[1:], touching.position_in_world,
                                   touching.force_in_world):
        assert arrow.type == Marker.ARROW and arrow.header.frame_id == 'world'
        start, end = ([p.x, p.y, p.z] for p in arrow.points)
        np.testing.assert_allclose(start, point)
        np.testing.assert_allclose(end, point + 0.01 * force)
        assert end[2] < start[2]  # the pad pushes the table down
        # grey: the table is no object
        assert (arrow.color.r, arrow.color.g, arrow.color.b) == pytest.approx((0.6, 0.6, 0.6))
