"""Frame sensors appended to a scene's MJCF: the states of its objects and pads.

The grasp benchmark and the offline pipeline read the energy metric's inputs from them.
Each sensor is on a body's inertial frame (``objtype="body"``: centre of mass, principal
axes), so the object inertia is MuJoCo's ``body_inertia`` as it is, and the velocities are
the world-frame linear velocity of the centre of mass and the angular velocity. Sensors do
not change the dynamics.
"""

from __future__ import annotations

import dataclasses

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.scene import Scene
import numpy as np

#: Frame sensors per tracked body, in ``sensordata`` order, with their widths.
FRAME_SENSORS = (('framepos', 3), ('framequat', 4), ('framelinvel', 3), ('frameangvel', 3))
_SENSOR_WIDTH = sum(width for _, width in FRAME_SENSORS)


def with_frame_sensors(scene: Scene, nsample: int = 0) -> Scene:
    """Return ``scene`` with frame sensors on its objects, then its left and right pad.

    Per body, in that order: framepos (3), framequat (4), framelinvel (3),
    frameangvel (3), all of the inertial frame (``objtype="body"``) in the
    world frame. Sensors do not change the dynamics. With ``nsample`` > 0 each
    keeps its last ``nsample`` values in MuJoCo's history buffer
    (the grasp benchmark's ``FrameHistory`` reads them).

    Raises:
        ConfigError: if the scene has no two pads or its MJCF has no closing tag.
    """
    if len(scene.pads) != 2:
        raise ConfigError(f'scene {scene.name} needs two pads (left, right), got {scene.pads}')
    end = scene.mjcf.rfind('</mujoco>')
    if end < 0:
        raise ConfigError(f'scene {scene.name}: MJCF has no closing </mujoco>')
    history = f' nsample="{int(nsample)}"' if nsample > 0 else ''
    sensors = ''.join(f'<{kind} objtype="body" objname="{body}"{history}/>'
                      for body in scene.objects + scene.pads for kind, _ in FRAME_SENSORS)
    mjcf = f'{scene.mjcf[:end]}<sensor>{sensors}</sensor>{scene.mjcf[end:]}'
    return dataclasses.replace(scene, mjcf=mjcf)


def split_frame_sensors(record: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    """Return views of ``(N, nsensordata)`` rows as ``EnergyTracker.update_block`` arrays.

    Args:
        record: rows of the sensors ``with_frame_sensors`` added (the last
            ``13 (K + 2)`` values of ``sensordata``).
        k: the number of objects.

    Returns:
        The objects' position (N, K, 3), quaternion (N, K, 4), linear and
        angular velocity (N, K, 3), then the same four of the pads (N, 2, ...).
    """
    bodies = record.reshape(record.shape[0], -1, _SENSOR_WIDTH)
    fields, offset = [], 0
    for _, width in FRAME_SENSORS:
        fields.append(bodies[:, :, offset:offset + width])
        offset += width
    return (*(f[:, :k] for f in fields), *(f[:, k:k + 2] for f in fields))
