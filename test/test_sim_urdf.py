"""The URDF of every scene, read back by a URDF parser from the registry (yourdfpy).

Links, joints, limits and geometry are checked against the MuJoCo model, and the
URDF's forward kinematics at random joint positions against MuJoCo's own.
"""

import io
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.backend.frame_tree import FrameTree
from grasp_monitor.sim.scenes import build_scene, SCENARIOS
from grasp_monitor.sim.urdf import gripper_bodies, model_urdf, scene_urdf, UNLIMITED_SLIDE_M
import mujoco
import numpy as np
import pytest
import trimesh
import yourdfpy

#: URDF shapes each MuJoCo geom type becomes (a capsule: a cylinder and two spheres).
_GEOM = mujoco.mjtGeom
SHAPES = {int(_GEOM.mjGEOM_BOX): ['box'], int(_GEOM.mjGEOM_SPHERE): ['sphere'],
          int(_GEOM.mjGEOM_CYLINDER): ['cylinder'],
          int(_GEOM.mjGEOM_CAPSULE): ['cylinder', 'sphere', 'sphere'],
          int(_GEOM.mjGEOM_ELLIPSOID): ['mesh'], int(_GEOM.mjGEOM_MESH): ['mesh'],
          int(_GEOM.mjGEOM_PLANE): ['box']}


def parse(text, **kwargs):
    """Read URDF text with yourdfpy; assert it validates with no error."""
    urdf = yourdfpy.URDF.load(io.StringIO(text), **kwargs)
    assert urdf.validate(), urdf.errors
    return urdf


def shape_of(geometry):
    return next(kind for kind in ('box', 'sphere', 'cylinder', 'mesh')
                if getattr(geometry, kind) is not None)


def random_joint_positions(model, urdf, seed):
    """Return MuJoCo data at random hinge and slide positions and the URDF's configuration."""
    rng = np.random.default_rng(seed)
    data = mujoco.MjData(model)
    configuration = {}
    for name in urdf.actuated_joint_names:
        joint = urdf.joint_map[name]
        if joint.type == 'floating':
            continue
        low, high = (joint.limit.lower, joint.limit.upper) if joint.type != 'continuous' \
            else (-math.pi, math.pi)
        value = float(rng.uniform(low, high))
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = value
        configuration[name] = value
    mujoco.mj_kinematics(model, data)
    return data, configuration


def assert_kinematics_agree(model, urdf, seed=0):
    """Every link's pose in world from the URDF is MuJoCo's body pose, at random joints."""
    data, configuration = random_joint_positions(model, urdf, seed)
    urdf.update_cfg(configuration)
    for body, frame in enumerate(FrameTree(model).names):
        if frame not in urdf.link_map:
            continue
        pose = urdf.get_transform(frame, 'world')
        np.testing.assert_allclose(pose[:3, 3], data.xpos[body], atol=1e-9, err_msg=frame)
        np.testing.assert_allclose(pose[:3, :3], data.xmat[body].reshape(3, 3), atol=1e-9,
                                   err_msg=frame)


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_every_scene_reads_back_with_links_and_joints_of_its_model(scenario, tmp_path):
    scene = build_scene(scenario)
    model = mujoco.MjModel.from_xml_string(scene.mjcf)
    urdf = parse(scene_urdf(scene, tmp_path), build_scene_graph=True, load_meshes=False)
    frames = FrameTree(model).names
    # a link per body, named as its /tf frame; the root is world
    assert [link.name for link in urdf.robot.links] == list(frames)
    assert urdf.base_link == 'world'
    joints = {joint.child: joint for joint in urdf.robot.joints}
    assert set(joints) == set(frames[1:])
    for body in range(1, model.nbody):
        joint = joints[frames[body]]
        assert joint.parent == frames[model.body_parentid[body]]
        if model.body_jntnum[body] == 0:
            assert joint.type == 'fixed'
            continue
        j = model.body_jntadr[body]
        kind = model.jnt_type[j]
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            assert joint.type == 'floating'
            continue
        assert joint.name == model.joint(j).name
        np.testing.assert_array_equal(joint.axis, model.jnt_axis[j])
        if kind == mujoco.mjtJoint.mjJNT_SLIDE:
            assert joint.type == 'prismatic'
        else:
            assert joint.type == ('revolute' if model.jnt_limited[j] else 'continuous')
        if model.jnt_limited[j]:
            assert (joint.limit.lower, joint.limit.upper) == tuple(model.jnt_range[j])
    # the servos are the URDF's joints (joint_states drive it), with their torque limits
    assert set(scene.joints) <= set(urdf.actuated_joint_names)
    for name, torque in zip(scene.joints, scene.maximum_torque):
        assert urdf.joint_map[name].limit.effort == torque
    # every visible geom is drawn as its shapes, with its colour
    for body, frame in enumerate(frames):
        first = model.body_geomadr[body]
        geoms = range(first, first + model.body_geomnum[body])
        visible = [g for g in geoms if model.geom_group[g] < 3 and model.geom_rgba[g][3] > 0]
        visuals = urdf.link_map[frame].visuals
        assert [shape_of(v.geometry) for v in visuals] == \
            [shape for g in visible for shape in SHAPES[int(model.geom_type[g])]]
        colours = [urdf._material_map[v.material.name].color.rgba for v in visuals]
        np.testing.assert_allclose(colours, [model.geom_rgba[g] for g in visible
                                             for _ in SHAPES[int(model.geom_type[g])]], atol=5e-4)
        inertial = urdf.link_map[frame].inertial
        if model.body_mass[body] > 0:
            assert inertial.mass == model.body_mass[body]
            np.testing.assert_allclose(np.diag(inertial.inertia), model.body_inertia[body])
    for seed in range(3):
        assert_kinematics_agree(model, urdf, seed)


def test_pick_lift_draws_each_object_kind_as_its_shape(tmp_path):
    for kind, shape in (('box', 'box'), ('cylinder', 'cylinder'), ('sphere', 'sphere')):
        urdf = parse(scene_urdf(build_scene('pick_lift', object_kind=kind), tmp_path),
                     build_scene_graph=False, load_meshes=False)
        assert shape_of(urdf.link_map['object'].visuals[0].geometry) == shape


#: A model with what no scenario has yet: a mesh, an ellipsoid, a plane, a material, a
#: hinge with a reference angle, an unlimited slide, and motions no URDF joint expresses.
EXOTIC = """
<mujoco>
  <asset>
    <mesh name="wedge" vertex="0 0 0  0.1 0 0  0 0.1 0  0 0 0.1"/>
    <material name="steel" rgba="0.1 0.2 0.3 1"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" rgba="1 1 1 1"/>
    <body name="arm" pos="0.1 0.2 0.3" euler="0.3 0.2 0.1">
      <joint name="turn" type="hinge" axis="0 1 0" ref="0.4" range="-1 2"/>
      <geom type="mesh" mesh="wedge" material="steel"/>
      <geom type="ellipsoid" size="0.01 0.02 0.03" pos="0 0 0.05"/>
      <body name="rail" pos="0 0 0.2" quat="0.9 0 0.3 0.1">
        <joint name="slide" type="slide" axis="1 1 0" ref="0.05"/>
        <geom type="capsule" fromto="0 0 0  0.1 0.05 0" size="0.01"/>
        <body name="wrist" pos="0.1 0 0">
          <joint name="ball" type="ball"/>
          <geom type="sphere" size="0.01" group="3"/>
        </body>
        <body name="offset_hinge" pos="0 0.1 0">
          <joint name="offset" type="hinge" pos="0.05 0 0" axis="0 0 1"/>
          <geom type="box" size="0.01 0.01 0.01"/>
        </body>
        <body name="two_joints" pos="0 -0.1 0">
          <joint name="a" type="hinge" axis="1 0 0"/>
          <joint name="b" type="hinge" axis="0 1 0"/>
          <geom type="box" size="0.01 0.01 0.01"/>
        </body>
      </body>
    </body>
    <body name="target" mocap="true" pos="0.5 0 0">
      <geom type="box" size="0.01 0.01 0.01" contype="0" conaffinity="0"/>
    </body>
    <body pos="0 0.5 0"><geom type="box" size="0.01 0.01 0.01"/></body>
  </worldbody>
</mujoco>
"""


def test_meshes_references_and_the_joints_urdf_cannot_express(tmp_path):
    model = mujoco.MjModel.from_xml_string(EXOTIC)
    text = model_urdf(model, 'exotic', tmp_path)
    urdf = parse(text, build_scene_graph=True, load_meshes=True)
    joints = {joint.child: joint for joint in urdf.robot.joints}
    assert joints['arm'].type == 'revolute' and joints['arm'].name == 'turn'
    # an unlimited slide has no URDF form: far-off limits
    assert joints['rail'].type == 'prismatic'
    assert (joints['rail'].limit.lower, joints['rail'].limit.upper) == \
        (-UNLIMITED_SLIDE_M, UNLIMITED_SLIDE_M)
    # placed by /tf instead: a ball, a hinge off the body's origin, two joints, mocap
    for body in ('wrist', 'offset_hinge', 'two_joints', 'target'):
        assert joints[body].type == 'floating', body
    assert joints['body_7'].type == 'fixed'  # an unnamed body: its /tf frame name
    assert joints['wrist'].name == 'ball' and joints['target'].name == 'world_to_target'
    # the hinge and slide at their reference positions: the model's pose, from URDF zero
    assert_kinematics_agree(model, urdf)
    # the mesh, in its geom frame, as an STL file the URDF names by file:// URI
    mesh, ellipsoid = [v.geometry.mesh for v in urdf.link_map['arm'].visuals]
    assert mesh.filename.startswith('file://') and ellipsoid.filename.startswith('file://')
    stl = trimesh.load(mesh.filename.removeprefix('file://'))
    first = model.mesh_vertadr[0]
    np.testing.assert_allclose(np.sort(stl.vertices, axis=0), np.sort(
        model.mesh_vert[first:first + model.mesh_vertnum[0]], axis=0), atol=1e-6)
    assert len(stl.faces) == model.mesh_facenum[0]
    # the ellipsoid: a unit sphere scaled by its radii
    np.testing.assert_allclose(ellipsoid.scale, [0.01, 0.02, 0.03])
    sphere = trimesh.load(ellipsoid.filename.removeprefix('file://'))
    assert sphere.is_watertight and sphere.volume > 0
    np.testing.assert_allclose(np.linalg.norm(sphere.vertices, axis=1), 1.0, atol=1e-6)
    # the material's colour, not the geom's default grey
    assert urdf._material_map[urdf.link_map['arm'].visuals[0].material.name].color.rgba \
        .tolist() == [0.1, 0.2, 0.3, 1.0]
    # group 3 (collision only) is no visual; contype 0 and conaffinity 0 is no collision
    assert not urdf.link_map['wrist'].visuals and urdf.link_map['wrist'].collisions
    assert urdf.link_map['target'].visuals and not urdf.link_map['target'].collisions
    # a plane: a thin plate under its surface
    floor = urdf.link_map['world'].visuals[0]
    assert floor.geometry.box.size[2] == 0.001 and floor.origin[2, 3] == -0.0005
    # the same files again: named by content, written once
    assert model_urdf(model, 'exotic', tmp_path) == text
    assert len(list(tmp_path.iterdir())) == 2
    with pytest.raises(ConfigError, match='give a directory for its STL files'):
        model_urdf(model, 'exotic')


def test_the_gripper_alone_is_the_robot_and_the_bodies_above_it(tmp_path):
    scene = build_scene('pick_lift')
    urdf = parse(scene_urdf(scene, tmp_path, gripper_only=True), build_scene_graph=True,
                 load_meshes=False)
    assert [link.name for link in urdf.robot.links] == \
        ['world', 'base', 'palm', 'finger_left', 'finger_right']
    assert gripper_bodies(scene) == ('base', 'palm', 'finger_left', 'finger_right')
    assert urdf.actuated_joint_names == list(scene.joints)
    arm = scene_urdf(build_scene('industrial_arm'), tmp_path, gripper_only=True)
    assert 'name="cube"' not in arm and 'name="finger_left"' in arm
    with pytest.raises(ConfigError, match="unknown body 'hand'; valid: world"):
        model_urdf(mujoco.MjModel.from_xml_string(scene.mjcf), 'x', bodies=['hand'])
