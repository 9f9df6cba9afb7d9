"""The tactile_sensor node over real rclpy and DDS, hosted on a running mujoco_sim."""

import os
import signal
import subprocess
import sys

from common import NAMESPACE, wait_for
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from grasp_monitor.nodes.tactile_sensor import TactileSensorNode
import mujoco
import numpy as np
import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import PointCloud2, PointField
from visualization_msgs.msg import Marker, MarkerArray

PADS = ('finger_left', 'finger_right')


def start_sim(ros, **overrides):
    params = {'publish_rate': 100.0, 'command_timeout': 0.0, 'tactile': False} | overrides
    return ros.add(MujocoSimNode(
        context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()]))


def start_tactile(ros, sim, **overrides):
    return ros.add(TactileSensorNode(
        runner=sim.runner, context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in overrides.items()]))


def stamp_key(stamp):
    return stamp.sec, stamp.nanosec


def test_a_cloud_per_pad_with_the_declared_fields_and_markers(ros):
    sim = start_sim(ros)
    start_tactile(ros, sim, publish_rate=50.0, markers_rate=20.0)
    client = ros.client()
    clouds = {pad: [] for pad in PADS}
    for pad in PADS:
        client.create_subscription(PointCloud2, f'tactile/{pad}', clouds[pad].append, 50)
    markers = []
    client.create_subscription(MarkerArray, 'tactile/markers', markers.append, 10)
    assert wait_for(lambda: all(len(c) >= 5 for c in clouds.values()) and markers)
    for pad in PADS:
        msg = clouds[pad][-1]
        assert msg.header.frame_id == pad
        assert [(f.name, f.offset, f.datatype, f.count) for f in msg.fields] == [
            (name, 4 * i, PointField.FLOAT32, 1)
            for i, name in enumerate(('x', 'y', 'z', 'fx', 'fy', 'fz'))]
        assert (msg.height, msg.width, msg.point_step) == (1, 320, 24)
        positions, _, _ = conversions.tactile_cloud_from_msg(msg)
        # taxels on the 30 x 10 x 30 mm pad box, in the pad body frame
        np.testing.assert_allclose(np.abs(positions).max(axis=0), [0.015, 0.005, 0.015],
                                   atol=1e-6)
        # 50 Hz from a simulator ticking at 100 Hz: every second tick, 20 ms of sim time apart
        times = [conversions.time_from_msg(m.header.stamp) for m in clouds[pad][-4:]]
        np.testing.assert_allclose(np.diff(times), 0.02, atol=1e-9)
    by_pad = {}
    for marker in markers[-1].markers:
        assert marker.type == Marker.SPHERE_LIST
        by_pad.setdefault(marker.ns, []).append(marker)
    assert sorted(by_pad) == [f'tactile/{pad}' for pad in PADS]
    for pad in PADS:
        lists = by_pad[f'tactile/{pad}']
        assert [m.id for m in lists] == list(range(conversions.MARKER_LEVELS))
        assert {m.header.frame_id for m in lists} == {pad}
        assert sum(len(m.points) for m in lists) == 320
        assert all(len(m.points) == len(m.colors) for m in lists)


def test_markers_size_and_colour_taxels_by_force_magnitude():
    positions = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.02, 0.0, 0.0], [0.03, 0.0, 0.0]])
    forces = np.array([[0.0, 0.0, 0.0], [0.0, 0.3, 0.4], [2.0, 0.0, 0.0], [0.0, 0.0, 1e-9]])
    msg = conversions.tactile_markers_to_msg(
        [('left', 'finger_left', positions, forces, 0.004)], 1.5, full_scale_n=1.0)
    assert [(m.ns, m.header.frame_id, m.id) for m in msg.markers] == [
        ('tactile/left', 'finger_left', k) for k in range(conversions.MARKER_LEVELS)]
    assert msg.markers[0].header.stamp.sec == 1 and msg.markers[0].header.stamp.nanosec == 5e8
    # |f| = 0 -> level 0; 1e-9 N -> 1; 0.5 N -> ceil(0.5 x 7) = 4; 2 N (over full scale) -> 7
    members = {m.id: [p.x for p in m.points] for m in msg.markers if m.action == Marker.ADD}
    assert members == {0: [0.0], 1: [0.03], 4: [0.01], 7: [0.02]}
    assert all(not m.points for m in msg.markers if m.action == Marker.DELETE)
    scale = {m.id: m.scale.x for m in msg.markers}
    assert scale[0] == pytest.approx(0.002) and scale[7] == pytest.approx(0.006)
    colours = {m.id: (m.colors[0].r, m.colors[0].g, m.colors[0].b) for m in msg.markers
               if m.points}
    np.testing.assert_allclose(colours[0], [0.2, 0.4, 1.0])  # blue: no force
    np.testing.assert_allclose(colours[4], [1.0, 0.9, 0.1])  # yellow: half scale
    np.testing.assert_allclose(colours[7], [0.9, 0.05, 0.05])  # red: full scale


def pad_reference(sim, body_id):
    """Contacts touching the pad body (same tick): summed normal force and force on the pad."""
    contacts = sim.contacts()
    on_first = (contacts.body1 == body_id) & (contacts.body2 != body_id)
    on_second = (contacts.body2 == body_id) & (contacts.body1 != body_id)
    touching = on_first | on_second
    # force_in_world is the force on geom2: the pad as geom1 feels its opposite
    sign = np.where(on_second, 1.0, -1.0)[touching, None]
    force_in_world = (sign * contacts.force_in_world[touching]).sum(axis=0)
    rotation = sim.data.xmat[body_id].reshape(3, 3)  # pad axes in world, as columns
    return contacts.force_in_contact[touching, 0].sum(), force_in_world @ rotation


def grip_and_collect(ros, sim, record, until_s):
    """Grip the object with the scripted controller; return each pad's clouds until ``until_s``.

    ``record(simulator)`` runs every tick until then, after the tactile node's callback.
    """
    from grasp_monitor.nodes.grasp_controller import GraspControllerNode
    sim.runner.add_tick_callback(record)
    client = ros.client()
    clouds = {pad: [] for pad in PADS}
    for pad in PADS:
        client.create_subscription(PointCloud2, f'tactile/{pad}', clouds[pad].append, 1000)
    ros.add(GraspControllerNode(context=ros.context, parameter_overrides=[
        Parameter('use_sim_time', value=True)]))
    assert wait_for(lambda: sim.sim.time_s > until_s, timeout_s=60.0)
    sim.runner.remove_tick_callback(record)
    # on a busy machine the client may lag behind the simulator: let it catch up
    assert wait_for(lambda: all(
        conversions.time_from_msg(c[-1].header.stamp) > until_s for c in clouds.values()))
    return clouds


def test_grasp_forces_match_the_simulator_contacts(ros):
    sim = start_sim(ros, publish_rate=200.0)
    # the left pad reports the normal force only (as fz), the right one full vectors
    tactile = start_tactile(ros, sim, touch=['normal', 'force_vector'], publish_rate=100.0,
                            markers_rate=20.0)
    body_ids = [mujoco.mj_name2id(sim.sim.model, mujoco.mjtObj.mjOBJ_BODY, pad) for pad in PADS]
    reference = {}

    def record(simulator):  # runs after the tactile node's callback, in the same tick
        key = stamp_key(conversions.time_to_msg(simulator.time_s))
        reference[key] = [pad_reference(simulator, body_id) for body_id in body_ids]

    markers = []
    ros.client().create_subscription(MarkerArray, 'tactile/markers', markers.append, 10)
    # approach 1 s, close 1 s, lift 1.5 s, then hold: watch well into the hold, so a
    # controller that came up late on a busy machine still leaves a second of grip
    clouds = grip_and_collect(ros, sim, record, 3.5)
    gripping = 0
    for index, pad in enumerate(PADS):
        for msg in list(clouds[pad]):
            _, forces, _ = conversions.tactile_cloud_from_msg(msg)
            if stamp_key(msg.header.stamp) not in reference:  # published before or after
                continue
            normal_n, force_in_pad = reference[stamp_key(msg.header.stamp)][index]
            if normal_n < 5.0:  # not gripping yet (grip force: 10 N)
                continue
            gripping += 1
            if pad == 'finger_left':
                assert forces[:, :2].max() == 0.0 and forces[:, :2].min() == 0.0
                assert abs(forces[:, 2].sum() - normal_n) <= 0.01 * normal_n
            else:
                # the contact normal is the pad's y axis: the normal force is f_y
                assert abs(forces[:, 1].sum() - force_in_pad[1]) <= 0.01 * abs(force_in_pad[1])
                assert abs(force_in_pad[1]) >= 0.99 * normal_n
                assert np.linalg.norm(forces.sum(axis=0) - force_in_pad) \
                    <= 0.01 * np.linalg.norm(force_in_pad)
    # closing starts 1 s after the controller (itself up at 0.1 to 0.3 s, later when the
    # machine is busy): both pads grip for over a second before 3.5 s, at 100 Hz each
    assert gripping >= 2 * 100, gripping
    assert tactile.failures == 0
    loaded = {m.ns for m in markers[-1].markers if m.id > 0 and m.action == Marker.ADD}
    assert loaded == {f'tactile/{pad}' for pad in PADS}


def test_slip_on_publishes_each_taxels_slip_after_its_force(ros):
    sim = start_sim(ros, publish_rate=200.0)
    tactile = start_tactile(ros, sim, publish_rate=100.0, slip=[False, True])
    readings = {}

    def record(simulator):  # runs after the tactile node's callback, in the same tick
        reading = tactile.latest
        if reading is not None:
            readings[stamp_key(conversions.time_to_msg(reading.time_s))] = reading

    clouds = grip_and_collect(ros, sim, record, 2.5)
    left, right = clouds['finger_left'][-1], clouds['finger_right'][-1]
    assert [f.name for f in left.fields] == list(conversions.TACTILE_FIELDS)
    assert conversions.tactile_slip_from_msg(left) is None
    assert [f.name for f in right.fields] == list(
        conversions.TACTILE_FIELDS + conversions.SLIP_FIELDS)
    assert right.point_step == 36
    loaded = 0
    for msg in clouds['finger_right']:
        reading = readings.get(stamp_key(msg.header.stamp))
        if reading is None:  # published before the first record
            continue
        _, forces, _ = conversions.tactile_cloud_from_msg(msg)
        slip = conversions.tactile_slip_from_msg(msg)
        np.testing.assert_array_equal(slip, reading.slip[1].astype(np.float32))
        np.testing.assert_array_equal(forces, reading.values[1].astype(np.float32))
        unloaded = ~forces.any(axis=1)
        assert not slip[unloaded].any()  # slip is where force bears
        loaded += int((~unloaded).any())
    assert loaded >= 50, loaded  # the right pad held the object for over 0.5 s at 100 Hz


@pytest.mark.parametrize('overrides, message', [
    ({'touch': ['squeeze']},
     "tactile pad 'finger_left': touch function 'squeeze' is not one of normal, normal_force, "
     'force_vector'),
    ({'touch': ['normal', 'force_vector_global']},
     "tactile pad 'finger_right': touch function 'force_vector_global' is not one of normal, "
     'normal_force, force_vector'),
    ({'response': ['blur']},
     "parameter 'response' of tactile pad 'finger_left' must be one of nearest, spread_linear, "
     "got 'blur'"),
    ({'resolution': [0.0]},
     "parameter 'resolution' of tactile pad 'finger_left' must be in [0.0001, 1.0], got 0.0"),
    ({'resolution': [0.003, -0.002]},
     "parameter 'resolution' of tactile pad 'finger_right' must be in [0.0001, 1.0], "
     'got -0.002'),
    ({'bodies': ['thumb']},
     "tactile pad 'finger_left': unknown body 'thumb'; valid bodies: world, table, base, palm, "
     'finger_left, finger_right, object'),
    ({'pads': ['base']},
     "tactile pad 'base': body 'base' has no collision geoms to carry taxels"),
    ({'resolution': [0.003, 0.003, 0.003]},
     'resolution has 3 values for 2 pads (finger_left, finger_right); give one value for '
     'every pad or one per pad'),
])
def test_bad_configuration_fails_at_construction_with_the_valid_choices(ros, overrides, message):
    sim = start_sim(ros)
    with pytest.raises(ConfigError) as error:
        start_tactile(ros, sim, **overrides)
    assert str(error.value) == message
    assert sim.runner.tick_callbacks == []


def collect_with_truth(ros, sim, tactile, clouds_per_pad):
    """Return each pad's clouds and, by stamp, the true taxel values the node computed."""
    truth = {}

    def record(simulator):  # runs after the tactile node's callback, in the same tick
        reading = tactile.latest
        if reading is not None and abs(reading.time_s - simulator.time_s) < 1e-9:
            truth[stamp_key(conversions.time_to_msg(reading.time_s))] = [
                np.asarray(values, np.float32) for values in reading.values]

    sim.runner.add_tick_callback(record)
    client = ros.client()
    clouds = {pad: [] for pad in PADS}
    for pad in PADS:
        client.create_subscription(PointCloud2, f'tactile/{pad}', clouds[pad].append, 1000)
    assert wait_for(lambda: all(len(c) >= clouds_per_pad for c in clouds.values()),
                    timeout_s=30.0)
    sim.runner.remove_tick_callback(record)
    return clouds, truth


def test_the_ideal_preset_publishes_every_frame_as_computed(ros):
    sim = start_sim(ros)
    tactile = start_tactile(ros, sim, publish_rate=100.0, markers_rate=0.0,
                            **{'realism.preset': 'ideal', 'realism.seed': 3})
    clouds, truth = collect_with_truth(ros, sim, tactile, 30)
    for index, pad in enumerate(PADS):
        stamps = [conversions.time_from_msg(m.header.stamp) for m in clouds[pad]]
        # every tick of the 100 Hz grid, none lost
        np.testing.assert_allclose(np.diff(stamps), 0.01, atol=1e-9)
        compared = 0
        for msg in clouds[pad]:
            key = stamp_key(msg.header.stamp)
            if key in truth:
                _, forces, _ = conversions.tactile_cloud_from_msg(msg)
                np.testing.assert_array_equal(forces, truth[key][index])
                compared += 1
        assert compared >= 20


def test_a_realistic_preset_publishes_what_a_real_array_reports(ros):
    sim = start_sim(ros)
    # typical, with a third of the frames lost so the drops show in a few dozen frames
    tactile = start_tactile(ros, sim, publish_rate=100.0, markers_rate=0.0, **{
        'realism.preset': 'typical', 'realism.seed': 3, 'realism.tactile.drop_rate': 0.3})
    assert tactile.realism[0].config.noise_n == 0.002  # the preset's, under the override
    clouds, truth = collect_with_truth(ros, sim, tactile, 30)
    readings = {}
    for index, pad in enumerate(PADS):
        stamps = np.array([conversions.time_from_msg(m.header.stamp) for m in clouds[pad]])
        ticks = np.round(stamps / 0.01).astype(int)
        # frames are lost: gaps on the grid, about drop_rate of them
        lost = (ticks[-1] - ticks[0] + 1) - ticks.size
        assert 0.1 < lost / (ticks[-1] - ticks[0] + 1) < 0.5
        for msg in clouds[pad]:
            key = stamp_key(msg.header.stamp)
            _, forces, _ = conversions.tactile_cloud_from_msg(msg)
            readings.setdefault(key, {})[pad] = forces
            # the 12-bit ADC over +-0.5 N: whole steps of 2**-12 N
            np.testing.assert_array_equal(forces * 4096, np.round(forces * 4096))
            if key in truth:
                # offsets, gains, drift and noise: hardly a value as the simulator computed it
                assert np.count_nonzero(forces != truth[key][index]) > 0.9 * forces.size
    # each pad draws its own stream: the two same layouts read differently
    both = [pads for pads in readings.values() if len(pads) == 2]
    assert both and all(np.any(p[PADS[0]] != p[PADS[1]]) for p in both)


def test_a_realism_setting_outside_its_table_is_refused_at_construction(ros):
    sim = start_sim(ros)
    with pytest.raises(ConfigError, match="parameter 'realism.preset' of node "
                                          "'tactile_sensor' must be a string: one of ideal, "
                                          'typical, harsh'):
        start_tactile(ros, sim, **{'realism.preset': 'noisy'})
    assert sim.runner.tick_callbacks == []


def test_mujoco_sim_executable_hosts_the_tactile_sensor_in_its_process(ros):
    client = ros.client()
    clouds = []
    client.create_subscription(PointCloud2, 'tactile/finger_right', clouds.append, 10)
    process = subprocess.Popen(
        [sys.executable, '-c',
         'import sys; from grasp_monitor.nodes.sim_process import main; sys.exit(main())',
         '--ros-args', '-r', f'__ns:={NAMESPACE}', '-p', 'publish_rate:=100.0'],
        env=os.environ | {'PYTHONPATH': os.pathsep.join(sys.path)},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert wait_for(lambda: clouds, timeout_s=30.0)
        both = {('mujoco_sim', NAMESPACE), ('tactile_sensor', NAMESPACE)}
        assert wait_for(lambda: both <= set(client.get_node_names_and_namespaces())), \
            client.get_node_names_and_namespaces()
        assert clouds[-1].width == 320
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=20)
    assert process.returncode == 0, output
    assert 'taxels: finger_left 320, finger_right 320; at 100 Hz, every 1 simulator ticks' \
        in output
