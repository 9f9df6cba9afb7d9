"""Contact extraction from real MuJoCo data, checked against mj_contactForce."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_multiply
from grasp_monitor.core.tactile import TactileConfig, TactilePad
from grasp_monitor.core.tactile.geom_taxels import pad_layout
from grasp_monitor.sim.contacts import extract_contacts, geom_meshes, geom_shapes
import mujoco
import numpy as np
import pytest

GRAVITY_M_S2 = 9.81

# Four 1 kg bodies of condim 1, 3, 4 and 6 on a plane; tilted gravity loads friction.
CONDIM_SCENE = """
<mujoco>
  <option timestep="0.002" cone="{cone}" gravity="2 1 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" condim="1"/>
    <body name="c1" pos="-0.5 0 0.1"><freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" condim="1"/></body>
    <body name="c3" pos="0 0 0.1"><freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" condim="3" friction="1 0.01 0.01"/></body>
    <body name="c4" pos="0.5 0 0.1"><freejoint/>
      <geom type="sphere" size="0.1" mass="1" condim="4" friction="1 0.01 0.01"/></body>
    <body name="c6" pos="1 0 0.1"><freejoint/>
      <geom type="capsule" size="0.05 0.1" euler="90 0 0" mass="1" condim="6"
            friction="0.8 0.02 0.03"/></body>
  </worldbody>
</mujoco>
"""

CUBE_SCENE = """
<mujoco>
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="cube" pos="0 0 0.05"><freejoint/>
      <geom name="cube_geom" type="box" size="0.05 0.05 0.05" mass="1"/></body>
    <body name="ball" pos="1 0 0.055"><freejoint/>
      <geom name="ball_geom" type="sphere" size="0.05" mass="1" margin="0.01"/>
    </body>
    <body name="tool" pos="0 1 1">
      <geom name="tool_box" type="box" size="0.1 0.2 0.3" pos="0.1 0 0" euler="0 0 30"/>
      <geom name="tool_ghost" type="sphere" size="0.1" contype="0" conaffinity="0"/>
      <geom name="tool_cyl" type="cylinder" size="0.02 0.05" contype="0" conaffinity="1"/>
    </body>
  </worldbody>
</mujoco>
"""


def _settle(xml, steps):
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    mujoco.mj_step(model, data, nstep=steps)
    return model, data


@pytest.mark.parametrize('cone', ['pyramidal', 'elliptic'])
def test_force_equals_mj_contact_force_for_every_condim(cone):
    model, data = _settle(CONDIM_SCENE.format(cone=cone), 300)
    contacts = extract_contacts(model, data)
    active = np.flatnonzero(data.contact.efc_address >= 0)
    assert len(contacts) == active.size > 4
    assert set(data.contact.dim[active]) == {1, 3, 4, 6}
    expected = np.zeros((active.size, 6))
    for row, index in enumerate(active):
        mujoco.mj_contactForce(model, data, int(index), expected[row])
    np.testing.assert_allclose(contacts.force_in_contact, expected[:, :3], rtol=0, atol=1e-12)
    # Friction is loaded on the frictional contacts, so tangents are really compared.
    condim = data.contact.dim[active]
    tangential_n = np.linalg.norm(contacts.force_in_contact[:, 1:], axis=1)
    for frictional in (3, 4, 6):
        assert np.max(tangential_n[condim == frictional]) > 0.1
    np.testing.assert_array_equal(tangential_n[condim == 1], 0.0)
    np.testing.assert_array_equal(contacts.geom1, data.contact.geom1[active])
    np.testing.assert_array_equal(contacts.geom2, data.contact.geom2[active])
    np.testing.assert_array_equal(contacts.body2, model.geom_bodyid[data.contact.geom2[active]])
    np.testing.assert_array_equal(
        contacts.frame_in_world, data.contact.frame[active].reshape(-1, 3, 3))
    np.testing.assert_array_equal(contacts.position_in_world, data.contact.pos[active])
    assert contacts.time_s == pytest.approx(300 * 0.002)


def test_resting_cube_normal_force_is_its_weight_on_geom2():
    model, data = _settle(CUBE_SCENE, 500)
    cube = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, 'cube')
    contacts = extract_contacts(model, data, time_s=12.5)
    on_cube = contacts.body2 == cube
    assert np.count_nonzero(on_cube) == 4 and np.all(contacts.body1[on_cube] == 0)
    # The plane is geom1, so the force is the floor's push on the cube: +m g along z.
    assert np.all(contacts.force_in_contact[on_cube, 0] > 0)
    total = contacts.force_in_world[on_cube].sum(axis=0)
    np.testing.assert_allclose(total, [0.0, 0.0, 1.0 * GRAVITY_M_S2], atol=1e-6)
    assert contacts.time_s == 12.5


def test_excluded_contacts_are_dropped():
    model = mujoco.MjModel.from_xml_string(CUBE_SCENE)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    cube = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, 'cube_geom')
    ball = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, 'ball_geom')
    geom2 = data.contact.geom2[:data.ncon]
    # The cube starts exactly touching (distance 0, no margin): MuJoCo lists its four
    # contacts but keeps them out of the solver. The ball floats 5 mm up, inside its
    # 10 mm margin, so its contact is active.
    assert np.count_nonzero(geom2 == cube) == 4
    assert np.all(data.contact.efc_address[geom2 == cube] < 0)
    assert np.all(data.contact.efc_address[geom2 == ball] >= 0)
    contacts = extract_contacts(model, data)
    assert contacts.geom2.tolist() == [ball]
    assert contacts.force_in_contact[0, 0] > 0


def test_no_contacts_gives_empty_contacts():
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>')
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    contacts = extract_contacts(model, data)
    assert len(contacts) == 0 and contacts.force_in_contact.shape == (0, 3)
    assert contacts.time_s == 0.0


def test_geom_shapes_of_a_body_keep_collision_geoms_in_body_frame():
    model = mujoco.MjModel.from_xml_string(CUBE_SCENE)
    shapes = geom_shapes(model, ['tool'])
    assert [s.name for s in shapes] == ['tool_box', 'tool_cyl']
    box, cylinder = shapes
    assert box.kind == 'box' and box.body == 'tool'
    np.testing.assert_allclose(box.size, [0.1, 0.2, 0.3])
    np.testing.assert_allclose(box.position_in_body, [0.1, 0.0, 0.0])
    half = np.radians(30) / 2
    np.testing.assert_allclose(box.quaternion_in_body, [np.cos(half), 0, 0, np.sin(half)],
                               atol=1e-12)
    assert cylinder.kind == 'cylinder'
    np.testing.assert_allclose(cylinder.size[:2], [0.02, 0.05])
    assert box.geom_id == mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, 'tool_box')
    every = geom_shapes(model)
    assert [s.name for s in every] == ['floor', 'cube_geom', 'ball_geom', 'tool_box', 'tool_cyl']
    assert every[0].body == 'world' and every[0].kind == 'plane'
    assert geom_meshes(model, every) == {}


def test_geom_shapes_unknown_body_lists_valid_names():
    model = mujoco.MjModel.from_xml_string(CUBE_SCENE)
    with pytest.raises(ConfigError) as error:
        geom_shapes(model, ['tool', 'gripper'])
    assert str(error.value) == "unknown body 'gripper'; valid bodies: world, cube, ball, tool"


def test_geom_meshes_returns_triangles_in_geom_frame():
    xml = """
    <mujoco>
      <asset><mesh name="tet" vertex="0 0 0  1 0 0  0 1 0  0 0 1"/></asset>
      <worldbody><body name="b"><geom type="mesh" mesh="tet"/></body></worldbody>
    </mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    shapes = geom_shapes(model, ['b'])
    assert [s.kind for s in shapes] == ['mesh']
    vertices, faces = geom_meshes(model, shapes)[shapes[0].geom_id]
    assert vertices.shape == (4, 3) and faces.shape == (4, 3)
    # MuJoCo re-centres the mesh on its centroid; the geom pose carries the offset back.
    body_vertices = vertices @ mujoco_matrix(shapes[0].quaternion_in_body).T
    body_vertices += shapes[0].position_in_body
    np.testing.assert_allclose(
        np.sort(body_vertices, axis=0),
        np.sort([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], axis=0),
        atol=1e-6)  # MuJoCo stores mesh vertices as float32


def mujoco_matrix(quaternion):
    """Rotation matrix of a (w, x, y, z) quaternion, computed by MuJoCo."""
    matrix = np.zeros(9)
    mujoco.mju_quat2Mat(matrix, np.asarray(quaternion, float))
    return matrix.reshape(3, 3)


def _axis_quaternion(axis, degrees):
    half = math.radians(degrees) / 2
    return np.concatenate([[math.cos(half)], math.sin(half) * np.asarray(axis, float)])


def _cube_on_tilted_pad(cube_first):
    """MJCF of a 1 kg cube resting on a fixed pad flipped and tilted 20° (and yawed)."""
    # Pad: 160° about x, then 90° about its own z; its -z face is up, tilted 20° towards +y.
    pad_quaternion = quat_multiply(_axis_quaternion((1, 0, 0), 160),
                                   _axis_quaternion((0, 0, 1), 90))
    up = np.array([0.0, math.sin(math.radians(20)), math.cos(math.radians(20))])
    cube_position = np.array([0.0, 0.0, 0.5]) + up * (0.005 + 0.02)
    cube_quaternion = _axis_quaternion((1, 0, 0), -20)

    def fmt(values):
        return ' '.join(repr(float(v)) for v in values)

    pad = (f'<body name="pad" pos="0 0 0.5" quat="{fmt(pad_quaternion)}">'
           '<geom name="pad_geom" type="box" size="0.05 0.05 0.005"/></body>')
    cube = (f'<body name="cube" pos="{fmt(cube_position)}" '
            f'quat="{fmt(cube_quaternion)}"><freejoint/>'
            '<geom name="cube_geom" type="box" size="0.02 0.02 0.02" mass="1"/></body>')
    bodies = cube + pad if cube_first else pad + cube
    return ('<mujoco><option timestep="0.002" gravity="0 0 -9.81" cone="elliptic"/>'
            f'<worldbody>{bodies}</worldbody></mujoco>')


@pytest.mark.parametrize('cube_first', [False, True])
def test_cube_on_a_rotated_pad_weighs_m_g_in_every_touch_frame(cube_first):
    model, data = _settle(_cube_on_tilted_pad(cube_first), 1000)
    pad_body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, 'pad')
    pad_geom = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, 'pad_geom')
    contacts = extract_contacts(model, data)
    # Both orders, so the flip for a pad that is geom1 is exercised too.
    assert np.all((contacts.geom1 == pad_geom) == (not cube_first))
    assert np.all((contacts.geom2 == pad_geom) == cube_first)
    assert np.linalg.norm(data.qvel) < 1e-3  # at rest: contact forces balance gravity
    layout = pad_layout(geom_shapes(model, ['pad']), 0.005)
    pose = (data.xpos[pad_body].copy(), data.xquat[pad_body].copy())
    weight = 1.0 * GRAVITY_M_S2
    along, across = weight * math.cos(math.radians(20)), weight * math.sin(math.radians(20))
    # The cube presses the pad down (world -z); in the pad frame (x = pad (160° x, 90° z)
    # of world) that is (-m g sin 20°, 0, m g cos 20°), the pad's +z facing into its body.
    expected = {
        'normal': [along],
        'normal_force': [0.0, 0.0, along],
        'force_vector': [-across, 0.0, along],
        'force_vector_global': [0.0, 0.0, -weight],
    }
    for touch, total in expected.items():
        for response in ('spread_linear', 'nearest'):
            sensor = TactilePad(layout, config=TactileConfig(touch, response))
            values = sensor.compute(contacts, pose)
            assert values.shape == (len(layout), len(total))
            np.testing.assert_allclose(values.sum(axis=0), total, rtol=0, atol=1e-6 * weight)
            np.testing.assert_allclose(sensor.total_force_in_pad, expected['force_vector'],
                                       rtol=0, atol=1e-6 * weight)
    # Only the taxels under the cube (the pad's -z face) light up.
    lit = TactilePad(layout, config=TactileConfig('normal')).compute(contacts, pose)[:, 0] > 0
    assert np.all(layout.normals_in_body[lit, 2] == -1.0)
    assert np.all(np.abs(layout.positions_in_body[lit, :2]).max(axis=1) < 0.02 + 0.01)


def test_pad_contacts_are_oriented_from_the_pad_and_name_the_other_body():
    from grasp_monitor.sim.contacts import pad_contacts
    # the cube rests on the pad (geom2 of the contact: the floor plane comes first)
    model = mujoco.MjModel.from_xml_string("""<mujoco><worldbody>
      <body name="pad"><geom type="box" size="0.1 0.1 0.01"/></body>
      <body name="cube" pos="0 0 0.03"><freejoint/><geom type="box" size="0.02 0.02 0.02"
        mass="0.5"/></body></worldbody></mujoco>""")
    data = mujoco.MjData(model)
    for _ in range(300):
        mujoco.mj_step(model, data)
    every = extract_contacts(model, data)
    pad, cube = (mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in ('pad', 'cube'))
    touching = pad_contacts(every, [pad])
    assert len(touching) == len(every) > 0
    assert set(touching.body1) == {pad} and set(touching.body2) == {cube}
    # the pad holds the cube up: its force on the cube is the cube's weight, upwards
    assert touching.force_in_world.sum(axis=0) == pytest.approx([0, 0, 0.5 * 9.81], abs=1e-3)
    assert np.allclose(touching.normal_in_world, [0, 0, 1])
    assert len(pad_contacts(every, [model.nbody + 5])) == 0  # no pad touched


@pytest.mark.parametrize('cube_first', [False, True])
def test_the_contacts_and_the_pads_view_of_them_select_the_same_object_contacts(cube_first):
    from grasp_monitor.core.metrics.trial import summarize_object_contacts
    from grasp_monitor.sim.contacts import pad_contacts
    pad_body = '<body name="pad"><geom type="box" size="0.1 0.1 0.01"/></body>'
    cube_body = ('<body name="cube" pos="0 0 0.03"><freejoint/><geom type="box" '
                 'size="0.02 0.02 0.02" mass="0.5"/></body>')
    bodies = cube_body + pad_body if cube_first else pad_body + cube_body
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><worldbody>{bodies}</worldbody></mujoco>')
    data = mujoco.MjData(model)
    for _ in range(300):
        mujoco.mj_step(model, data)
    every = extract_contacts(model, data)
    pad, cube = (mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n) for n in ('pad', 'cube'))
    # the cube's geom comes first when its body does: the selection turns its force
    assert set(every.body1) == ({cube} if cube_first else {pad})
    points, forces, index, normals = every.with_object_normals([pad], cube)
    view = pad_contacts(every, [pad]).with_object_normals([pad], cube)
    for mine, theirs in zip((points, forces, index, normals), view):
        np.testing.assert_allclose(mine, theirs, atol=1e-12)
    assert len(points) == len(every) > 0 and index.tolist() == [0] * len(points)
    # the pad holds the cube up: the forces on the cube add up to its weight, upwards
    assert forces.sum(axis=0) == pytest.approx([0, 0, 0.5 * 9.81], abs=1e-3)
    assert np.allclose(normals, [0, 0, 1])
    summary = summarize_object_contacts(every, cube, [pad])
    assert summary.net_force_on_object_in_world == pytest.approx([0, 0, 0.5 * 9.81], abs=1e-3)
    assert summary.count == len(points) and summary.body_mask.tolist() == [True]
