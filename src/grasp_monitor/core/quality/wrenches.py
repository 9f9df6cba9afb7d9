"""The wrenches contacts can apply to an object, per unit normal force.

Contact i at ``p_i`` (from the object's centre of mass) pushing along the inward unit
normal ``n_i`` with friction ``mu`` applies, with unit normal force, the forces of the
polyhedral friction cone's edges ``f_ij = n_i + mu (cos θ_j t1_i + sin θ_j t2_i)``,
``θ_j = 2πj/m``, and the wrenches ``w_ij = (f_ij, p_i × f_ij / L)``: torques divided by
a length ``L`` so forces and torques share a unit. A soft finger also resists a torque
about its normal up to ``γ`` times its normal force: two more wrenches
``(n_i, (p_i × n_i ± γ n_i) / L)``; their hull with the edges is the linearised
friction model ``|f_t| / mu + |τ_n| / γ <= f_n``.
"""

from __future__ import annotations

from grasp_monitor.core.rotations import cross
import numpy as np
import numpy.typing as npt


def tangents(normals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (K, 3) twice: unit tangents orthogonal to each unit normal and each other."""
    helper = np.zeros_like(normals)
    helper[np.arange(len(normals)), np.argmin(np.abs(normals), axis=1)] = 1.0
    t1 = cross(normals, helper)
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    return t1, cross(normals, t1)


def contact_wrenches(points_from_com: npt.ArrayLike, normals: npt.ArrayLike, friction: float,
                     edges: int, torsion_m: float, torque_length_m: float) -> np.ndarray:
    """Return (K, E, 6) the wrenches of K contacts per unit normal force (module docstring).

    Args:
        points_from_com: (K, 3) contact points from the centre of mass, m.
        normals: (K, 3) unit normals into the object.
        friction: the friction coefficient.
        edges: m, edges of each friction cone.
        torsion_m: γ of a soft finger, m (0: point contact, E = m; else E = m + 2).
        torque_length_m: L, m (> 0).
    """
    p = np.asarray(points_from_com, float).reshape(-1, 3)
    n = np.asarray(normals, float).reshape(-1, 3)
    t1, t2 = tangents(n)
    theta = 2.0 * np.pi * np.arange(edges) / edges
    forces = n[:, None] + friction * (np.cos(theta)[None, :, None] * t1[:, None]
                                      + np.sin(theta)[None, :, None] * t2[:, None])
    torques = cross(p[:, None], forces)
    if torsion_m > 0.0:
        twist = (cross(p, n)[:, None] + torsion_m * np.array([1.0, -1.0])[None, :, None]
                 * n[:, None])
        forces = np.concatenate([forces, np.repeat(n[:, None], 2, axis=1)], axis=1)
        torques = np.concatenate([torques, twist], axis=1)
    return np.concatenate([forces, torques / torque_length_m], axis=2)
