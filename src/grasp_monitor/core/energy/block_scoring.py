"""The tracker's kernel: the energy metric of blocks of samples, compiled with numba.

The tracker scores every physics step of a run, so its per-sample work (intervals,
energies, peaks, failure) is written for numba: blocks run it compiled, a loop over
samples, objects and grippers on scalars with no temporary arrays, which costs a fraction
of the numpy calls the same steps take on blocks (each slowed by the cache the simulation
took). Single samples run the same code as Python (``core.compiled``). ``energy`` stays
the numpy statement of the metric that tests compare with.
"""

from __future__ import annotations

import math

from grasp_monitor.core.compiled import Compiled, float_array
import numpy as np


def _first_bad_time(times: np.ndarray, previous_s: float) -> int:
    """Index of the first time not finite or not after the one before, or -1.

    The first is compared with ``previous_s`` (NaN: no previous sample).
    """
    before = previous_s
    for n in range(times.shape[0]):
        if not (math.isfinite(times[n]) and (math.isnan(before) or times[n] > before)):
            return n
        before = times[n]
    return -1


def _score_block(
    times: np.ndarray, dt_s: float, lever: float, threshold_j: float,
    position_object: np.ndarray, quaternion_object: np.ndarray,
    linvel_object: np.ndarray, angvel_object: np.ndarray,
    position_gripper: np.ndarray, quaternion_gripper: np.ndarray,
    linvel_gripper: np.ndarray, angvel_gripper: np.ndarray,
    position_in_gripper: np.ndarray, quaternion_in_gripper: np.ndarray,
    mass: np.ndarray, inertia: np.ndarray,
    energy_out: np.ndarray, mean_out: np.ndarray,
    peak_energy_j: np.ndarray, peak_time_s: np.ndarray,
) -> int:
    """Score N samples of objects carried by the grippers; return the first failed one or -1.

    Writes the energies (N, 2, K) and their mean (N, K), and raises the
    per-object peaks (K,) in place (a NaN is no peak). For every sample n,
    object k and gripper g, ``energy``'s steps with the desired state of the
    object carried rigidly by g: ``x* = x_g + R(q_g) p``, ``q* = q_g ⊗ q_gk``
    (its sign nearest q), ``v* = v_g + lever ω_g × R(q_g) p`` (``lever`` 1: the
    object carried rigidly; 0: ``v* = v_g``, the benchmark's code), ``ω* = ω_g``;
    ``ωᵀ R I Rᵀ ω`` is evaluated in object axes, with the inertia (K, 3, 3)
    in object axes. ``dt`` is ``dt_s``, the physics step, whatever the interval
    between samples (the benchmark's analyser). Inputs are (N, K, ...)
    for objects, (N, 2, ...) for grippers, (2, K, ...) for the start poses in
    the grippers. A sample fails when a mean exceeds ``threshold_j`` or is NaN.
    Rotations by a unit quaternion (w, u) are written out as
    ``v + 2w (u × v) + 2 u × (u × v)``: numba compiles no call to a plain function.
    """
    first_failed = -1
    h = dt_s
    for n in range(times.shape[0]):
        for k in range(mass.shape[0]):
            qw, qx, qy, qz = (quaternion_object[n, k, 0], quaternion_object[n, k, 1],
                              quaternion_object[n, k, 2], quaternion_object[n, k, 3])
            total = 0.0
            for g in range(2):
                gw, gx, gy, gz = (quaternion_gripper[n, g, 0], quaternion_gripper[n, g, 1],
                                  quaternion_gripper[n, g, 2], quaternion_gripper[n, g, 3])
                # lever = R(q_g) p
                px, py, pz = (position_in_gripper[g, k, 0], position_in_gripper[g, k, 1],
                              position_in_gripper[g, k, 2])
                cx, cy, cz = gy * pz - gz * py, gz * px - gx * pz, gx * py - gy * px
                lx = px + 2.0 * (gw * cx + gy * cz - gz * cy)
                ly = py + 2.0 * (gw * cy + gz * cx - gx * cz)
                lz = pz + 2.0 * (gw * cz + gx * cy - gy * cx)
                wx, wy, wz = (angvel_gripper[n, g, 0], angvel_gripper[n, g, 1],
                              angvel_gripper[n, g, 2])
                ux, uy, uz = lever * (wy * lz - wz * ly), lever * (wz * lx - wx * lz), \
                    lever * (wx * ly - wy * lx)
                vx = ((position_gripper[n, g, 0] + lx - position_object[n, k, 0]) / h
                      + (linvel_gripper[n, g, 0] + ux - linvel_object[n, k, 0]))
                vy = ((position_gripper[n, g, 1] + ly - position_object[n, k, 1]) / h
                      + (linvel_gripper[n, g, 1] + uy - linvel_object[n, k, 1]))
                vz = ((position_gripper[n, g, 2] + lz - position_object[n, k, 2]) / h
                      + (linvel_gripper[n, g, 2] + uz - linvel_object[n, k, 2]))
                bw, bx, by, bz = (quaternion_in_gripper[g, k, 0], quaternion_in_gripper[g, k, 1],
                                  quaternion_in_gripper[g, k, 2], quaternion_in_gripper[g, k, 3])
                sw = gw * bw - gx * bx - gy * by - gz * bz
                sx = gw * bx + gx * bw + gy * bz - gz * by
                sy = gw * by - gx * bz + gy * bw + gz * bx
                sz = gw * bz + gx * by - gy * bx + gz * bw
                if sw * qw + sx * qx + sy * qy + sz * qz < 0.0:
                    sw, sx, sy, sz = -sw, -sx, -sy, -sz
                dw, dx, dy, dz = (sw - qw) / h, (sx - qx) / h, (sy - qy) / h, (sz - qz) / h
                # to_omega(q, q_dot) with the reference's matrix, plus the spin error.
                ax = 2.0 * (-qx * dw + qw * dx - qz * dy + qy * dz) + wx - angvel_object[n, k, 0]
                ay = 2.0 * (-qy * dw + qz * dx + qw * dy - qx * dz) + wy - angvel_object[n, k, 1]
                az = 2.0 * (-qz * dw - qy * dx + qx * dy + qw * dz) + wz - angvel_object[n, k, 2]
                # R(q)ᵀ ω: the same rotation by conj(q) = (w, -u).
                cx, cy, cz = qz * ay - qy * az, qx * az - qz * ax, qy * ax - qx * ay
                ax, ay, az = (ax + 2.0 * (qw * cx - qy * cz + qz * cy),
                              ay + 2.0 * (qw * cy - qz * cx + qx * cz),
                              az + 2.0 * (qw * cz - qx * cy + qy * cx))
                angular = (ax * (inertia[k, 0, 0] * ax + inertia[k, 0, 1] * ay
                                 + inertia[k, 0, 2] * az)
                           + ay * (inertia[k, 1, 0] * ax + inertia[k, 1, 1] * ay
                                   + inertia[k, 1, 2] * az)
                           + az * (inertia[k, 2, 0] * ax + inertia[k, 2, 1] * ay
                                   + inertia[k, 2, 2] * az))
                value = 0.5 * (mass[k] * (vx * vx + vy * vy + vz * vz) + angular)
                energy_out[n, g, k] = value
                total += value
            mean = 0.5 * total
            mean_out[n, k] = mean
            if mean > peak_energy_j[k]:
                peak_energy_j[k], peak_time_s[k] = mean, times[n]
            if first_failed < 0 and not mean <= threshold_j:
                first_failed = n
    return first_failed


# One signature each, so views of any layout and read-only arrays take no compilation of
# their own.
_FIRST_BAD_TIME = Compiled(_first_bad_time, lambda nb: nb.int64(float_array(nb, 1), nb.float64))
_SCORE_BLOCK = Compiled(_score_block, lambda nb: nb.int64(
    float_array(nb, 1), nb.float64, nb.float64, nb.float64, *([float_array(nb, 3)] * 10),
    float_array(nb, 1), float_array(nb, 3), float_array(nb, 3, readonly=False),
    float_array(nb, 2, readonly=False), float_array(nb, 1, readonly=False),
    float_array(nb, 1, readonly=False)))


def compile_block_scoring() -> None:
    """Compile (or load from numba's cache) what ``update_block`` runs on blocks.

    The first block of a process would otherwise wait for it (about 0.3 s with
    numba's cache, 1.5 s without); a benchmark calls this before its clock starts.
    """
    for function in (_FIRST_BAD_TIME, _SCORE_BLOCK):
        function.compiled
