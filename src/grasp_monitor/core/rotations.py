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


#: Entry e of a rotation matrix (row-major) is ``_FACTORS[e] q_a q_b + _FACTORS[9 + e] q_c q_d``
#: (+ 1 on the diagonal), with flat product indices a * 4 + b in ``_TERMS[e]`` and c * 4 + d in
#: ``_TERMS[9 + e]``: e.g. R00 = -2 yy - 2 zz + 1, R01 = 2 xy - 2 wz.
_TERMS = np.array([10, 6, 7, 6, 5, 11, 7, 11, 5, 15, 3, 2, 3, 15, 1, 2, 1, 10])
_FACTORS = np.array([-2.0, 2, 2, 2, -2, 2, 2, 2, -2, -2, -2, 2, 2, -2, -2, -2, 2, -2])
#: Up to this many quaternions take the products above; more, the entries one by one.
_GATHER_MAX = 200


def quat_to_matrix(q: npt.ArrayLike) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4).

    Each entry is the same arithmetic whatever the batch (``1 - 2 (yy + zz)``,
    ``2 (xy - wz)``, ...; scaling by 2 is exact), so the three ways below give
    the same bits, each the fastest for its size: Python floats for one
    quaternion (a pad pose per tick), a few calls over all products for small
    batches, and entries filled in place for large ones.
    """
    q = np.asarray(q, float)
    if q.shape == (4,):
        w, x, y, z = q.tolist()
        return np.array([
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ])
    if q.shape[-1:] == (4,) and q.size <= 4 * _GATHER_MAX:
        flat = q.reshape(-1, 4)
        terms = np.take((flat[:, :, None] * flat[:, None, :]).reshape(-1, 16), _TERMS, axis=1)
        terms *= _FACTORS
        entries = terms[:, :9] + terms[:, 9:]
        entries[:, ::4] += 1.0
        return entries.reshape(q.shape[:-1] + (3, 3))
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


# cross(): the components each product takes, (1, 2, 0) and (2, 0, 1).
_NEXT = np.array([1, 2, 0])
_AFTER = np.array([2, 0, 1])


def cross(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """Return a × b of float 3-vectors, broadcasting over leading dimensions.

    The products and differences of ``np.cross`` (``a1 b2 - a2 b1``, ...), so equal to it
    bit for bit, without its axis handling: a quarter of its time on a few contacts,
    which the per-sample grasp quality takes several times at every step.
    """
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    return (a.take(_NEXT, axis=-1) * b.take(_AFTER, axis=-1)
            - a.take(_AFTER, axis=-1) * b.take(_NEXT, axis=-1))
