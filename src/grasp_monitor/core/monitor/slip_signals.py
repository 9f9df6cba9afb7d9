"""What a tactile pad tells of slip, per sample: force, shear, centre of pressure, sliding.

Any tactile array that reports force vectors at known taxel positions gives these
(a hardware array as well as the simulated one); the sliding speed only comes
from a sensor with a slip channel (the simulated pads' ``slip`` setting).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: The columns of ``pad_slip_signals``: normal force (N), shear force (N), the centre of
#: pressure's two tangential coordinates in the pad frame (m, NaN unloaded), the sliding
#: speed weighted by normal force (m/s, NaN without a slip channel).
SIGNALS = ('normal_n', 'shear_n', 'cop_u_m', 'cop_v_m', 'slip_m_per_s')
#: Pad frame axes by name.
AXES = ('x', 'y', 'z')


def pad_slip_signals(positions_in_pad: npt.ArrayLike, forces_in_pad: npt.ArrayLike,
                     normal_axis: str = 'y',
                     slip_in_pad: npt.ArrayLike | None = None) -> np.ndarray:
    """Return (S, 5) the ``SIGNALS`` of S samples of one pad's taxels (or (5,) of one).

    Args:
        positions_in_pad: (N, 3) taxel positions in the pad frame, m.
        forces_in_pad: (S, N, 3) or (N, 3) taxel forces in the pad frame, N; (.., N, 1):
            normal forces alone (no shear then).
        normal_axis: the pad frame axis normal to the sensing surface ('x', 'y', 'z');
            the normal force is the size of each taxel's component along it, whatever
            the side the surface faces.
        slip_in_pad: (S, N, 3) or (N, 3) each taxel's sliding velocity in the pad
            frame, m/s (None: no slip channel).
    """
    axis = AXES.index(normal_axis)
    tangent = [a for a in range(3) if a != axis]
    forces = np.asarray(forces_in_pad, float)
    single = forces.ndim == 2
    if single and slip_in_pad is None and forces.shape[-1] == 3:
        return _one_sample(np.asarray(positions_in_pad, float), forces, axis, tangent)
    if single:
        forces = forces[None]
    positions = np.asarray(positions_in_pad, float)
    vector = forces.shape[-1] == 3
    pressure = np.abs(forces[..., axis] if vector else forces[..., 0])  # (S, N)
    normal = pressure.sum(axis=1)
    out = np.empty((forces.shape[0], len(SIGNALS)))
    out[:, 0] = normal
    if vector:
        shear = forces[..., tangent].sum(axis=1)
        out[:, 1] = np.hypot(shear[:, 0], shear[:, 1])
    else:
        out[:, 1] = 0.0
    loaded = normal > 0
    weight = pressure / np.where(loaded, normal, 1.0)[:, None]
    out[:, 2:4] = weight @ positions[:, tangent]
    out[~loaded, 2:4] = np.nan
    if slip_in_pad is None:
        out[:, 4] = np.nan
    else:
        slip = np.asarray(slip_in_pad, float).reshape(forces.shape[0], -1, 3)
        speed = np.hypot(slip[..., tangent[0]], slip[..., tangent[1]])
        out[:, 4] = np.einsum('sn,sn->s', weight, speed)
    return out[0] if single else out


def _one_sample(positions: np.ndarray, forces: np.ndarray, axis: int,
                tangent: list[int]) -> np.ndarray:
    """Return (5,) the ``SIGNALS`` of one (N, 3) sample without a slip channel.

    The same values as the block path, with a few numpy calls instead of a dozen: it
    runs for every cloud the monitor takes.
    """
    pressure = np.abs(forces[:, axis])
    normal = pressure.sum()
    shear = forces[:, tangent].sum(axis=0)
    out = np.full(len(SIGNALS), np.nan)
    out[0] = normal
    out[1] = np.hypot(shear[0], shear[1])
    if normal > 0:
        out[2:4] = (pressure / normal) @ positions[:, tangent]
    return out
