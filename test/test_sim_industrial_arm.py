"""The industrial_arm scenario: UR10 geometry and masses read back, the grasp, the drive."""

import dataclasses
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import servo_torque
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.grasp_benchmark import PRESETS
from grasp_monitor.sim.scene import SimSettings
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.scenes.industrial_arm import (
    ArmTrajectory, BENCHMARK_TRAJECTORY, GripperModel, make_industrial_arm, UR10)
import mujoco
import numpy as np
import pytest

# The UR10's published DH parameters, m and rad.
D1, A2, A3, D4, D5, D6 = 0.1273, -0.612, -0.5723, 0.163941, 0.1157, 0.0922
DH_D = (D1, 0.0, 0.0, D4, D5, D6)
DH_A = (0.0, A2, A3, 0.0, 0.0, 0.0)
DH_ALPHA = (math.pi / 2, 0.0, 0.0, math.pi / 2, -math.pi / 2, 0.0)
ARM = ('shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_1', 'wrist_2', 'wrist_3')
JOINTS = ARM + ('finger_left', 'finger_right')
G = 9.8
# Everything the wrist carries from wrist_1 on: links 4-6, hand, two fingers, cube (kg).
WRIST_LOAD_KG = 1.96 + 1.96 + 0.202 + 0.96 + 2 * 0.12 + 0.1


def dh_flange(q):
    """Return T_base_flange of the standard DH chain, computed here independently."""
    transform = np.eye(4)
    for d, a, alpha, theta in zip(DH_D, DH_A, DH_ALPHA, q):
        ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
        transform = transform @ np.array([
            [ct, -st * ca, st * sa, a * ct],
            [st, ct * ca, -ct * sa, a * st],
            [0, sa, ca, d],
            [0, 0, 0, 1]])
    return transform


def ids(model, kind, names):
    return [mujoco.mj_name2id(model, kind, name) for name in names]


def body_id(model, name):
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)


def geom_id(model, name):
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, name)


def start(scene):
    """Compile the scene and put it in its start keyframe."""
    model = mujoco.MjModel.from_xml_string(scene.mjcf)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    return model, data


def touching(model, data):
    """Return the set of geom-name pairs in contact."""
    pairs = set()
    for contact in data.contact[:data.ncon]:
        pairs.add(frozenset(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g)
                            for g in (contact.geom1, contact.geom2)))
    return pairs


@pytest.fixture(scope='module')
def scene():
    return make_industrial_arm()


def test_masses_joints_and_actuators_read_back(scene):
    model, _ = start(scene)
    assert model.opt.timestep == 0.001 and model.opt.gravity.tolist() == [0, 0, -9.8]
    assert not any(model.geom_type == mujoco.mjtGeom.mjGEOM_PLANE)
    masses = {'base': 4.0, 'shoulder_link': 7.778, 'upper_arm_link': 12.93,
              'forearm_link': 3.87, 'wrist_1_link': 1.96, 'wrist_2_link': 1.96,
              'wrist_3_link': 0.202, 'hand': 0.96, 'finger_left': 0.12, 'finger_right': 0.12,
              'cube': 0.1}
    for name, mass in masses.items():
        assert model.body_mass[body_id(model, name)] == pytest.approx(mass, abs=1e-12), name
    # The base is welded to the world: 8 actuated joints and the cube's free joint.
    assert model.body_jntnum[body_id(model, 'base')] == 0 and model.njnt == 9
    names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(8)]
    assert tuple(names) == JOINTS == scene.joints
    joints = ids(model, mujoco.mjtObj.mjOBJ_JOINT, JOINTS)
    assert (model.jnt_type[joints[:6]] == mujoco.mjtJoint.mjJNT_HINGE).all()
    assert (model.jnt_type[joints[6:]] == mujoco.mjtJoint.mjJNT_SLIDE).all()
    assert model.jnt_type[8] == mujoco.mjtJoint.mjJNT_FREE
    # one motor per joint, same name, gear 1, able to reach the torque limits
    actuators = ids(model, mujoco.mjtObj.mjOBJ_ACTUATOR, JOINTS)
    assert actuators == list(range(8)) and model.nu == 8
    assert model.actuator_trnid[:, 0].tolist() == joints
    assert model.actuator_gear[:, 0].tolist() == [1.0] * 8
    limits = [330, 330, 150, 56, 56, 56, 100, 100]
    assert model.actuator_ctrlrange.tolist() == [[-x, x] for x in limits]
    assert scene.maximum_torque.tolist() == limits
    assert scene.kp.tolist()[:6] == [300, 300, 60, 15, 15, 15]
    assert scene.kd.tolist()[:6] == [120, 120, 24, 6, 6, 6]
    assert scene.pads == ('finger_left', 'finger_right') and scene.objects == ('cube',)
    assert scene.base_body == 'base' and scene.palm_body == 'hand'
    assert set(scene.robot_bodies) == set(masses) - {'cube'}
    assert scene.duration_s == 100.0


def test_joint_axes_and_flange_follow_the_ur10_dh_model(scene):
    model, data = start(scene)
    assert data.qpos[:8].tolist() == [0.0] * 8
    joints = ids(model, mujoco.mjtObj.mjOBJ_JOINT, ARM)
    # At q = 0 joint i turns about z_{i-1} through the origin of DH frame {i-1}.
    np.testing.assert_allclose(
        data.xaxis[joints],
        [[0, 0, 1], [0, -1, 0], [0, -1, 0], [0, -1, 0], [0, 0, -1], [0, -1, 0]], atol=1e-12)
    np.testing.assert_allclose(
        data.xanchor[joints],
        [[0, 0, 0], [0, 0, D1], [A2, 0, D1], [A2 + A3, 0, D1], [A2 + A3, -D4, D1],
         [A2 + A3, -D4, D1 - D5]], atol=1e-12)
    hand = body_id(model, 'hand')
    # the flange at q = 0, by hand: stretched along -x, offset by d4 + d6 along -y
    assert data.xpos[hand].tolist() == pytest.approx([-1.1843, -0.256141, 0.0116], abs=1e-12)
    assert dh_flange(np.zeros(6))[:3, 3].tolist() == pytest.approx(data.xpos[hand].tolist())
    # and anywhere else, against the DH chain computed here
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = rng.uniform(-math.pi, math.pi, 6)
        data.qpos[:6] = q
        mujoco.mj_kinematics(model, data)
        expected = dh_flange(q)
        np.testing.assert_allclose(data.xpos[hand], expected[:3, 3], atol=1e-12)
        np.testing.assert_allclose(data.xmat[hand].reshape(3, 3), expected[:3, :3], atol=1e-12)


def test_link_inertias_are_solid_cylinders_along_the_links(scene):
    model, _ = start(scene)
    upper_arm = body_id(model, 'upper_arm_link')
    # 12.93 kg, radius 0.075 m, 0.612 m long, centred half-way to the elbow
    assert model.body_ipos[upper_arm].tolist() == pytest.approx([-0.306, 0, 0], abs=1e-12)
    assert sorted(model.body_inertia[upper_arm]) == pytest.approx(
        [0.5 * 12.93 * 0.075 ** 2] + [12.93 * (3 * 0.075 ** 2 + 0.612 ** 2) / 12] * 2)
    wrist_2 = body_id(model, 'wrist_2_link')
    assert model.body_ipos[wrist_2].tolist() == pytest.approx([0, 0, D5 / 2], abs=1e-12)
    # short and wide: here the axial moment is the largest
    assert sorted(model.body_inertia[wrist_2]) == pytest.approx(
        [1.96 * (3 * 0.075 ** 2 + D5 ** 2) / 12] * 2 + [0.5 * 1.96 * 0.075 ** 2])
    joints = ids(model, mujoco.mjtObj.mjOBJ_JOINT, ARM)
    assert model.dof_armature[model.jnt_dofadr[joints]].tolist() == [0.1] * 6


def test_gripper_holds_the_cube_between_both_fingers_from_the_start(scene):
    model, data = start(scene)
    fingers = ids(model, mujoco.mjtObj.mjOBJ_JOINT, ('finger_left', 'finger_right'))
    # stroke 0.014 m, the start (touching) at mid-stroke
    assert model.jnt_range[fingers].tolist() == [[-0.007, 0.007]] * 2
    cube = body_id(model, 'cube')
    hand = body_id(model, 'hand')
    assert (2 * model.geom_size[geom_id(model, 'cube')]).tolist() == pytest.approx([0.05] * 3)
    # the cube sits 0.09 m out along the hand's z (palm 0.06 + clearance 0.005 + half edge)
    assert data.xpos[cube].tolist() == pytest.approx([-1.1843, -0.256141 - 0.09, 0.0116])
    pairs = touching(model, data)
    assert pairs == {frozenset({'finger_left', 'cube'}), frozenset({'finger_right', 'cube'})}
    # each finger's axis points at the cube, so the drive's +100 N closes the gripper
    command = scene.drive(0.0)
    assert command.feedforward_torque[6:].tolist() == [100.0, 100.0]
    for joint, name in zip(fingers, ('finger_left', 'finger_right')):
        toward_cube = data.xpos[cube] - data.xpos[body_id(model, name)]
        assert data.xaxis[joint] @ toward_cube == pytest.approx(0.035 - 1e-5)
    assert data.xpos[hand].tolist() == pytest.approx([-1.1843, -0.256141, 0.0116])


def test_friction_and_contact_settings_reach_the_finger_and_cube_geoms():
    model, _ = start(make_industrial_arm(SimSettings(friction=0.7, timestep_s=0.0005)))
    for name in ('finger_left', 'finger_right', 'cube'):
        geom = geom_id(model, name)
        assert model.geom_friction[geom][0] == 0.7
        # contact time constant: two physics steps
        assert model.geom_solref[geom].tolist() == [0.001, 1.0]
        assert model.geom_rgba[geom][3] == 1.0
    assert model.geom_rgba[geom_id(model, 'cube')].tolist() != model.geom_rgba[
        geom_id(model, 'finger_left')].tolist()
    # arm links are pictures only: they collide with nothing
    arm_geoms = [g for g in range(model.ngeom)
                 if model.geom_bodyid[g] in ids(model, mujoco.mjtObj.mjOBJ_BODY, (
                     'base', 'upper_arm_link', 'forearm_link', 'wrist_3_link'))]
    assert arm_geoms and all(model.geom_contype[g] == 0 for g in arm_geoms)


def test_contact_softness_settings_reach_the_grasp_geoms_and_the_limits_keep_two_steps():
    model, _ = start(make_industrial_arm(SimSettings(solref=(0.005, 0.8),
                                                     solimp=(0.99, 0.999, 0.002))))
    for name in ('finger_left', 'finger_right', 'cube'):
        geom = geom_id(model, name)
        assert model.geom_solref[geom].tolist() == [0.005, 0.8]
        assert model.geom_solimp[geom].tolist() == [0.99, 0.999, 0.002, 0.5, 2.0]
    fingers = ids(model, mujoco.mjtObj.mjOBJ_JOINT, ('finger_left', 'finger_right'))
    assert model.jnt_solref[fingers].tolist() == [[0.002, 1.0]] * 2


def test_a_cube_in_hand_coordinates_starts_as_the_free_cube_does():
    free_model, free = start(make_industrial_arm())
    hand_model, hand = start(make_industrial_arm(cube_joint='hand'))
    cube = body_id(free_model, 'cube')
    assert body_id(hand_model, 'cube') == cube
    # the same six degrees of freedom, now below the hand: three slides and a ball
    assert hand_model.body_parentid[cube] == body_id(hand_model, 'hand')
    joints = range(hand_model.body_jntadr[cube], hand_model.body_jntadr[cube] + 4)
    assert [hand_model.jnt_type[j] for j in joints] == [mujoco.mjtJoint.mjJNT_SLIDE] * 3 + [
        mujoco.mjtJoint.mjJNT_BALL]
    assert hand_model.nv == free_model.nv == 14
    np.testing.assert_allclose(hand.xpos[cube], free.xpos[cube], atol=1e-12)
    assert abs(hand.xquat[cube] @ free.xquat[cube]) == pytest.approx(1.0, abs=1e-12)
    velocities = np.zeros((2, 6))
    for row, (model, data) in enumerate(((free_model, free), (hand_model, hand))):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, cube, velocities[row], 0)
    np.testing.assert_allclose(velocities[1], velocities[0], atol=1e-12)
    assert touching(hand_model, hand) == touching(free_model, free)
    # MuJoCo skips a body's contacts with its parent: the palm's come back as a pair,
    # mixed as MuJoCo mixes the free cube's (the larger friction, the mean softness).
    assert hand_model.npair == 1
    assert {hand_model.geom(hand_model.pair_geom1[0]).name,
            hand_model.geom(hand_model.pair_geom2[0]).name} == {'hand', 'cube'}
    assert hand_model.pair_solref[0].tolist() == pytest.approx([0.011, 1.0])
    assert hand_model.pair_friction[0][:2].tolist() == [1.0, 1.0]


@pytest.mark.parametrize('cube_joint', ['free', 'hand'])
def test_in_the_hands_coordinates_the_cube_does_not_slide_along_the_pads(cube_joint):
    # The stable preset's contacts and friction; only the cube's coordinates differ.
    settings = dataclasses.asdict(PRESETS['stable'].settings) | {'friction': 1.0}
    sim = Simulator(build_scene('industrial_arm', settings, cube_joint=cube_joint),
                    command_timeout_s=0)
    cube, hand = body_id(sim.model, 'cube'), body_id(sim.model, 'hand')

    def along_the_pads_m():
        """Return the cube's centre along the hand's x and z (across and along the pads)."""
        x, _, z = sim.data.xmat[hand].reshape(3, 3).T @ (sim.data.xpos[cube] - sim.data.xpos[hand])
        return np.array([x, z])

    positions = []
    for _ in range(4):
        for _ in range(1000):
            assert sim.step(1)
        positions.append(along_the_pads_m())
    slide_m = np.abs(positions[-1] - positions[0]).max()
    if cube_joint == 'free':
        # A free joint integrates the cube's centre along the tangent of the hand's curved
        # path: an error of order dt per step that friction, a velocity constraint, never
        # takes back (a quarter as much at a quarter of the step).
        assert slide_m > 1e-3
    else:
        assert slide_m < 1e-5


def test_drive_tracks_the_benchmark_sinusoids_and_squeezes():
    scene = make_industrial_arm(feedforward='none')
    command = scene.drive(math.pi / 4)
    amplitude = [2.5, 0.5, 1.667, 0.357, 0.455, 0.577]
    omega = [1, 2, 2 / 3, 1 / 7, 2 / 11, 3 / 13]
    # at t = pi/4: pan 2.5 sin(pi/4); lift 0.5 sin(pi/2) = 0.5 at zero speed
    assert command.position[0] == pytest.approx(2.5 * math.sqrt(0.5))
    assert command.position[1] == pytest.approx(0.5) and abs(command.velocity[1]) < 1e-15
    np.testing.assert_allclose(
        command.position[:6], [a * math.sin(w * math.pi / 4) for a, w in zip(amplitude, omega)])
    np.testing.assert_allclose(
        command.velocity[:6],
        [a * w * math.cos(w * math.pi / 4) for a, w in zip(amplitude, omega)])
    assert np.isnan(command.position[6:]).all() and command.velocity[6:].tolist() == [0, 0]
    assert command.kp_scale.tolist() == [1] * 6 + [0, 0]
    assert command.kd_scale.tolist() == [1] * 6 + [0, 0]
    assert command.feedforward_torque.tolist() == [0] * 6 + [100, 100]
    assert command.maximum_torque.tolist() == [330, 330, 150, 56, 56, 56, 100, 100]


def test_cosine_velocity_target_gives_the_benchmark_codes_targets_without_the_w_factor():
    # The benchmark code's arm controller: q_des = A sin(w t), dq_des = A cos(w t).
    amplitude = [2.5, 0.5, 1.667, 0.357, 0.455, 0.577]
    omega = [1, 2, 2 / 3, 1 / 7, 2 / 11, 3 / 13]
    ours = build_scene('industrial_arm', feedforward='inverse_dynamics')
    cosine = build_scene('industrial_arm', feedforward='inverse_dynamics',
                         velocity_target='cosine')
    assert cosine.metadata['velocity_target'] == 'cosine'
    # at t = 0 the reference's targets are the amplitudes themselves
    np.testing.assert_allclose(cosine.drive(0.0).velocity[:6], amplitude, rtol=0, atol=0)
    np.testing.assert_allclose(ours.drive(0.0).velocity[:6],
                               [a * w for a, w in zip(amplitude, omega)])
    for time_s in (0.5, 3.0, 17.25):
        reference = [a * math.cos(w * time_s) for a, w in zip(amplitude, omega)]
        command, derivative = cosine.drive(time_s), ours.drive(time_s)
        np.testing.assert_allclose(command.velocity[:6], reference, rtol=1e-12, atol=1e-15)
        # the position target, the feedforward and the fingers do not change
        np.testing.assert_array_equal(command.position[:6], derivative.position[:6])
        np.testing.assert_array_equal(command.feedforward_torque, derivative.feedforward_torque)
        np.testing.assert_array_equal(command.velocity[6:], derivative.velocity[6:])
    # on the slow wrists the reference asks 2-7 times the true derivative's speed
    ratios = cosine.drive(0.0).velocity[1:6] / ours.drive(0.0).velocity[1:6]
    np.testing.assert_allclose(ratios, [1 / w for w in omega[1:]])
    assert max(ratios) == pytest.approx(7.0)


def test_gravity_feedforward_holds_the_stretched_arm_and_its_payload():
    command = make_industrial_arm(feedforward='gravity').drive(0.0)
    # q = 0: the arm lies along -x; the lift and elbow axes point along -y, so each
    # needs g * sum(m * lever) with levers measured along x (all negative).
    lift_nm = G * (12.93 * A2 / 2 + 3.87 * (A2 + A3 / 2) + WRIST_LOAD_KG * (A2 + A3))
    elbow_nm = G * (3.87 * A3 / 2 + WRIST_LOAD_KG * A3)
    np.testing.assert_allclose(
        command.feedforward_torque[:6], [0, lift_nm, elbow_nm, 0, 0, 0], atol=1e-9)


def test_start_keyframe_puts_the_arm_on_its_trajectory_with_the_cube_carried(scene):
    model, data = start(scene)
    amplitude_speed = [2.5, 1.0, 1.667 * 2 / 3, 0.357 / 7, 0.455 * 2 / 11, 0.577 * 3 / 13]
    assert data.qvel[:6].tolist() == pytest.approx(amplitude_speed)
    assert data.qvel[6:8].tolist() == [0, 0]
    cube, hand = body_id(model, 'cube'), body_id(model, 'hand')
    velocity = np.zeros((2, 6))
    # [angular, linear] at each body's origin (XBODY), world frame
    for row, body in enumerate((cube, hand)):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_XBODY, body, velocity[row], 0)
    carried = velocity[1, 3:] + np.cross(velocity[1, :3], data.xpos[cube] - data.xpos[hand])
    np.testing.assert_allclose(velocity[0, :3], velocity[1, :3], atol=1e-12)
    np.testing.assert_allclose(velocity[0, 3:], carried, atol=1e-12)


def test_two_seconds_of_pd_tracking_keep_the_cube_in_the_hand(scene):
    model, data = start(scene)
    cube, hand = body_id(model, 'cube'), body_id(model, 'hand')
    grasp = {frozenset({'finger_left', 'cube'}), frozenset({'finger_right', 'cube'})}
    worst_error_rad = 0.0
    for step in range(2000):
        command = scene.drive(data.time)
        data.ctrl[:] = servo_torque(scene.kp, scene.kd, command, data.qpos[:8], data.qvel[:8])
        worst_error_rad = max(worst_error_rad, np.abs(data.qpos[:6] - command.position[:6]).max())
        mujoco.mj_step(model, data)
        if step % 100 == 99:
            # the cube's centre in the hand frame stays within the finger pads
            x, y, z = data.xmat[hand].reshape(3, 3).T @ (data.xpos[cube] - data.xpos[hand])
            assert abs(x) < 0.02 and abs(y) < 0.0075 and 0.06 < z < 0.12, (data.time, x, y, z)
            assert touching(model, data) >= grasp, data.time
    assert data.time == pytest.approx(2.0)
    # the PD law with the inverse-dynamics feedforward tracks within 5 mrad
    assert worst_error_rad < 0.005
    assert np.abs(data.qpos[6:8]).max() < 0.0075


def test_same_settings_same_trajectory():
    def run():
        scene = make_industrial_arm()
        model, data = start(scene)
        for _ in range(300):
            command = scene.drive(data.time)
            data.ctrl[:] = servo_torque(scene.kp, scene.kd, command, data.qpos[:8],
                                        data.qvel[:8])
            mujoco.mj_step(model, data)
        return data.qpos.copy()

    assert np.array_equal(run(), run())


def test_the_backend_runs_it_from_the_start_keyframe():
    sim = Simulator(build_scene('industrial_arm'), command_timeout_s=0)
    assert sim.joint_states().velocity[:6].tolist() == pytest.approx([2.5, 1.0, 1.667 * 2 / 3,
                                                                      0.357 / 7, 0.455 * 2 / 11,
                                                                      0.577 * 3 / 13])
    for _ in range(200):
        assert sim.step(1)
    effort = sim.joint_states().effort
    assert effort[6:].tolist() == [100.0, 100.0]
    assert touching(sim.model, sim.data) == {frozenset({'finger_left', 'cube'}),
                                             frozenset({'finger_right', 'cube'})}


@pytest.mark.parametrize('make, message', [
    (lambda: make_industrial_arm(feedforward='pd'),
     "feedforward 'pd' is not one of none, gravity, inverse_dynamics"),
    (lambda: make_industrial_arm(cube_mass_kg=0.0), 'cube_mass_kg must be > 0, got 0.0'),
    (lambda: make_industrial_arm(cube_joint='world'),
     "cube_joint 'world' is not one of free, hand"),
    (lambda: make_industrial_arm(velocity_target='sine'),
     "velocity_target 'sine' is not one of derivative, cosine"),
    (lambda: make_industrial_arm(arm='UR10'), 'arm must be of type ArmModel, got str'),
    (lambda: GripperModel(finger_stroke_m=-0.014), 'finger_stroke_m must be > 0, got -0.014'),
    (lambda: GripperModel(palm_clearance_m=0.07),
     'palm_clearance_m must be < the finger length 0.06 m so the fingers reach the cube, '
     'got 0.07'),
    (lambda: dataclasses.replace(BENCHMARK_TRAJECTORY, amplitude_rad=(1, 2, 3, 4, 5)),
     'amplitude_rad must be 6 finite numbers, got (1, 2, 3, 4, 5)'),
    (lambda: ArmTrajectory((0,) * 6, (1,) * 6, (300,) * 6, (120, 120, 24, 6, 6, -6)),
     'kd_nm_s_per_rad must all be >= 0, got [120.0, 120.0, 24.0, 6.0, 6.0, -6.0]'),
    (lambda: dataclasses.replace(UR10, link_masses_kg=(4, 7.778, 0, 3.87, 1.96, 1.96, 0.202)),
     'link_masses_kg must all be > 0, got [4.0, 7.778, 0.0, 3.87, 1.96, 1.96, 0.202]'),
    (lambda: build_scene('industrial_arm', cube_size_m=-0.05),
     'cube_size_m must be > 0, got -0.05'),
])
def test_invalid_parameters_say_what_is_valid(make, message):
    with pytest.raises(ConfigError) as error:
        make()
    assert str(error.value) == message
