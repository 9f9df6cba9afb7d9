"""The sensors the offline pipeline appends to a scene's MJCF, and their columns read back.

Appended, in ``sensordata`` order: with ``contacts``, per pad a contact sensor of
the pad with the object (the contacts the simulator node publishes on
``contacts`` that the monitor and metrics nodes keep); the ground-truth sensors
of the monitor's and metrics' bodies; per pad, a contact sensor on the pad body
(``num`` slots of found, force, pos, normal, tangent, and the distance between the
surfaces after the force when a pad moves contact points onto its surface, and
the other body's velocity relative to the pad (``linvel``) last when a pad has
slip on; contacts seen from the pad) and the pad body's pose; the base body's position;
then the frame sensors of ``with_frame_sensors`` (objects and pads, inertial
frames) for the energy metric.
Written and read here only, so the two cannot disagree.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from grasp_monitor.core.values import BodyState
from grasp_monitor.sim.frame_sensors import split_frame_sensors, with_frame_sensors
from grasp_monitor.sim.scene import Scene
import mujoco
import numpy as np

#: Values per contact sensor slot: found, force (3), pos (3), normal (3), tangent (3).
SLOT_WIDTH = 13
#: What a slot holds, in MuJoCo's order, without and with the distance (``dist``).
_SLOT_DATA = ('found force pos normal tangent', 'found force dist pos normal tangent')
#: Ground-truth sensors of a body frame (XBODY, as ``ground_truth/<body>`` carries it).
TRUTH_SENSORS = ('framepos', 'framequat', 'framelinvel', 'frameangvel')


def truth_sensor(body: str, kind: str) -> str:
    """Return the name of the ground-truth sensor ``kind`` of ``body``."""
    return f'grasp_monitor/truth/{body}/{kind}'


def object_sensor(pad_body: str) -> str:
    """Return the name of the contact sensor of ``pad_body`` with the object."""
    return f'grasp_monitor/contacts/{pad_body}'


def with_pipeline_sensors(scene: Scene, pad_bodies: Sequence[str], slots: int,
                          truth_bodies: Sequence[str] = (), object_body: str = '',
                          distances: bool = False, velocities: bool = False) -> Scene:
    """Return ``scene`` with the pipeline's sensors appended (module docstring).

    ``distances``: the pads' contact sensors report the distance between the
    surfaces too (a pad's ``contact_point`` surface needs it); ``velocities``:
    and the relative velocity at the contacts (a pad's ``slip`` needs it).

    Order in ``sensordata``: with ``object_body``, per pad body its contact sensor
    with that body (named by ``object_sensor``); the ground-truth sensors of ``truth_bodies``
    (``TRUTH_SENSORS`` of the body frame, named by ``truth_sensor``); per pad
    body, its contact sensor then its body pose (framepos, framequat); the base
    body's framepos; then the sensors of ``with_frame_sensors``.
    """
    scene = with_frame_sensors(scene)
    end = scene.mjcf.rfind('<sensor>')
    sensors = ''.join(
        f'<contact name="{object_sensor(body)}" body1="{body}" body2="{object_body}" '
        f'num="{slots}" data="{_SLOT_DATA[0]}" reduce="none"/>'
        for body in (pad_bodies if object_body else ()))
    sensors += ''.join(f'<{kind} name="{truth_sensor(body, kind)}" objtype="xbody" '
                       f'objname="{body}"/>' for body in truth_bodies for kind in TRUTH_SENSORS)
    sensors += ''.join(
        f'<contact body1="{body}" num="{slots}" '
        f'data="{_SLOT_DATA[distances]}{" linvel" if velocities else ""}"'
        f' reduce="none"/><framepos objtype="xbody" objname="{body}"/>'
        f'<framequat objtype="xbody" objname="{body}"/>' for body in pad_bodies)
    sensors += f'<framepos objtype="xbody" objname="{scene.base_body}"/>'
    mjcf = f'{scene.mjcf[:end]}<sensor>{sensors}</sensor>{scene.mjcf[end:]}'
    return dataclasses.replace(scene, mjcf=mjcf)


class SensorLayout:
    """Where the sensors of ``with_pipeline_sensors`` sit in ``sensordata``; their values.

    Rows are recorded ``sensordata``, one per physics step.

    Args:
        model: the model compiled from the scene ``with_pipeline_sensors`` returned.
        scene: the scene (its objects).
        pad_bodies: the pad bodies, as passed to ``with_pipeline_sensors``.
        slots: contact sensor slots per pad.
        truth_bodies: the bodies with ground truth, the monitor's object first.
        contacts: whether the object contact sensors were appended.
        distances: whether the pads' contact sensors report distances.
        velocities: whether they report the relative velocities (``linvel``).
    """

    def __init__(self, model: mujoco.MjModel, scene: Scene, pad_bodies: Sequence[str],
                 slots: int, truth_bodies: Sequence[str], contacts: bool,
                 distances: bool = False, velocities: bool = False) -> None:
        self.slots = slots
        self.distances = distances
        self.velocities = velocities
        # A pad slot's values after `found`: force, [dist,] pos, normal, tangent, [linvel].
        width = SLOT_WIDTH + int(distances) + 3 * int(velocities)
        self._pad_slot_width = width
        self._pad_slot_values = np.arange(1, width)
        # Ours come after any sensor of the scene's own and before the frame sensors.
        ours = model.nsensor - 4 * (len(scene.objects) + 2) - (3 * len(pad_bodies) + 1)
        #: Per pad: its contact sensor, its position, its quaternion.
        self.pad_columns = []
        for index in range(len(pad_bodies)):
            first = int(model.sensor_adr[ours + 3 * index])
            self.pad_columns.append((
                slice(first, first + slots * width),
                slice(first + slots * width, first + slots * width + 3),
                slice(first + slots * width + 3, first + slots * width + 7)))
        base = int(model.sensor_adr[ours + 3 * len(pad_bodies)])
        self.base_columns = slice(base, base + 3)
        self.frame_columns = slice(base + 3, model.nsensordata)
        self.objects = len(scene.objects)
        self.truth = {body: [_columns(model, truth_sensor(body, kind)) for kind in TRUTH_SENSORS]
                      for body in truth_bodies}
        self.speed_columns = self.truth[truth_bodies[0]][2]
        # The object contact sensors of the pads, per pad: (slots, 13) values each.
        self.object_columns = [_columns(model, object_sensor(body)) for body in pad_bodies] \
            if contacts else []

    def contact_inputs(self, record: np.ndarray) -> tuple[tuple[Any, ...], list[np.ndarray]]:
        """Return the ``PadGroup.compute_block`` arguments of every pad from recorded rows.

        Also returns per pad its (S,) contact count of each step, which may exceed
        the slots (the rest are lost).
        """
        slots = self.slots
        width = record.shape[1]
        slot_width = self._pad_slot_width
        flat = record.reshape(-1)
        counts, starts, found_per_pad = [], [], []
        for contact, _, _ in self.pad_columns:
            # Slot j's values start at contact.start + slot_width j; its first is `found`.
            found = record[:, contact.start:contact.stop:slot_width]
            found_per_pad.append(found[:, 0])
            filled = np.flatnonzero(found > 0.0)  # sample * slots + slot
            counts.append(filled.size)
            # Where each filled slot starts in the flattened record.
            start = filled * slot_width
            start += (filled // slots) * (width - slots * slot_width) + contact.start
            starts.append(start)
        start = np.concatenate(starts)
        sample = start // width
        # force (3), [dist,] pos (3), normal (3), tangent (3), [linvel (3)] of every touching
        # slot, component by component (rows): one gather, and the cross product below on
        # contiguous rows.
        touching = np.take(flat, start + self._pad_slot_values[:, None])
        d = int(self.distances)  # rows after the force move down by the distance's
        # The (3, 3, K) frames: rows normal, tangent and tangent2 = normal x tangent.
        frames = np.empty((3, 3, start.size))
        frames[:2] = touching[6 + d:12 + d].reshape(2, 3, -1)
        normal, tangent, cross = frames
        np.multiply(normal[1], tangent[2], out=cross[0])
        cross[0] -= normal[2] * tangent[1]
        np.multiply(normal[2], tangent[0], out=cross[1])
        cross[1] -= normal[0] * tangent[2]
        np.multiply(normal[0], tangent[1], out=cross[2])
        cross[2] -= normal[1] * tangent[0]
        position = np.stack([record[:, columns] for _, columns, _ in self.pad_columns])
        quaternion = np.stack([record[:, columns] for _, _, columns in self.pad_columns])
        inputs = (counts, sample, touching[3 + d:6 + d].T, frames.transpose(2, 0, 1),
                  touching[0:3].T, position, quaternion)
        if self.velocities:
            # linvel: in the contact frame, of the other body relative to the pad
            return inputs + (touching[3] if d else None, touching[12 + d:15 + d].T), \
                found_per_pad
        return inputs + ((touching[3],) if d else ()), found_per_pad

    def frame_arrays(self, record: np.ndarray) -> tuple[np.ndarray, ...]:
        """Return the rows' frame sensors as ``EnergyTracker.update_block`` arrays."""
        return split_frame_sensors(record[:, self.frame_columns], self.objects)

    def object_speed(self, rows: np.ndarray) -> np.ndarray:
        """Return (R,) the speed of the monitor's object, m/s."""
        velocity = rows[:, self.speed_columns]
        return np.sqrt(np.einsum('ti,ti->t', velocity, velocity))

    def pad_distances(self, rows: np.ndarray) -> np.ndarray:
        """Return (R, pads) each pad body's distance from the base body, m."""
        offset = np.stack([rows[:, p] for _, p, _ in self.pad_columns], axis=1)
        offset -= rows[:, None, self.base_columns]
        return np.sqrt(np.einsum('tpi,tpi->tp', offset, offset))

    def body_state(self, values: np.ndarray, body: str) -> BodyState:
        """Return one row's ground truth of ``body``."""
        return BodyState(body, *(values[c] for c in self.truth[body]))

    def object_slots(self, rows: np.ndarray, pad: int) -> np.ndarray:
        """Return (R, slots, 13) the object contact sensor slots of pad ``pad`` in ``rows``."""
        return rows[:, self.object_columns[pad]].reshape(rows.shape[0], -1, SLOT_WIDTH)

    def strongest_object_contacts(self, rows: np.ndarray) -> np.ndarray:
        """Return (R, pads) each pad's strongest contact force with the object, N."""
        strongest = np.empty((rows.shape[0], len(self.object_columns)))
        for pad in range(len(self.object_columns)):
            slots = self.object_slots(rows, pad)
            force = slots[:, :, 1:4]  # the contact frame is orthonormal: its norm is the world's
            magnitude = np.sqrt(np.einsum('rsi,rsi->rs', force, force))
            strongest[:, pad] = np.where(slots[:, :, 0] > 0, magnitude, 0.0).max(axis=1)
        return strongest

    def object_contacts(self, values: np.ndarray,
                        pads: Sequence[int]) -> tuple[np.ndarray, ...]:
        """Return one row's contacts of ``pads`` with the object (``add_contacts``).

        Points and forces in the world frame, the index in ``pads`` of each one's pad, and
        the normals from the pad into the object.
        """
        points, forces, index, normals = [], [], [], []
        for i, pad in enumerate(pads):
            slots = self.object_slots(values[None], pad)[0]
            slots = slots[slots[:, 0] > 0]
            normal, tangent = slots[:, 7:10], slots[:, 10:13]
            frame = np.stack([normal, tangent, np.cross(normal, tangent)], axis=1)
            points.append(slots[:, 4:7])
            forces.append(np.einsum('kji,kj->ki', frame, slots[:, 1:4]))
            index.append(np.full(len(slots), i))
            normals.append(normal)
        return (np.concatenate(points), np.concatenate(forces), np.concatenate(index),
                np.concatenate(normals))


def _columns(model: mujoco.MjModel, name: str) -> slice:
    """Return where sensor ``name``'s values sit in ``sensordata``."""
    index = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SENSOR, name)
    start = int(model.sensor_adr[index])
    return slice(start, start + int(model.sensor_dim[index]))
