"""The slip channel: per taxel, the touching surface's tangential velocity relative to the pad."""

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.plugins import create_plugin
from grasp_monitor.core.tactile import PadGroup
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.contacts import extract_contacts, geom_meshes, geom_shapes
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.sensors import contact_velocities, pad_specs, PadSpec, SimTactileArrays
import mujoco
import numpy as np
import pytest

# A 30 x 10 x 10 mm pad, yawed 90 degrees, pressed 0.2 mm into a fixed block; its slide
# joints run along its own axes, so a joint velocity is a velocity in the pad frame.
SCENE = """
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="block"><geom type="box" size="0.05 0.05 0.01"/></body>
    <body name="pad" pos="0 0 0.0148" euler="0 0 90">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.015 0.005 0.005"/>
    </body>
  </worldbody>
</mujoco>
"""


def pad_on_block(settings, velocity_in_pad):
    """Return the pad's values and slip with the pad moving at ``velocity_in_pad`` m/s."""
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    data.qvel[:] = velocity_in_pad
    mujoco.mj_forward(model, data)
    shapes = geom_shapes(model, ['pad'])
    pad = create_plugin('sensor', PadSpec('pad', settings=settings).plugin_config(),
                        shapes=shapes, meshes=geom_meshes(model, shapes))
    contacts = extract_contacts(model, data)
    assert len(contacts) >= 4
    body = model.body('pad').id
    values = pad.compute(contacts, (data.xpos[body], data.xquat[body]),
                         contact_velocities(model, data, contacts))
    return pad, values


@pytest.mark.parametrize('settings', [
    {'touch': 'force_vector'}, {'touch': 'normal'},
    {'touch': 'normal', 'response': 'nearest'}, {'touch': 'force_vector', 'resolution': 0.001}])
@pytest.mark.parametrize('speed', [0.02, -0.05])
def test_a_sliding_pad_reports_the_block_speed_in_its_frame_where_loaded(settings, speed):
    # moving along +x at speed (and pressing in at 1 cm/s): the block moves at -speed along
    # the pad's x relative to it; the normal part is not slip
    pad, values = pad_on_block(settings | {'slip': True}, [speed, 0.0, -0.01])
    load = values[:, 0] if settings['touch'] == 'normal' else values[:, 2]
    loaded = load > 1e-9
    assert loaded.sum() >= 4
    np.testing.assert_allclose(pad.slip[loaded], np.tile([-speed, 0.0, 0.0], (loaded.sum(), 1)),
                               atol=1e-12)
    np.testing.assert_array_equal(pad.slip[~loaded], 0.0)
    # weighted as the force: the load-weighted sum over the taxels is the speed
    np.testing.assert_allclose(load @ pad.slip / load.sum(), [-speed, 0.0, 0.0], atol=1e-12)


def test_a_stuck_pad_reports_no_slip_and_the_same_force_as_without_the_channel():
    pad, values = pad_on_block({'slip': True}, [0.0, 0.0, 0.0])
    assert np.abs(values).sum() > 0.0
    np.testing.assert_array_equal(pad.slip, 0.0)
    plain, plain_values = pad_on_block({}, [0.0, 0.0, 0.0])
    assert plain.slip is None
    np.testing.assert_array_equal(values, plain_values)


def test_sideways_slip_and_its_sign():
    left, _ = pad_on_block({'slip': True}, [0.0, 0.03, 0.0])
    right, _ = pad_on_block({'slip': True}, [0.0, -0.03, 0.0])
    loaded = np.abs(left.slip).sum(axis=1) > 0
    np.testing.assert_allclose(left.slip[loaded, 1], -0.03, atol=1e-12)
    np.testing.assert_allclose(right.slip, -left.slip, atol=1e-12)


def test_contact_velocities_match_mujoco_object_velocity():
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    data.qvel[:] = [0.02, -0.01, 0.003]
    mujoco.mj_forward(model, data)
    contacts = extract_contacts(model, data)
    velocity = contact_velocities(model, data, contacts)
    for k in range(len(contacts)):
        ends = []
        for body in (contacts.body1[k], contacts.body2[k]):
            spatial = np.zeros(6)  # angular, linear at the body origin, world axes
            mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, body, spatial, 0)
            arm = contacts.position_in_world[k] - data.xpos[body]
            ends.append(spatial[3:] + np.cross(spatial[:3], arm))
        np.testing.assert_allclose(velocity[k], ends[1] - ends[0], atol=1e-12)


def test_pick_lift_hold_slips_under_a_millimetre_per_second_with_unchanged_forces():
    scene = build_scene('pick_lift')
    sim = Simulator(scene, command_timeout_s=0.0, drive=default_drive(scene))
    names = ['finger_left', 'finger_right']
    with_slip = SimTactileArrays(sim, pad_specs(names, slip=[True]))
    plain = SimTactileArrays(sim, pad_specs(names))
    SimRunner(sim, RunConfig(1000.0, 0.0)).run(3.0)  # squeezed and lifted: the hold
    reading, reference = with_slip.compute(), plain.compute()
    assert reference.slip == (None, None)
    for values, plain_values, slip in zip(reading.values, reference.values, reading.slip):
        np.testing.assert_array_equal(values, plain_values)
        loaded = np.abs(values).sum(axis=1) > 0
        assert loaded.sum() > 10
        assert 0.0 < np.abs(slip[loaded]).max() < 1e-3


def test_a_pad_with_slip_needs_the_velocities():
    pad, _ = pad_on_block({'slip': True}, [0.0, 0.0, 0.0])
    with pytest.raises(ConfigError, match="a pad with slip on needs the contacts' velocity_in"):
        PadGroup([pad]).compute_block([1], [0], np.zeros((1, 3)), np.eye(3)[None],
                                      np.ones((1, 3)), np.zeros((1, 1, 3)), [[[1.0, 0, 0, 0]]])
    with pytest.raises(ConfigError, match='a pad with slip on needs the contacts'):
        pad.compute(extract_contacts(*_model_and_data()), (np.zeros(3), [1.0, 0, 0, 0]))


def _model_and_data():
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


@pytest.mark.parametrize('response', ['spread_linear', 'nearest'])
@pytest.mark.parametrize('velocity', [[0.02, 0.0, 0.0], [0.0, -0.03, -0.01], [0.0, 0.0, 0.0]])
def test_blocks_from_a_contact_sensor_with_linvel_give_the_per_step_slip(velocity, response):
    slots = 8
    model = mujoco.MjModel.from_xml_string(SCENE.replace(
        '</worldbody>', '</worldbody><sensor><contact body1="pad" num="8" reduce="none" '
        'data="found force pos normal tangent linvel"/></sensor>'))
    data = mujoco.MjData(model)
    data.qvel[:] = velocity
    mujoco.mj_forward(model, data)
    shapes = geom_shapes(model, ['pad'])
    pad = create_plugin('sensor', PadSpec('pad', settings={'slip': True, 'response': response})
                        .plugin_config(), shapes=shapes, meshes=geom_meshes(model, shapes))
    contacts = extract_contacts(model, data)
    body = model.body('pad').id
    pose = (data.xpos[body].copy(), data.xquat[body].copy())
    values = pad.compute(contacts, pose, contact_velocities(model, data, contacts))
    step_slip = pad.slip
    rows = data.sensordata.reshape(slots, 16)
    rows = rows[rows[:, 0] > 0]
    assert len(rows) == len(contacts)
    normal, tangent = rows[:, 7:10], rows[:, 10:13]
    frames = np.stack((normal, tangent, np.cross(normal, tangent)), axis=1)
    block = pad.compute_block(np.zeros(len(rows), dtype=int), rows[:, 4:7], frames, rows[:, 1:4],
                              pose[0][None], pose[1][None], None, rows[:, 13:16])
    np.testing.assert_allclose(block[0], values, atol=1e-12)
    assert pad.slip.shape == (1, len(pad.layout), 3)
    np.testing.assert_allclose(pad.slip[0], step_slip, atol=1e-12)
    assert np.abs(step_slip).max() == pytest.approx(np.abs(velocity[:2]).max(), abs=1e-12)


def test_a_contact_out_of_every_taxels_reach_gives_its_slip_to_the_nearest_taxel():
    pad, _ = pad_on_block({'slip': True}, [0.0, 0.0, 0.0])
    # 3 cm below the pad's centre: no taxel within the spread radius; 1 N, sliding at
    # 2 cm/s along tangent1 (world x), away along the normal (not slip)
    frame = np.array([[[0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]] * 2)
    values = pad.compute_block(
        [0, 1], [[0.0, 0.0, -0.03], [0.0, 0.0, 0.0]], frame, [[1.0, 0, 0], [0.0, 0, 0]],
        np.zeros((2, 3)), [[1.0, 0, 0, 0]] * 2, None, [[0.5, 0.02, 0.0], [0.0, 0.0, 0.0]])
    loaded = np.flatnonzero(np.abs(values[0]).sum(axis=1))
    assert loaded.size == 1
    np.testing.assert_allclose(pad.slip[0, loaded[0]], [0.02, 0.0, 0.0], atol=1e-15)
    assert np.count_nonzero(pad.slip[0]) == 1 and not pad.slip[1].any()
