"""The energy metric of the physics-engine grasp benchmark (Taylor & Drumwright).

The metric is the kinetic energy, J, a body would need to reach its desired
state within one step ``dt``: its pose error divided by ``dt`` becomes a
velocity error that adds to the velocity error itself. For a grasped object
the desired state is the object carried rigidly by a gripper from their
relative pose at the start of the trial; the metric is the mean over the left
and the right gripper, and a trial fails when it exceeds a threshold
(REFERENCE.md section 3).

Quaternions are (w, x, y, z), body to world, as in MuJoCo; positions are
those of the body frame origin, which should be the centre of mass for the
energy to be a kinetic energy. Every function broadcasts over leading batch
dimensions.

Differences from the reference, all deliberate:
    * q and -q are one rotation. The reference differences the desired and
      current quaternions as they come; ``energy`` gives the desired
      quaternion the sign nearest the current one first. (With the
      reference's matrix the pose term ``to_omega(q, (q* - q)/dt)`` equals
      ``2 vec(q* ⊗ conj(q))/dt``, odd in q*: a flipped q* reverses it. The
      energy of a pose error alone is unchanged, but its sum with an angular
      velocity error is wrong, e.g. a body turning towards its goal is scored
      as turning away. REFERENCE.md calls the effect a huge spurious energy;
      it is this reversal.)
    * A non-finite state (a diverged simulation) gives a NaN energy, which
      the tracker counts as a failure instead of letting NaN compare false.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Sequence

from grasp_monitor.core.compiled import Compiled, float_array
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_conjugate, quat_multiply
from grasp_monitor.core.values import BodyState
import numpy as np
import numpy.typing as npt

#: The reference's failure threshold, J.
DEFAULT_THRESHOLD_J = 1e7


def _with_trailing(value: npt.ArrayLike, trailing: tuple[int, ...], name: str) -> np.ndarray:
    """Return ``value`` as a float array whose last dimensions are ``trailing``."""
    array = np.asarray(value, dtype=float)
    if array.ndim < len(trailing) or array.shape[array.ndim - len(trailing):] != trailing:
        dims = ', '.join(str(d) for d in trailing)
        raise ConfigError(f'{name} must have shape (..., {dims}), got {array.shape}')
    return array


def _positive(value: npt.ArrayLike, name: str, unit: str) -> np.ndarray:
    """Return ``value`` as a float array after checking it is finite and > 0."""
    array = np.asarray(value, dtype=float)
    bad = ~(np.isfinite(array) & (array > 0.0))
    if bad.any():
        first = float(array[bad].flat[0])
        raise ConfigError(f'{name} must be finite and > 0 {unit}, got {first!r}')
    return array


def _batch_shape(**shapes: tuple[int, ...]) -> tuple[int, ...]:
    """Return the broadcast of the named batch shapes, or raise listing them."""
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ', '.join(f'{name} {shape}' for name, shape in shapes.items())
        raise ConfigError(f'batch shapes do not broadcast: {listed}') from None


def _omega_matrix(q: np.ndarray) -> np.ndarray:
    """Return twice the reference's 3x4 matrix of ``to_omega`` for quaternions (..., 4)."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return 2.0 * np.stack([np.stack([-x, w, -z, y], -1),
                           np.stack([-y, z, w, -x], -1),
                           np.stack([-z, -y, x, w], -1)], -2)


def _bilinear(a: np.ndarray, b: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Return ``out_i = Σ_jk a_j b_k table[j, k, i]`` over stacked, broadcasting vectors.

    Quaternion products, rotations, cross products and ``to_omega`` are all
    bilinear. One matrix product (a by the table) and one contraction (with
    b) cost two numpy calls whatever the batch, which keeps small batches
    cheap, and run at memory speed on large batches; give the operand with
    fewer rows as ``a``.
    """
    m, n, p = table.shape
    partial = (a.reshape(-1, m) @ table.reshape(m, n * p)).reshape(a.shape[:-1] + (n, p))
    return np.einsum('...k,...ki->...i', b, partial)


_BASIS = np.eye(4)
#: R(q) row-major = Σ q_a q_b _ROTATION[a, b], from R(q) v = vec(q ⊗ (0, v) ⊗ q̄), which
#: is R(q) for a unit q.
_ROTATION = np.ascontiguousarray(np.swapaxes(quat_multiply(
    quat_multiply(_BASIS[:, None, None], _BASIS[None, None, 1:]),
    quat_conjugate(_BASIS)[None, :, None])[..., 1:], -1, -2).reshape(4, 4, 9))
#: to_omega(q, q_dot)_i = Σ q_j q_dot_k _OMEGA[j, k, i]: the reference's matrix itself,
#: evaluated at the basis quaternions.
_OMEGA = np.ascontiguousarray(np.moveaxis(_omega_matrix(_BASIS), -1, 1))


def _to_omega(q: np.ndarray, q_dot: np.ndarray) -> np.ndarray:
    """``to_omega`` without checks, for the hot path."""
    return _bilinear(q, q_dot, _OMEGA)


def _rotation_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4)."""
    return _bilinear(q, q, _ROTATION).reshape(q.shape[:-1] + (3, 3))


def to_omega(q: npt.ArrayLike, q_dot: npt.ArrayLike) -> np.ndarray:
    """Return the angular velocity of a rotating frame from its quaternion and derivative.

    ``omega = 2 [[-x, w, -z, y], [-y, z, w, -x], [-z, -y, x, w]] q_dot``, the
    reference's matrix, which equals the vector part of ``2 q_dot ⊗ conj(q)``.

    Args:
        q: (..., 4) unit quaternion (w, x, y, z), body to world.
        q_dot: (..., 4) its time derivative, 1/s.

    Returns:
        (..., 3) angular velocity in the world frame, rad/s.

    Raises:
        ConfigError: if a last dimension is not 4 or the batch shapes do not
            broadcast.
    """
    q = _with_trailing(q, (4,), 'q')
    q_dot = _with_trailing(q_dot, (4,), 'q_dot')
    _batch_shape(q=q.shape[:-1], q_dot=q_dot.shape[:-1])
    return _to_omega(q, q_dot)


def inertia_in_world(
    inertia_in_body: npt.ArrayLike,
    quaternion_body_in_world: npt.ArrayLike,
    diagonal: bool = False,
) -> np.ndarray:
    """Rotate inertia tensors from body axes into world axes: ``R I Rᵀ``.

    The same rotation takes MuJoCo's principal moments (``body_inertia``,
    in the inertial frame) into the body frame with ``body_iquat``.

    Args:
        inertia_in_body: (..., 3, 3) inertia about the centre of mass in body
            axes, kg·m²; with ``diagonal``, (..., 3) principal moments.
        quaternion_body_in_world: (..., 4) unit quaternion (w, x, y, z).
        diagonal: read ``inertia_in_body`` as the diagonals of the tensors
            (explicit, because a (3, 3) array could be either).

    Returns:
        (..., 3, 3) inertia in world axes, kg·m².

    Raises:
        ConfigError: on wrong shapes.
    """
    if diagonal:
        moments = _with_trailing(inertia_in_body, (3,), 'inertia_in_body (diagonal)')
    else:
        tensor = _with_trailing(inertia_in_body, (3, 3), 'inertia_in_body')
    quaternion = _with_trailing(quaternion_body_in_world, (4,), 'quaternion_body_in_world')
    rotation = _rotation_matrix(quaternion)
    if diagonal:
        _batch_shape(inertia_in_body=moments.shape[:-1],
                     quaternion_body_in_world=quaternion.shape[:-1])
        # R diag(d) Rᵀ: scale the columns of R, then multiply by Rᵀ.
        return (rotation * moments[..., None, :]) @ np.swapaxes(rotation, -1, -2)
    _batch_shape(inertia_in_body=tensor.shape[:-2],
                 quaternion_body_in_world=quaternion.shape[:-1])
    return rotation @ tensor @ np.swapaxes(rotation, -1, -2)


def _energy(
    mass: np.ndarray, inertia: np.ndarray, dt: np.ndarray,
    position: np.ndarray, quaternion: np.ndarray,
    position_desired: np.ndarray, quaternion_desired: np.ndarray,
    linvel: np.ndarray, linvel_desired: np.ndarray,
    angvel: np.ndarray, angvel_desired: np.ndarray,
) -> np.ndarray:
    """``energy`` without checks; ``dt`` and ``mass`` already have the batch rank."""
    # q and -q are one rotation: difference towards the nearer sign.
    nearer = np.where(_dot(quaternion_desired, quaternion) < 0.0, -1.0, 1.0)[..., None]
    dt = dt[..., None]
    q_dot = (nearer * quaternion_desired - quaternion) / dt
    linear = (position_desired - position) / dt + (linvel_desired - linvel)
    angular = _to_omega(quaternion, q_dot) + (angvel_desired - angvel)
    inertia_angular = (inertia @ angular[..., None])[..., 0]
    return 0.5 * (mass * _dot(linear, linear) + _dot(angular, inertia_angular))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot products over the last axis, broadcasting (einsum: no temporary array)."""
    return np.einsum('...i,...i->...', a, b)


def _pose(pose: object, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Split a (position, quaternion) pair and check both shapes."""
    try:
        position, quaternion = pose  # type: ignore[misc]
    except (TypeError, ValueError):
        raise ConfigError(
            f'{name} must be a pair (position (..., 3), quaternion (..., 4))') from None
    return (_with_trailing(position, (3,), f'{name} position'),
            _with_trailing(quaternion, (4,), f'{name} quaternion'))


def energy(
    mass: npt.ArrayLike,
    inertia: npt.ArrayLike,
    dt: npt.ArrayLike,
    current_pose: tuple[npt.ArrayLike, npt.ArrayLike],
    desired_pose: tuple[npt.ArrayLike, npt.ArrayLike],
    current_linvel: npt.ArrayLike,
    desired_linvel: npt.ArrayLike,
    current_angvel: npt.ArrayLike,
    desired_angvel: npt.ArrayLike,
) -> np.ndarray:
    """Return the energy, J, needed to bring a body to its desired state in one step.

    The reference's signature and steps, with q, x the current quaternion
    and position and starred values the desired ones::

        q_dot = (q* - q) / dt
        v     = (x* - x) / dt + (xdot* - xdot)
        omega = to_omega(q, q_dot) + (thetadot* - thetadot)
        E     = 1/2 m vᵀv + 1/2 omegaᵀ I omega

    Unlike the reference, q* first takes the sign nearest q (q* becomes -q*
    when q*·q < 0), so -q* is the same goal as q*. In the reference a flipped
    q* reverses the angular velocity the pose error implies (the pose term
    is ``2 vec(q* ⊗ conj(q)) / dt``, odd in q*), which leaves a pure pose
    error's energy alone but gets its sum with an angular velocity error
    wrong. Quaternions are not renormalised, as in the reference.

    Args:
        mass: (...) kg, finite and > 0.
        inertia: (..., 3, 3) inertia about the centre of mass in world axes,
            kg·m² (see ``inertia_in_world``).
        dt: (...) step, s, finite and > 0.
        current_pose: (position (..., 3) m, quaternion (..., 4) (w, x, y, z)),
            body in world.
        desired_pose: the same, desired.
        current_linvel: (..., 3) linear velocity in the world frame, m/s.
        desired_linvel: (..., 3) desired linear velocity, m/s.
        current_angvel: (..., 3) angular velocity in the world frame, rad/s.
        desired_angvel: (..., 3) desired angular velocity, rad/s.

    Returns:
        (...) energy, J, over the broadcast batch shape of the inputs.

    Raises:
        ConfigError: on a wrong shape, batch shapes that do not broadcast, or
            a mass or dt that is not finite and > 0.
    """
    mass = _positive(mass, 'mass', 'kg')
    dt = _positive(dt, 'dt', 's')
    inertia = _with_trailing(inertia, (3, 3), 'inertia')
    position, quaternion = _pose(current_pose, 'current_pose')
    position_desired, quaternion_desired = _pose(desired_pose, 'desired_pose')
    vectors = {name: _with_trailing(value, (3,), name) for name, value in (
        ('current_linvel', current_linvel), ('desired_linvel', desired_linvel),
        ('current_angvel', current_angvel), ('desired_angvel', desired_angvel))}
    _batch_shape(
        mass=mass.shape, dt=dt.shape, inertia=inertia.shape[:-2],
        current_position=position.shape[:-1], current_quaternion=quaternion.shape[:-1],
        desired_position=position_desired.shape[:-1],
        desired_quaternion=quaternion_desired.shape[:-1],
        **{name: value.shape[:-1] for name, value in vectors.items()})
    return _energy(
        mass, inertia, dt, position, quaternion, position_desired, quaternion_desired,
        vectors['current_linvel'], vectors['desired_linvel'],
        vectors['current_angvel'], vectors['desired_angvel'])


# -- the tracker's kernel -------------------------------------------------------------------
# The tracker scores every physics step of a run, so its per-sample work (intervals,
# energies, peaks, failure) is written for numba: blocks run it compiled, a loop over
# samples, objects and grippers on scalars with no temporary arrays, which costs a fraction
# of the numpy calls the same steps take on blocks (each slowed by the cache the simulation
# took). Single samples run the same code as Python (``core.compiled``). ``energy`` stays
# the numpy statement of the metric that tests compare with.


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
    times: np.ndarray, previous_s: float, first_dt_s: float, threshold_j: float,
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
    (its sign nearest q), ``v* = v_g + ω_g × R(q_g) p``, ``ω* = ω_g``;
    ``ωᵀ R I Rᵀ ω`` is evaluated in object axes, with the inertia (K, 3, 3)
    in object axes. ``dt`` is the interval since the sample before
    (``previous_s``; ``first_dt_s`` when that is NaN). Inputs are (N, K, ...)
    for objects, (N, 2, ...) for grippers, (2, K, ...) for the start poses in
    the grippers. A sample fails when a mean exceeds ``threshold_j`` or is NaN.
    Rotations by a unit quaternion (w, u) are written out as
    ``v + 2w (u × v) + 2 u × (u × v)``: numba compiles no call to a plain function.
    """
    first_failed = -1
    for n in range(times.shape[0]):
        if n > 0:
            h = times[n] - times[n - 1]
        elif math.isnan(previous_s):
            h = first_dt_s
        else:
            h = times[0] - previous_s
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
                vx = ((position_gripper[n, g, 0] + lx - position_object[n, k, 0]) / h
                      + (linvel_gripper[n, g, 0] + wy * lz - wz * ly - linvel_object[n, k, 0]))
                vy = ((position_gripper[n, g, 1] + ly - position_object[n, k, 1]) / h
                      + (linvel_gripper[n, g, 1] + wz * lx - wx * lz - linvel_object[n, k, 1]))
                vz = ((position_gripper[n, g, 2] + lz - position_object[n, k, 2]) / h
                      + (linvel_gripper[n, g, 2] + wx * ly - wy * lx - linvel_object[n, k, 2]))
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


# -- tracking a trial -----------------------------------------------------------------------


@dataclass(frozen=True)
class EnergyTrackerConfig:
    """The grasped objects and the rules of the energy metric.

    Attributes:
        object_names: the tracked objects, in the order of every input.
        mass_kg: (K,) mass of each object, kg (one value is used for all).
        inertia_in_body_kg_m2: (K, 3, 3) inertia of each object about its
            centre of mass in its body axes, kg·m²; (K, 3) principal moments
            are read as diagonal tensors.
        gripper_names: the (left, right) gripper bodies.
        dt_s: step used for the first sample of a trial, which has no
            previous sample, s.
        threshold_j: a trial fails when any object's energy exceeds this, J.
        initial_capacity: samples the history holds before it first grows.
    """

    object_names: tuple[str, ...]
    mass_kg: np.ndarray
    inertia_in_body_kg_m2: np.ndarray
    gripper_names: tuple[str, str] = ('gripper_left', 'gripper_right')
    dt_s: float = 0.001
    threshold_j: float = DEFAULT_THRESHOLD_J
    initial_capacity: int = 1024

    def __post_init__(self) -> None:
        names = tuple(self.object_names)
        if not names or len(set(names)) != len(names):
            raise ConfigError(f'object_names must name at least one object, each once, '
                              f'got {list(names)}')
        object.__setattr__(self, 'object_names', names)
        grippers = tuple(self.gripper_names)
        if len(grippers) != 2 or len(set(grippers)) != 2:
            raise ConfigError(f'gripper_names must be two different names (left, right), '
                              f'got {list(grippers)}')
        object.__setattr__(self, 'gripper_names', grippers)
        k = len(names)
        try:
            mass = np.broadcast_to(np.asarray(self.mass_kg, dtype=float), (k,)).copy()
        except ValueError:
            raise ConfigError(f'mass_kg must be one value or one per object ({k}), '
                              f'got shape {np.shape(self.mass_kg)}') from None
        _positive(mass, 'mass_kg', 'kg')
        mass.setflags(write=False)
        object.__setattr__(self, 'mass_kg', mass)
        inertia = np.array(self.inertia_in_body_kg_m2, dtype=float)
        if inertia.shape == (k, 3):
            inertia = inertia[:, :, None] * np.eye(3)
        if inertia.shape != (k, 3, 3):
            raise ConfigError(f'inertia_in_body_kg_m2 must have shape ({k}, 3, 3) or ({k}, 3), '
                              f'got {inertia.shape}')
        if not (np.all(np.isfinite(inertia))
                and np.allclose(inertia, np.swapaxes(inertia, 1, 2), rtol=1e-9, atol=1e-12)
                and np.all(np.linalg.eigvalsh(inertia) > 0.0)):
            raise ConfigError('inertia_in_body_kg_m2 must be finite, symmetric and positive '
                              'definite for every object')
        inertia.setflags(write=False)
        object.__setattr__(self, 'inertia_in_body_kg_m2', inertia)
        if not (np.isfinite(self.dt_s) and self.dt_s > 0):
            raise ConfigError(f'dt_s must be finite and > 0 s, got {self.dt_s!r}')
        if not self.threshold_j > 0:
            raise ConfigError(f'threshold_j must be > 0 J, got {self.threshold_j!r}')
        if int(self.initial_capacity) != self.initial_capacity or self.initial_capacity < 1:
            raise ConfigError(
                f'initial_capacity must be an integer >= 1, got {self.initial_capacity!r}')


def _read_only(array: np.ndarray, shape: tuple[int, ...], name: str) -> np.ndarray:
    """Check an output array's shape and freeze it."""
    if array.shape != shape:
        raise ConfigError(f'{name} must have shape {shape}, got {array.shape}')
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class EnergySample:
    """The energy metric of every object at one sample.

    Attributes:
        time_s: sample time, s.
        energy_left_j: (K,) energy of each object with respect to the left
            gripper, J.
        energy_right_j: (K,) with respect to the right gripper, J.
        energy_mean_j: (K,) their mean: the metric, J.
        max_energy_j: the largest metric over the objects, J (NaN if any is).
        failed: whether any object's metric exceeds the threshold or is NaN.
    """

    time_s: float
    energy_left_j: np.ndarray
    energy_right_j: np.ndarray
    energy_mean_j: np.ndarray
    max_energy_j: float
    failed: bool

    def __post_init__(self) -> None:
        shape = np.shape(self.energy_mean_j)
        if len(shape) != 1:
            raise ConfigError(f'energy_mean_j must have shape (K,), got {shape}')
        for name in ('energy_left_j', 'energy_right_j', 'energy_mean_j'):
            object.__setattr__(self, name, _read_only(
                np.asarray(getattr(self, name), dtype=float), shape, name))


@dataclass(frozen=True)
class EnergyBlock:
    """The energy metric of every object at N consecutive samples.

    Attributes:
        time_s: (N,) sample times, s.
        energy_left_j: (N, K) energy with respect to the left gripper, J.
        energy_right_j: (N, K) with respect to the right gripper, J.
        energy_mean_j: (N, K) their mean: the metric, J.
        max_energy_j: the largest metric in the block, J (NaN if any is).
        failed: whether any sample of the block failed.
    """

    time_s: np.ndarray
    energy_left_j: np.ndarray
    energy_right_j: np.ndarray
    energy_mean_j: np.ndarray
    max_energy_j: float
    failed: bool

    def __post_init__(self) -> None:
        shape = np.shape(self.energy_mean_j)
        if len(shape) != 2:
            raise ConfigError(f'energy_mean_j must have shape (N, K), got {shape}')
        object.__setattr__(self, 'time_s', _read_only(
            np.asarray(self.time_s, dtype=float), shape[:1], 'time_s'))
        for name in ('energy_left_j', 'energy_right_j', 'energy_mean_j'):
            object.__setattr__(self, name, _read_only(
                np.asarray(getattr(self, name), dtype=float), shape, name))


class EnergyTracker:
    """The energy metric of grasped objects over a trial, per sample.

    At the start of a trial the tracker stores each object's pose relative to
    the left and the right gripper, ``T_gripper_object(0)``. At every sample
    the desired object state is that pose carried rigidly by the gripper,
    ``T_world_object* = T_world_gripper(t) T_gripper_object(0)``, with linear
    velocity ``v_g + ω_g × (x* − x_g)`` and angular velocity ``ω_g``; the
    energy is computed with respect to each gripper (inertia in the object's
    current orientation) and averaged. ``dt`` is the interval since the
    previous sample (the configured ``dt_s`` for the first one).

    Feed each object's centre of mass and the inertia about it (with MuJoCo:
    frame sensors on ``objtype="body"``, the inertial frame, whose inertia is
    ``body_inertia``); any frame fixed to a gripper serves for the gripper.

    The arithmetic is one compiled loop over samples, objects and grippers;
    a simulator can record N steps of state and evaluate them with
    ``update_block``, which costs far less per step than N calls (a failure
    is then noticed up to N steps late).

    Args:
        config: the objects, their mass and inertia, and the threshold.
    """

    def __init__(self, config: EnergyTrackerConfig) -> None:
        self.config = config
        k = self._object_count = len(config.object_names)
        self._history_time_s = np.empty(config.initial_capacity)
        self._history_energy_j = np.empty((config.initial_capacity, k))
        self.reset()

    # -- trials ---------------------------------------------------------------------------
    def reset(
        self,
        objects: Sequence[BodyState] | None = None,
        left_gripper: BodyState | None = None,
        right_gripper: BodyState | None = None,
    ) -> None:
        """Start a new trial: forget the history, peaks and failure.

        With no states, the next sample is the trial's start and defines the
        relative poses. The states' times are not used: the first sample's
        step is ``config.dt_s`` either way.

        Args:
            objects: the objects at the start, in ``config.object_names`` order.
            left_gripper: the left gripper at the start.
            right_gripper: the right gripper at the start.

        Raises:
            ConfigError: if only some states are given or names do not match.
        """
        given = [state is not None for state in (objects, left_gripper, right_gripper)]
        if any(given) and not all(given):
            raise ConfigError('reset takes the objects and both grippers, or nothing')
        if all(given):
            stacked = self._stack(objects, left_gripper, right_gripper)  # type: ignore[arg-type]
            self.reset_arrays(stacked[1], stacked[2], stacked[5], stacked[6])
        else:
            self._clear()

    def reset_arrays(
        self,
        position_object_in_world: npt.ArrayLike,
        quaternion_object_in_world: npt.ArrayLike,
        position_gripper_in_world: npt.ArrayLike,
        quaternion_gripper_in_world: npt.ArrayLike,
    ) -> None:
        """Start a new trial from stacked start poses.

        Args:
            position_object_in_world: (K, 3) m.
            quaternion_object_in_world: (K, 4) (w, x, y, z).
            position_gripper_in_world: (2, 3) m, rows left then right.
            quaternion_gripper_in_world: (2, 4) (w, x, y, z).

        Raises:
            ConfigError: on wrong shapes.
        """
        k = self._object_count
        arrays = self._check(
            (position_object_in_world, (k, 3), 'position_object_in_world'),
            (quaternion_object_in_world, (k, 4), 'quaternion_object_in_world'),
            (position_gripper_in_world, (2, 3), 'position_gripper_in_world'),
            (quaternion_gripper_in_world, (2, 4), 'quaternion_gripper_in_world'))
        self._clear()
        self._start(*arrays)

    def _clear(self) -> None:
        """Forget the start poses, the history, the peaks and the failure."""
        self._count = 0
        self._last_time_s: float | None = None
        self._peak_energy_j = np.full(self._object_count, -np.inf)
        self._peak_time_s = np.full(self._object_count, np.nan)
        self._failure_time_s: float | None = None
        self._position_object_in_gripper: np.ndarray | None = None
        self._quaternion_object_in_gripper: np.ndarray | None = None

    def _start(self, position_object: np.ndarray, quaternion_object: np.ndarray,
               position_gripper: np.ndarray, quaternion_gripper: np.ndarray) -> None:
        """Store T_gripper_object(0) for both grippers, shape (2, K, ...)."""
        gripper_to_world = _rotation_matrix(quaternion_gripper)  # (2, 3, 3)
        offset_in_world = position_object[None] - position_gripper[:, None]  # (2, K, 3)
        self._position_object_in_gripper = np.einsum('gji,gkj->gki', gripper_to_world,
                                                     offset_in_world)
        self._quaternion_object_in_gripper = quat_multiply(
            quat_conjugate(quaternion_gripper)[:, None], quaternion_object[None])

    # -- samples --------------------------------------------------------------------------
    def update(self, objects: Sequence[BodyState], left_gripper: BodyState,
               right_gripper: BodyState) -> EnergySample:
        """Add one sample from body states; its time is the latest of theirs.

        Args:
            objects: the objects, in ``config.object_names`` order.
            left_gripper: the left gripper.
            right_gripper: the right gripper.

        Returns:
            The energies at this sample.

        Raises:
            ConfigError: if names do not match the configuration or time does
                not increase.
        """
        return self.update_arrays(*self._stack(objects, left_gripper, right_gripper))

    def update_arrays(
        self,
        time_s: float,
        position_object_in_world: npt.ArrayLike,
        quaternion_object_in_world: npt.ArrayLike,
        linear_velocity_object_in_world: npt.ArrayLike,
        angular_velocity_object_in_world: npt.ArrayLike,
        position_gripper_in_world: npt.ArrayLike,
        quaternion_gripper_in_world: npt.ArrayLike,
        linear_velocity_gripper_in_world: npt.ArrayLike,
        angular_velocity_gripper_in_world: npt.ArrayLike,
    ) -> EnergySample:
        """Add one sample from stacked arrays (world frame, body origins).

        Args:
            time_s: sample time, s; greater than the previous sample's.
            position_object_in_world: (K, 3) m.
            quaternion_object_in_world: (K, 4) (w, x, y, z).
            linear_velocity_object_in_world: (K, 3) m/s.
            angular_velocity_object_in_world: (K, 3) rad/s.
            position_gripper_in_world: (2, 3) m, rows left then right.
            quaternion_gripper_in_world: (2, 4) (w, x, y, z).
            linear_velocity_gripper_in_world: (2, 3) m/s.
            angular_velocity_gripper_in_world: (2, 3) rad/s.

        Returns:
            The energies at this sample.

        Raises:
            ConfigError: on wrong shapes or a time that does not increase.
        """
        k = self._object_count
        arrays = self._check(
            (position_object_in_world, (k, 3), 'position_object_in_world'),
            (quaternion_object_in_world, (k, 4), 'quaternion_object_in_world'),
            (linear_velocity_object_in_world, (k, 3), 'linear_velocity_object_in_world'),
            (angular_velocity_object_in_world, (k, 3), 'angular_velocity_object_in_world'),
            (position_gripper_in_world, (2, 3), 'position_gripper_in_world'),
            (quaternion_gripper_in_world, (2, 4), 'quaternion_gripper_in_world'),
            (linear_velocity_gripper_in_world, (2, 3), 'linear_velocity_gripper_in_world'),
            (angular_velocity_gripper_in_world, (2, 3), 'angular_velocity_gripper_in_world'))
        times = np.array([time_s], dtype=float)
        energy_j, mean_j, first_failed = self._evaluate(times, *(a[None] for a in arrays))
        return EnergySample(
            float(times[0]), energy_j[0, 0], energy_j[0, 1], mean_j[0],
            float(mean_j[0].max()), first_failed == 0)

    def update_block(
        self,
        time_s: npt.ArrayLike,
        position_object_in_world: npt.ArrayLike,
        quaternion_object_in_world: npt.ArrayLike,
        linear_velocity_object_in_world: npt.ArrayLike,
        angular_velocity_object_in_world: npt.ArrayLike,
        position_gripper_in_world: npt.ArrayLike,
        quaternion_gripper_in_world: npt.ArrayLike,
        linear_velocity_gripper_in_world: npt.ArrayLike,
        angular_velocity_gripper_in_world: npt.ArrayLike,
    ) -> EnergyBlock:
        """Add N consecutive samples at once; the same as N ``update_arrays`` calls.

        A failure inside the block is noticed when the block is added, so a
        caller that buffers N steps learns of it up to N steps late.

        Args:
            time_s: (N,) increasing sample times, s.
            position_object_in_world: (N, K, 3) m.
            quaternion_object_in_world: (N, K, 4) (w, x, y, z).
            linear_velocity_object_in_world: (N, K, 3) m/s.
            angular_velocity_object_in_world: (N, K, 3) rad/s.
            position_gripper_in_world: (N, 2, 3) m, left then right.
            quaternion_gripper_in_world: (N, 2, 4) (w, x, y, z).
            linear_velocity_gripper_in_world: (N, 2, 3) m/s.
            angular_velocity_gripper_in_world: (N, 2, 3) rad/s.

        Returns:
            The energies at every sample of the block.

        Raises:
            ConfigError: on wrong shapes or times that do not increase.
        """
        times = np.asarray(time_s, dtype=float)
        if times.ndim != 1 or times.size == 0:
            raise ConfigError(f'time_s must have shape (N,) with N >= 1, got {times.shape}')
        n, k = times.size, self._object_count
        arrays = self._check(
            (position_object_in_world, (n, k, 3), 'position_object_in_world'),
            (quaternion_object_in_world, (n, k, 4), 'quaternion_object_in_world'),
            (linear_velocity_object_in_world, (n, k, 3), 'linear_velocity_object_in_world'),
            (angular_velocity_object_in_world, (n, k, 3), 'angular_velocity_object_in_world'),
            (position_gripper_in_world, (n, 2, 3), 'position_gripper_in_world'),
            (quaternion_gripper_in_world, (n, 2, 4), 'quaternion_gripper_in_world'),
            (linear_velocity_gripper_in_world, (n, 2, 3), 'linear_velocity_gripper_in_world'),
            (angular_velocity_gripper_in_world, (n, 2, 3),
             'angular_velocity_gripper_in_world'))
        energy_j, mean_j, first_failed = self._evaluate(times, *arrays)
        return EnergyBlock(times.copy(), energy_j[:, 0], energy_j[:, 1], mean_j,
                           float(mean_j.max()), first_failed >= 0)

    def _evaluate(
        self, times: np.ndarray,
        position_object: np.ndarray, quaternion_object: np.ndarray,
        linvel_object: np.ndarray, angvel_object: np.ndarray,
        position_gripper: np.ndarray, quaternion_gripper: np.ndarray,
        linvel_gripper: np.ndarray, angvel_gripper: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Energies (N, 2, K), their mean (N, K) and the first failed sample (-1: none).

        Records them: history, peaks, failure and the last time.
        """
        previous_s = math.nan if self._last_time_s is None else self._last_time_s
        # A block runs the kernels compiled; a single sample as Python (see core.compiled).
        block = times.size > 1
        first_bad_time = _FIRST_BAD_TIME if block else _first_bad_time
        bad = first_bad_time(times, previous_s)
        if bad >= 0:
            previous = times[bad - 1] if bad > 0 else self._last_time_s
            after = 'the start' if previous is None else repr(float(previous))
            raise ConfigError(f'time_s must be finite and increase from sample to sample, '
                              f'got {float(times[bad])!r} after {after}')
        if self._position_object_in_gripper is None:
            self._start(position_object[0], quaternion_object[0],
                        position_gripper[0], quaternion_gripper[0])
        n, k = times.size, self._object_count
        energy_j, mean_j = np.empty((n, 2, k)), np.empty((n, k))
        # numpy scalars warn where the compiled code does not (inf - inf of a diverged state).
        with np.errstate(all='ignore'):
            first_failed = (_SCORE_BLOCK if block else _score_block)(
                times, previous_s, self.config.dt_s, self.config.threshold_j,
                position_object, quaternion_object, linvel_object, angvel_object,
                position_gripper, quaternion_gripper, linvel_gripper, angvel_gripper,
                self._position_object_in_gripper, self._quaternion_object_in_gripper,
                self.config.mass_kg, self.config.inertia_in_body_kg_m2, energy_j, mean_j,
                self._peak_energy_j, self._peak_time_s)
        self._record(times, mean_j, first_failed)
        return energy_j, mean_j, first_failed

    def _record(self, times: np.ndarray, mean_j: np.ndarray, first_failed: int) -> None:
        """Append to the history; note the failure and the last time (peaks are the kernel's)."""
        start, stop = self._count, self._count + times.size
        capacity = self._history_time_s.size
        if stop > capacity:
            while capacity < stop:
                capacity *= 2
            for name in ('_history_time_s', '_history_energy_j'):
                old = getattr(self, name)
                new = np.empty((capacity,) + old.shape[1:])
                new[:start] = old[:start]
                setattr(self, name, new)
        self._history_time_s[start:stop] = times
        self._history_energy_j[start:stop] = mean_j
        self._count = stop
        if self._failure_time_s is None and first_failed >= 0:
            self._failure_time_s = float(times[first_failed])
        self._last_time_s = float(times[-1])

    # -- inputs ---------------------------------------------------------------------------
    def _stack(self, objects: Sequence[BodyState], left: BodyState,
               right: BodyState) -> tuple:
        """Check names and stack body states as ``update_arrays`` arguments."""
        names = tuple(state.name for state in objects)
        if names != self.config.object_names:
            raise ConfigError(f'objects must be {list(self.config.object_names)} in this '
                              f'order, got {list(names)}')
        if (left.name, right.name) != self.config.gripper_names:
            raise ConfigError(f'grippers must be {self.config.gripper_names[0]!r} (left) and '
                              f'{self.config.gripper_names[1]!r} (right), '
                              f'got {left.name!r} and {right.name!r}')
        bodies = (*objects, left, right)
        k = len(objects)
        stacked = [np.stack([getattr(body, field) for body in bodies]) for field in (
            'position_in_world', 'quaternion_in_world', 'linear_velocity_in_world',
            'angular_velocity_in_world')]
        time_s = max(body.time_s for body in bodies)
        return (time_s, *(a[:k] for a in stacked), *(a[k:] for a in stacked))

    @staticmethod
    def _check(*items: tuple[npt.ArrayLike, tuple[int, ...], str]) -> list[np.ndarray]:
        """Return each value as a float array after checking its shape."""
        arrays = []
        for value, shape, name in items:
            array = np.asarray(value, dtype=float)
            if array.shape != shape:
                raise ConfigError(f'{name} must have shape {shape}, got {array.shape}')
            arrays.append(array)
        return arrays

    # -- results --------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        """Whether the trial's start poses are known."""
        return self._position_object_in_gripper is not None

    @property
    def sample_count(self) -> int:
        """Samples added since the trial started."""
        return self._count

    @property
    def history_time_s(self) -> np.ndarray:
        """(n,) time of every sample of the trial, s (a copy)."""
        return self._history_time_s[:self._count].copy()

    @property
    def history_energy_j(self) -> np.ndarray:
        """(n, K) metric of every object at every sample, J (a copy)."""
        return self._history_energy_j[:self._count].copy()

    @property
    def peak_energy_j(self) -> np.ndarray:
        """(K,) highest metric of each object so far, J; NaN before a finite one."""
        return np.where(np.isneginf(self._peak_energy_j), np.nan, self._peak_energy_j)

    @property
    def peak_time_s(self) -> np.ndarray:
        """(K,) time of each object's peak, s; NaN before a finite one."""
        return self._peak_time_s.copy()

    @property
    def failed(self) -> bool:
        """Whether any sample of the trial failed."""
        return self._failure_time_s is not None

    @property
    def failure_time_s(self) -> float | None:
        """Time of the first failed sample, s, or None."""
        return self._failure_time_s
