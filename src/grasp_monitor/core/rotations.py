"""Quaternion helpers, (w, x, y, z), vectorised over leading dimensions."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def quat_multiply(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """Hamilton product a ⊗ b, broadcasting over leading dimensions."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=-1)


def quat_conjugate(q: npt.ArrayLike) -> np.ndarray:
    """Conjugate (the inverse of a unit quaternion)."""
    q = np.array(q, float)
    q[..., 1:] *= -1.0
    return q


def quat_to_matrix(q: npt.ArrayLike) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4)."""
    w, x, y, z = np.moveaxis(np.asarray(q, float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], axis=-2)


def rotate(q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
    """Rotate vectors (..., 3) by unit quaternions (..., 4)."""
    return np.einsum('...ij,...j->...i', quat_to_matrix(q), np.asarray(v, float))
