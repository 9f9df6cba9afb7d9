"""The monitor's inputs in a run that reads taxels, fed tick by tick as the monitor node is fed.

Without ``contacts`` the monitor node hears, every simulator tick, ``joint_states``,
the object's ground truth and ``/tf`` (the pads' distances), and on the tactile
node's ticks each pad's cloud; it hands them to ``MonitorInputs`` (its tare, noise
floor, contact hysteresis, finger motion, slip signals) and runs every sample that
falls due. ``TaxelFeed`` does the same with a block's recorded ticks, the clouds
and the joint states going through the sensors' realism models first, as the
tactile and simulator nodes publish them (a dropped frame is not heard).
"""

from __future__ import annotations

from typing import Iterator, Sequence

from grasp_monitor.core.monitor import GraspSample, InputsConfig, MonitorInputs
from grasp_monitor.core.realism import (
    joint_model, JointRealismConfig, tactile_models, TactileRealismConfig)
import numpy as np
import numpy.typing as npt


class TaxelFeed:
    """A monitor's ``MonitorInputs`` fed a block of simulator ticks at a time.

    Args:
        inputs: what the monitor listens to.
        pads: per pad, its name and its (N, 3) taxel positions in the pad frame, m.
        joints: the joints ``joint_states`` carries, in its order (the scene's).
        tick_s: the simulator's tick, s.
        tactile_every: ticks between two tactile clouds (on ticks whose time is a
            multiple of it, as ``SimRunner.on_grid``).
        tactile: the tactile arrays' realism.
        encoders: the joint encoders' realism.
        tactile_seed: the tactile node's ``realism.seed`` (a stream per pad).
        joint_seed: the simulator node's ``realism.seed``.

    Attributes:
        inputs: the ``MonitorInputs``.
        kept: a list to which every sample is appended as it falls due, for a
            reader to take (and empty) between blocks; None (the default): none kept.
    """

    def __init__(self, inputs: InputsConfig, pads: Sequence[tuple[str, npt.ArrayLike]],
                 joints: Sequence[str], tick_s: float, tactile_every: int,
                 tactile: TactileRealismConfig, encoders: JointRealismConfig,
                 tactile_seed: int, joint_seed: int) -> None:
        self.inputs = MonitorInputs(inputs)
        self.pads = [name for name, _ in pads]
        # as a cloud carries them: float32
        self.positions = [np.asarray(at, np.float32).astype(float) for _, at in pads]
        self.joints = tuple(joints)
        self.tick_s = tick_s
        self.every = tactile_every
        self.tactile = tactile_models(tactile, pads, tick_s * tactile_every, tactile_seed)
        self.encoders = joint_model(encoders, len(self.joints), tick_s, joint_seed)
        self.kept: list[GraspSample] | None = None

    def feed(self, stamps_s: np.ndarray, forces: Sequence[np.ndarray],
             slip: Sequence[np.ndarray | None], object_velocity: np.ndarray | None,
             distances_m: np.ndarray | None, joint_positions: np.ndarray,
             joint_velocities: np.ndarray) -> Iterator[tuple[int, GraspSample]]:
        """Feed T ticks in order; yield each sample as it falls due, with its tick's index.

        Args:
            stamps_s: (T,) the ticks' stamps, s.
            forces: per pad, (T, N, C) its true taxel values at the ticks (C = 3 or 1).
            slip: per pad, (T, N, 3) its taxels' slip, m/s (None: the pad has no channel).
            object_velocity: (T, 3) the object's velocity, m/s (None: not listened to).
            distances_m: (T, pads) the pads' distances from the base (None: not listened to).
            joint_positions: (T, J) the joints' true positions.
            joint_velocities: (T, J) their true velocities.
        """
        on_grid = np.flatnonzero(np.round(stamps_s / self.tick_s).astype(np.int64)
                                 % self.every == 0)
        frames = [pad[on_grid] for pad in forces]
        kept = [np.ones(on_grid.size, bool)] * len(frames)
        if self.tactile is not None:
            frames, kept = map(list, zip(*(model.apply(values) for model, values in
                                           zip(self.tactile, frames))))
        clouds = [_as_cloud(values) for values in frames]
        slips = [None if s is None else np.asarray(s[on_grid], np.float32).astype(float)
                 for s in slip]
        positions, velocities = joint_positions, joint_velocities
        delivered = np.ones(stamps_s.shape[0], bool)
        if self.encoders is not None:
            positions, velocities, delivered = self.encoders.apply(positions, velocities)
        inputs = self.inputs
        with_slip = inputs.config.slip_signals
        frame_of = dict(zip(on_grid.tolist(), range(on_grid.size)))
        for tick, stamp in enumerate(stamps_s.tolist()):
            if delivered[tick]:
                inputs.update_joints(self.joints, velocities[tick], stamp, positions[tick])
            if object_velocity is not None:
                inputs.update_object(object_velocity[tick], stamp)
            if distances_m is not None:
                inputs.update_distances(distances_m[tick], stamp)
            frame = frame_of.get(tick)
            if frame is not None:
                for pad, at, cloud, sent, pad_slip in zip(self.pads, self.positions, clouds,
                                                          kept, slips):
                    if sent[frame]:
                        inputs.update_pad(pad, cloud[frame], stamp, at,
                                          pad_slip[frame] if with_slip and pad_slip is not None
                                          else None)
            for sample in inputs.due():
                if self.kept is not None:
                    self.kept.append(sample)
                yield tick, sample


def _as_cloud(values: np.ndarray) -> np.ndarray:
    """Return (F, N, 3) values as a cloud carries them: float32, a scalar as fz."""
    if values.shape[2] == 1:
        values = np.concatenate([np.zeros(values.shape[:2] + (2,)), values], axis=2)
    return np.asarray(values, np.float32).astype(float)
