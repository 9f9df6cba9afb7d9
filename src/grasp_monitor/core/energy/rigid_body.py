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
dimensions. Where this differs from the reference: docs/deviations.md.
"""

from __future__ import annotations

from grasp_monitor.core.energy.checks import _batch_shape, _positive, _with_trailing
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.rotations import quat_to_matrix
import numpy as np
import numpy.typing as npt


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
#: to_omega(q, q_dot)_i = Σ q_j q_dot_k _OMEGA[j, k, i]: the reference's matrix itself,
#: evaluated at the basis quaternions.
_OMEGA = np.ascontiguousarray(np.moveaxis(_omega_matrix(_BASIS), -1, 1))


def _to_omega(q: np.ndarray, q_dot: np.ndarray) -> np.ndarray:
    """``to_omega`` without checks, for the hot path."""
    return _bilinear(q, q_dot, _OMEGA)


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
    rotation = quat_to_matrix(quaternion)
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

    q* first takes the sign nearest q (q* becomes -q* when q*·q < 0), so -q*
    is the same goal as q* (why the reference differs: docs/deviations.md).
    Quaternions are not renormalised, as in the reference.

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
