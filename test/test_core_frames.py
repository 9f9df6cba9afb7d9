"""The frame tree composes parent-relative transforms into poses in the world, as tf2 does."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.frames import (
    FrameLookupError, FrameTransforms, FrameTree, relative_poses,
)
from grasp_monitor.core.rotations import quat_to_matrix
import numpy as np
import pytest

#: A quarter turn about z, (w, x, y, z).
QUARTER_Z = (math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5))
IDENTITY = (1.0, 0.0, 0.0, 0.0)


def batch(time_s, *edges):
    """Return FrameTransforms from (parent, child, translation, quaternion) tuples."""
    parents, children, translation, quaternion = zip(*edges)
    return FrameTransforms(parents, children, translation, quaternion, time_s)


def hand_tree():
    """Return world -> base (static, 1 m up) -> palm (a quarter turn about z) -> finger."""
    tree = FrameTree()
    tree.update(batch(0.0, ('world', 'base', (0.0, 0.0, 1.0), IDENTITY)), static=True)
    tree.update(batch(0.5, ('base', 'palm', (0.1, 0.0, 0.0), QUARTER_Z),
                      ('palm', 'finger', (0.2, 0.0, 0.0), IDENTITY),
                      ('world', 'object', (3.0, 4.0, 0.0), IDENTITY)))
    return tree


def test_a_pose_composes_its_chain_to_the_world():
    position, rotation, stamp = hand_tree().pose('finger')
    # the palm's quarter turn sends the finger's 0.2 m along x to +y
    np.testing.assert_allclose(position, [0.1, 0.2, 1.0], atol=1e-15)
    np.testing.assert_allclose(rotation, quat_to_matrix(QUARTER_Z), atol=1e-15)
    assert stamp == 0.5


def test_static_chains_carry_no_time_and_the_root_is_the_origin():
    tree = hand_tree()
    position, _, stamp = tree.pose('base')
    assert position.tolist() == [0.0, 0.0, 1.0] and stamp == -math.inf
    assert tree.pose('world')[0].tolist() == [0.0, 0.0, 0.0]


def test_distances_from_the_base_and_their_stamp():
    tree = hand_tree()
    distances, stamp = tree.distances_m(['palm', 'finger', 'object'], 'base')
    np.testing.assert_allclose(distances, [0.1, math.hypot(0.1, 0.2), math.sqrt(26.0)])
    assert stamp == 0.5
    # a newer batch of one chain: the oldest stamp used is the distances' stamp
    tree.update(batch(0.6, ('world', 'object', (0.0, 0.0, 1.0), IDENTITY)))
    distances, stamp = tree.distances_m(['finger', 'object'], 'base')
    assert distances[1] == 0.0 and stamp == 0.5


def test_the_latest_transform_of_a_child_wins():
    tree = hand_tree()
    tree.update(batch(0.7, ('base', 'palm', (0.0, 0.0, 0.3), IDENTITY),
                      ('palm', 'finger', (0.2, 0.0, 0.0), IDENTITY)))
    np.testing.assert_allclose(tree.pose('finger')[0], [0.2, 0.0, 1.3])
    assert tree.pose('finger')[2] == 0.7


def test_an_unknown_or_cut_off_frame_is_named_with_the_known_ones():
    tree = FrameTree()
    tree.update(batch(0.1, ('palm', 'finger', (0.2, 0.0, 0.0), IDENTITY)))
    with pytest.raises(FrameLookupError, match="frame 'finger' does not reach 'world' "
                       r"\(no transform to 'palm'\); frames: world, finger"):
        tree.pose('finger')
    with pytest.raises(FrameLookupError, match="no transform to 'thumb'"):
        tree.distances_m(['thumb'], 'world')


def test_a_loop_of_frames_is_refused_not_followed_forever():
    tree = FrameTree()
    tree.update(batch(0.1, ('a', 'b', (0.0, 0.0, 0.0), IDENTITY),
                      ('b', 'a', (0.0, 0.0, 0.0), IDENTITY)))
    with pytest.raises(FrameLookupError, match=r'\(a loop\)'):
        tree.pose('a')


def test_a_batch_with_mismatched_columns_is_refused():
    with pytest.raises(ConfigError, match='1 parents for 2 children'):
        FrameTransforms(('world',), ('a', 'b'), np.zeros((2, 3)), np.zeros((2, 4)), 0.0)
    with pytest.raises(ConfigError, match=r'translation must have shape \(1, 3\)'):
        FrameTransforms(('world',), ('a',), np.zeros((1, 2)), np.zeros((1, 4)), 0.0)


def test_relative_poses_invert_world_poses_in_one_go():
    rng = np.random.default_rng(7)
    quaternion = rng.normal(size=(4, 4))
    quaternion /= np.linalg.norm(quaternion, axis=1, keepdims=True)
    position = rng.normal(size=(4, 3))
    rotation = quat_to_matrix(quaternion)
    children, parents = np.array([1, 2, 3]), np.array([0, 1, 1])
    translation, relative = relative_poses(position, quaternion, rotation.reshape(4, 9),
                                           children, parents)
    # composing each child's relative pose onto its parent's world pose gives it back
    for row, (child, parent) in enumerate(zip(children, parents)):
        np.testing.assert_allclose(position[parent] + rotation[parent] @ translation[row],
                                   position[child], atol=1e-12)
        np.testing.assert_allclose(rotation[parent] @ quat_to_matrix(relative[row]),
                                   rotation[child], atol=1e-12)
