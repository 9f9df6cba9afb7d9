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

from grasp_monitor.core.compiled import Compiled
from grasp_monitor.core.rotations import cross
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


def joint_sensor(joint: str, kind: str) -> str:
    """Return the name of the ``jointpos`` or ``jointvel`` sensor of ``joint``."""
    return f'grasp_monitor/joints/{joint}/{kind}'


def with_pipeline_sensors(scene: Scene, pad_bodies: Sequence[str], slots: int,
                          truth_bodies: Sequence[str] = (), object_body: str = '',
                          distances: bool = False, velocities: bool = False,
                          joints: Sequence[str] = ()) -> Scene:
    """Return ``scene`` with the pipeline's sensors appended (module docstring).

    ``distances``: the pads' contact sensors report the distance between the
    surfaces too (a pad's ``contact_point`` surface needs it); ``velocities``:
    and the relative velocity at the contacts (a pad's ``slip`` needs it).

    Order in ``sensordata``: with ``object_body``, per pad body its contact sensor
    with that body (named by ``object_sensor``); the ground-truth sensors of ``truth_bodies``
    (``TRUTH_SENSORS`` of the body frame, named by ``truth_sensor``); per pad
    body, its contact sensor then its body pose (framepos, framequat); the base
    body's framepos; then the sensors of ``with_frame_sensors``. With ``joints``, each
    joint's position and velocity (named by ``joint_sensor``) come before the pads'.
    """
    scene = with_frame_sensors(scene)
    end = scene.mjcf.rfind('<sensor>')
    sensors = ''.join(
        f'<contact name="{object_sensor(body)}" body1="{body}" body2="{object_body}" '
        f'num="{slots}" data="{_SLOT_DATA[0]}" reduce="none"/>'
        for body in (pad_bodies if object_body else ()))
    sensors += ''.join(f'<{kind} name="{truth_sensor(body, kind)}" objtype="xbody" '
                       f'objname="{body}"/>' for body in truth_bodies for kind in TRUTH_SENSORS)
    sensors += ''.join(f'<{kind} name="{joint_sensor(joint, kind)}" joint="{joint}"/>'
                       for joint in joints for kind in ('jointpos', 'jointvel'))
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
        joints: the joints whose positions and velocities were appended.
    """

    def __init__(self, model: mujoco.MjModel, scene: Scene, pad_bodies: Sequence[str],
                 slots: int, truth_bodies: Sequence[str], contacts: bool,
                 distances: bool = False, velocities: bool = False,
                 joints: Sequence[str] = ()) -> None:
        self.slots = slots
        self.distances = distances
        self.velocities = velocities
        # A pad slot's values after `found`: force, [dist,] pos, normal, tangent, [linvel].
        width = SLOT_WIDTH + int(distances) + 3 * int(velocities)
        self._pad_slot_width = width
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
        self._contact_starts = np.array([c.start for c, _, _ in self.pad_columns], np.int64)
        _GATHER_SLOTS.compile_now()  # here, not in the first block
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
        self.joint_columns = [[_columns(model, joint_sensor(joint, kind))
                               for joint in joints] for kind in ('jointpos', 'jointvel')]

    def joint_states(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return (R, J) the positions and (R, J) the velocities of the recorded joints."""
        positions, velocities = ([rows[:, c][:, 0] for c in columns]
                                 for columns in self.joint_columns)
        empty = np.zeros((rows.shape[0], 0))
        return (np.stack(positions, axis=1) if positions else empty,
                np.stack(velocities, axis=1) if velocities else empty)

    def contact_inputs(self, record: np.ndarray) -> tuple[tuple[Any, ...], list[np.ndarray]]:
        """Return the ``PadGroup.compute_block`` arguments of every pad from recorded rows.

        Also returns per pad its (S,) contact count of each step, which may exceed
        the slots (the rest are lost).
        """
        steps, pads = record.shape[0], len(self.pad_columns)
        capacity = steps * self.slots * pads
        counts, found = np.empty(pads, np.int64), np.empty((pads, steps))
        sample = np.empty(capacity, np.int64)
        position, force = np.empty((capacity, 3)), np.empty((capacity, 3))
        frames = np.empty((capacity, 3, 3))
        distance = np.empty(capacity if self.distances else 0)
        velocity = np.empty((capacity if self.velocities else 0, 3))
        contacts = _GATHER_SLOTS(np.ascontiguousarray(record), self._contact_starts,
                                 self.slots, self._pad_slot_width, counts, found, sample,
                                 position, frames, force, distance, velocity)
        pad_position = np.stack([record[:, columns] for _, columns, _ in self.pad_columns])
        quaternion = np.stack([record[:, columns] for _, _, columns in self.pad_columns])
        inputs = (counts, sample[:contacts], position[:contacts], frames[:contacts],
                  force[:contacts], pad_position, quaternion)
        distance = distance[:contacts] if self.distances else None
        if self.velocities:
            # linvel: in the contact frame, of the other body relative to the pad
            return inputs + (distance, velocity[:contacts]), list(found)
        return inputs + ((distance,) if self.distances else ()), list(found)

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

    def strongest_object_contacts(self, rows: np.ndarray) -> np.ndarray:
        """Return (R, pads) each pad's strongest contact force with the object, N."""
        # The pads' object sensors come one after the other: (R, pads, slots, 13) at once.
        first = self.object_columns[0].start
        slots = rows[:, first:self.object_columns[-1].stop].reshape(
            rows.shape[0], len(self.object_columns), -1, SLOT_WIDTH)
        force = slots[..., 1:4]  # the contact frame is orthonormal: its norm is the world's
        magnitude = np.sqrt(np.einsum('rpsi,rpsi->rps', force, force))
        return np.where(slots[..., 0] > 0, magnitude, 0.0).max(axis=2)

    def object_contacts(self, values: np.ndarray,
                        pads: Sequence[int]) -> tuple[np.ndarray, ...]:
        """Return one row's contacts of ``pads`` with the object (``add_contacts``).

        Points and forces in the world frame, the index in ``pads`` of each one's pad, and
        the normals from the pad into the object.
        """
        points, forces, index, normals = [], [], [], []
        for i, pad in enumerate(pads):
            slots = values[self.object_columns[pad]].reshape(-1, SLOT_WIDTH)
            slots = slots[slots[:, 0] > 0]
            normal, tangent = slots[:, 7:10], slots[:, 10:13]
            # np.stack's rows, filled in place: a third of its cost on a few contacts
            frame = np.empty((len(slots), 3, 3))
            frame[:, 0], frame[:, 1], frame[:, 2] = normal, tangent, cross(normal, tangent)
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


def _gather_slots(record: np.ndarray, starts: np.ndarray, slots: int, slot_width: int,
                  counts: np.ndarray, found: np.ndarray, sample: np.ndarray,
                  position: np.ndarray, frame: np.ndarray, force: np.ndarray,
                  distance: np.ndarray, velocity: np.ndarray) -> int:
    """Copy every filled slot of the pads' contact sensors out of the rows; return how many.

    A slot: found, force (3), [dist,] pos (3), normal (3), tangent (3), [linvel (3)];
    ``distance`` and ``velocity`` are empty when the slots do not have them. Pad
    after pad, writes each contact's row (``sample``), ``position``, ``force``,
    ``distance``, ``velocity`` and ``frame`` (normal, tangent, tangent2 = normal x
    tangent); per pad its contacts (``counts``) and per row the contacts its sensor
    found (``found``, (P, S): more than the slots when some were lost). One pass
    instead of a dozen numpy calls over the slots.
    """
    d = 1 if distance.shape[0] > 0 else 0
    with_velocity = velocity.shape[0] > 0
    k = 0
    for p in range(starts.shape[0]):
        first = k
        for s in range(record.shape[0]):
            found[p, s] = record[s, starts[p]]
            for j in range(slots):
                at = starts[p] + j * slot_width
                if record[s, at] <= 0.0:
                    continue
                sample[k] = s
                for i in range(3):
                    force[k, i] = record[s, at + 1 + i]
                    position[k, i] = record[s, at + 4 + d + i]
                    frame[k, 0, i] = record[s, at + 7 + d + i]
                    frame[k, 1, i] = record[s, at + 10 + d + i]
                    if with_velocity:
                        velocity[k, i] = record[s, at + 13 + d + i]
                if d:
                    distance[k] = record[s, at + 4]
                normal, tangent = frame[k, 0], frame[k, 1]
                frame[k, 2, 0] = normal[1] * tangent[2] - normal[2] * tangent[1]
                frame[k, 2, 1] = normal[2] * tangent[0] - normal[0] * tangent[2]
                frame[k, 2, 2] = normal[0] * tangent[1] - normal[1] * tangent[0]
                k += 1
        counts[p] = k - first
    return k


def _gather_signature(nb: Any) -> Any:
    def array(ndim: int, writable: bool = True) -> Any:
        return nb.types.Array(nb.float64, ndim, 'C', readonly=not writable)
    integers = nb.types.Array(nb.int64, 1, 'C')
    return nb.int64(array(2, False), nb.types.Array(nb.int64, 1, 'C', readonly=True),
                    nb.int64, nb.int64, integers, array(2), integers, array(2), array(3),
                    array(2), array(1), array(2))


_GATHER_SLOTS = Compiled(_gather_slots, _gather_signature)
