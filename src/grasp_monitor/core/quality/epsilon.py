"""The Ferrari–Canny epsilon: the largest origin-centred wrench ball a grasp holds.

With the contact wrenches per unit normal force ``w_ij`` (``wrenches``), Ferrari and
Canny (1992) define two wrench sets:

- **L1**: ``W1 = hull(∪_i {w_ij})``, the wrenches the contacts apply with the *sum* of
  their normal forces equal to 1.
- **L∞**: ``W∞ = ⊕_i hull({0} ∪ {w_ij})`` (Minkowski sum over contacts), the wrenches
  with *each* contact's normal force at most 1. Ferrari and Canny write the sum without
  the origin (each normal force exactly 1); for two pads on opposite faces that set is
  flat (the normal forces cancel in every sum), so its epsilon would always be 0.

Epsilon is the distance from the origin to the set's boundary (the radius of the
largest ball about the origin inside it): the smallest wrench, in the scaled wrench
norm, that some disturbance needs to break the grasp per unit of grip. It is 0 when the
origin is not strictly inside (no force closure). Computed by ``polytope`` from the
sets' support functions (``h1(u) = max_ij u·w_ij``, ``h∞(u) = Σ_i max(0, max_j u·w_ij)``), exact
to ``TOLERANCE``; the tests compare it with scipy's ConvexHull.

Degenerate grasps never raise: they give 0 and say why (``GraspQuality.reason``).

Under load (``EpsilonConfig.under_load``, L1 only; docs/deviations.md): the contacts
already apply a wrench ``w_c`` (their forces on the object: what holds its weight, an
external force, its acceleration). Per newton of their normal forces ``F`` it lies in
``W1``; the value is then the distance from ``w_c / F`` to the boundary (``W1`` shifted by
it): the smallest further disturbance, per unit of grip, that breaks the grasp. With no
load it is epsilon; a load that grows against a steady grip lowers it to 0.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import threading

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.quality.polytope import (
    DEGENERATE, kernel, LIMIT, LOWER_DIMENSIONAL, MAX_VERTICES, OK, ORIGIN_OUTSIDE)
from grasp_monitor.core.quality.settings import CONTACT_MODELS, default, VARIANTS
from grasp_monitor.core.quality.workspace import fitted, workspace
from grasp_monitor.core.quality.wrenches import contact_wrenches
from grasp_monitor.core.rotations import cross
import numpy as np
import numpy.typing as npt

#: Relative gap between the bounds at which epsilon is taken.
TOLERANCE = 1e-9
#: Generic directions for the first simplex (any fixed orthonormal basis off the axes).
_AXES = np.linalg.qr(np.random.default_rng(0x5EED).normal(size=(6, 6)))[0].T.copy()
#: Each thread's kernel workspace, kept from call to call.
_WORK = threading.local()
#: Why epsilon is 0 (or a bound), by the polytope's status.
_REASONS = {
    LOWER_DIMENSIONAL: 'no force closure: the contact wrenches lie in a hyperplane',
    ORIGIN_OUTSIDE: 'no force closure: the origin is outside the wrench set',
    DEGENERATE: 'the wrench set is numerically degenerate',
    LIMIT: 'vertex limit reached: a lower bound',
}


@dataclass(frozen=True)
class EpsilonConfig:
    """How epsilon is computed (settings: ``core.quality.settings``).

    Attributes:
        variant: the epsilon the criterion and the summaries take (``VARIANTS``).
        contact: ``point`` (with friction) or ``soft`` (with torsional friction).
        friction: Coulomb friction coefficient.
        cone_edges: edges of each polyhedral friction cone.
        torsion: torsional friction of a soft contact, m.
        under_load: L1 from the contacts' present wrench, not the origin (module
            docstring); needs their forces.
        torque_length: torques are divided by it, m (0: the largest distance of a
            contact from the centre of mass).
    """

    variant: str = default('variant')
    contact: str = default('contact')
    friction: float = default('friction')
    cone_edges: int = default('cone_edges')
    torsion: float = default('torsion')
    under_load: bool = default('under_load')
    torque_length: float = default('torque_length')

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ConfigError(f'variant must be one of {", ".join(VARIANTS)}, '
                              f'got {self.variant!r}')
        if self.contact not in CONTACT_MODELS:
            raise ConfigError(f'contact must be one of {", ".join(CONTACT_MODELS)}, '
                              f'got {self.contact!r}')
        if not (math.isfinite(self.friction) and self.friction > 0):
            raise ConfigError(f'friction must be finite and > 0, got {self.friction}')
        if self.under_load and self.variant != 'l1':
            raise ConfigError(f'under_load needs variant l1, got variant {self.variant!r}')
        if not 3 <= self.cone_edges <= 64:
            raise ConfigError(f'cone_edges must be in [3, 64], got {self.cone_edges}')
        for name in ('torsion', 'torque_length'):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ConfigError(f'{name} must be finite and >= 0, got {value}')


@dataclass(frozen=True)
class GraspQuality:
    """Epsilon of one grasp.

    Attributes:
        l1: epsilon of the L1 set (0 when degenerate; NaN: not computed).
        linf: epsilon of the L∞ set (0 when degenerate; NaN: not computed).
        contacts: the contacts it was computed from.
        reason: why it is 0 (or a bound); '' when it is exact.
    """

    l1: float
    linf: float
    contacts: int
    reason: str = ''

    def value(self, variant: str) -> float:
        """Return the epsilon of ``variant`` (``l1`` or ``linf``)."""
        return self.l1 if variant == 'l1' else self.linf


def _distance(points: np.ndarray, linf: bool) -> tuple[float, int, int]:
    work = getattr(_WORK, 'arrays', None) or workspace()
    result = kernel()(points, linf, TOLERANCE, MAX_VERTICES, _AXES, *work)
    _WORK.arrays = fitted(work)
    return result


def epsilon(wrenches: npt.ArrayLike, variant: str = 'l1') -> tuple[float, str]:
    """Return epsilon of the (K, E, 6) contact wrenches and why it is 0 ('' if exact).

    Args:
        wrenches: E wrenches of each of K contacts (``contact_wrenches``).
        variant: ``l1`` or ``linf`` (module docstring).
    """
    points = np.ascontiguousarray(wrenches, dtype=float)
    if points.ndim != 3 or points.shape[2] != 6 or points.shape[0] == 0 or \
            points.shape[1] == 0:
        return 0.0, 'no contact'
    if not np.isfinite(points).all():
        return 0.0, 'contact wrenches not finite'
    linf = variant == 'linf'
    value, status, _ = _distance(points, linf)
    if status == DEGENERATE:  # ties of a symmetric grasp: joggle them apart
        scale = float(np.abs(points).max())
        jiggle = np.random.default_rng(0).uniform(-1.0, 1.0, points.shape) * 1e-10 * scale
        value, status, _ = _distance(points + jiggle, linf)
    if status in (OK, LIMIT):
        return float(value), _REASONS.get(status, '')
    return 0.0, _REASONS[status]


def grasp_quality(points_in_world: npt.ArrayLike, normals_in_world: npt.ArrayLike,
                  com_in_world: npt.ArrayLike, config: EpsilonConfig = EpsilonConfig(),
                  variants: tuple[str, ...] = VARIANTS,
                  forces_on_object_in_world: npt.ArrayLike | None = None) -> GraspQuality:
    """Return the L1 and L∞ epsilon of K contacts on an object.

    The L∞ set has far more vertices than the L1 set (the sum of every contact's
    hull): it takes about 4 to 20 times as long (benchmarks/RESULTS.md).

    Args:
        points_in_world: (K, 3) contact points, m.
        normals_in_world: (K, 3) normals into the object (normalised here; a zero
            normal drops its contact).
        com_in_world: (3,) the object's centre of mass, m.
        config: how epsilon is computed.
        variants: the epsilons computed; the others are NaN.
        forces_on_object_in_world: (K, 3) the contacts' forces, N: with
            ``config.under_load``, L1 is taken from their wrench (module docstring).
    """
    def zero(count: int, reason: str) -> GraspQuality:
        return GraspQuality(0.0 if 'l1' in variants else math.nan,
                            0.0 if 'linf' in variants else math.nan, count, reason)

    points = np.asarray(points_in_world, float).reshape(-1, 3)
    normals = np.asarray(normals_in_world, float).reshape(-1, 3)
    if points.shape != normals.shape:
        return zero(0, 'points and normals count different contacts')
    forces = None
    if config.under_load and forces_on_object_in_world is not None:
        forces = np.asarray(forces_on_object_in_world, float).reshape(-1, 3)
        if forces.shape != points.shape:
            return zero(0, 'forces and points count different contacts')
    length = np.sqrt(np.einsum('ki,ki->k', normals, normals))
    keep = np.isfinite(length) & (length > 0) & np.isfinite(points).all(axis=1)
    if forces is not None:
        keep &= np.isfinite(forces).all(axis=1)
        forces = forces[keep]
    points, normals = points[keep], normals[keep] / length[keep, None]
    count = len(points)
    soft = config.contact == 'soft' and config.torsion > 0
    if count == 0:
        return zero(0, 'no contact')
    if count == 1:
        return zero(1, 'one contact cannot hold every wrench')
    if count == 2 and not soft:
        return zero(2, 'two point contacts cannot resist a torque about the line through '
                       'them')
    from_com = points - np.asarray(com_in_world, float).reshape(3)
    torque_length_m = config.torque_length or float(
        np.sqrt(np.einsum('ki,ki->k', from_com, from_com)).max())
    if not (math.isfinite(torque_length_m) and torque_length_m > 0):
        return zero(count, 'every contact is at the centre of mass')
    wrenches = contact_wrenches(from_com, normals, config.friction, config.cone_edges,
                                config.torsion if soft else 0.0, torque_length_m)
    shifted = wrenches
    grip_n = float(np.einsum('ki,ki->', forces, normals)) if forces is not None else 0.0
    if grip_n > 0.0:  # the wrench the contacts apply now, per newton of normal force
        shifted = wrenches - np.concatenate([
            forces.sum(axis=0), cross(from_com, forces).sum(axis=0) / torque_length_m]
        ) / grip_n
    l1, why_l1 = epsilon(shifted, 'l1') if 'l1' in variants else (math.nan, '')
    if grip_n > 0.0 and why_l1 == _REASONS[ORIGIN_OUTSIDE]:
        why_l1 = 'no force closure, or the load per unit grip is beyond what it holds'
    linf, why_linf = epsilon(wrenches, 'linf') if 'linf' in variants else (math.nan, '')
    return GraspQuality(l1, linf, count, why_l1 or why_linf)


def compile_kernel(config: EpsilonConfig = EpsilonConfig()) -> None:
    """Compile (or load from numba's cache) what ``grasp_quality`` runs, on a small grasp.

    Without numba's cache the first grasp would wait for it (about 13 s on two busy
    cores): a node taking 1 kHz streams would fall that far behind and lose its inputs.
    """
    points = np.array([[0.02, 0.0, 0.0], [-0.02, 0.0, 0.0], [0.0, 0.02, 0.01]])
    normals = -points / np.linalg.norm(points, axis=1)[:, None]
    grasp_quality(points, normals, np.zeros(3), config, (config.variant,),
                  -normals if config.under_load else None)
