"""MuJoCo names to ids, once: an unknown name raises, listing the valid ones."""

from __future__ import annotations

from grasp_monitor.core.errors import ConfigError
import mujoco
import numpy as np


def resolve_ids(model: mujoco.MjModel, kind: mujoco.mjtObj, names: tuple[str, ...],
                what: str) -> np.ndarray:
    """Ids of ``names``; an unknown name raises, listing the valid ones."""
    count = {
        mujoco.mjtObj.mjOBJ_BODY: model.nbody,
        mujoco.mjtObj.mjOBJ_JOINT: model.njnt,
        mujoco.mjtObj.mjOBJ_ACTUATOR: model.nu,
    }[kind]
    ids = []
    for name in names:
        index = mujoco.mj_name2id(model, kind, name)
        if index < 0:
            valid = [mujoco.mj_id2name(model, kind, i) for i in range(count)]
            raise ConfigError(
                f'unknown {what} {name!r}; valid: {", ".join(v for v in valid if v)}')
        ids.append(index)
    return np.array(ids, dtype=np.int64)


def resolve_body(model: mujoco.MjModel, body: str) -> np.int64:
    """Id of ``body``; an unknown name raises, listing the valid ones."""
    return resolve_ids(model, mujoco.mjtObj.mjOBJ_BODY, (body,), 'body')[0]


def contiguous_view(values: np.ndarray, ids: np.ndarray) -> np.ndarray | None:
    """``values[ids]`` as a view (it follows every step) when the ids run in order."""
    if ids.size and np.array_equal(ids, np.arange(ids[0], ids[0] + ids.size)):
        return values[ids[0]:ids[0] + ids.size]
    return None
