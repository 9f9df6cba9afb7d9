"""MuJoCo's body tree as frames: moving bodies (/tf) and welded ones (/tf_static)."""

from __future__ import annotations

import dataclasses

from grasp_monitor.core.frames import FrameTransforms, relative_poses, WORLD
import mujoco
import numpy as np


class FrameTree:
    """The bodies of a model as frames in their parents.

    A body moves in its parent when it has a joint or is a mocap body; a
    jointless body is welded to its parent, at the model's constant pose.

    Args:
        model: the model.

    Attributes:
        names: every body's frame name, by id (the world body is ``WORLD``).
    """

    def __init__(self, model: mujoco.MjModel) -> None:
        names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, i) or f'body_{i}'
                 for i in range(model.nbody)]
        names[0] = WORLD
        self.names = tuple(names)
        moving = (model.body_jntnum > 0) | (model.body_mocapid >= 0)
        moving[0] = False
        self._moving = np.flatnonzero(moving)
        self._moving_parents = model.body_parentid[self._moving].copy()
        fixed = np.flatnonzero(~moving)[1:]
        self._static_frames = FrameTransforms(
            [names[i] for i in model.body_parentid[fixed]], [names[i] for i in fixed],
            model.body_pos[fixed], model.body_quat[fixed], 0.0)
        self._moving_names = (tuple(names[i] for i in self._moving_parents),
                              tuple(names[i] for i in self._moving))

    def static(self, time_s: float) -> FrameTransforms:
        """Poses of the welded (jointless) bodies in their parents (constant), at ``time_s``."""
        return dataclasses.replace(self._static_frames, time_s=time_s)

    def moving(self, data: mujoco.MjData, time_s: float) -> FrameTransforms:
        """Poses of the moving bodies (joints, mocap) in their parents in ``data``."""
        translation, quaternion = relative_poses(
            data.xpos, data.xquat, data.xmat, self._moving, self._moving_parents)
        return FrameTransforms(*self._moving_names, translation, quaternion, time_s)
