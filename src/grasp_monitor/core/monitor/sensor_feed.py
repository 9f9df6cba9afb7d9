"""Tactile clouds and joint states into a monitor through a realism model, as hardware feeds it.

``SensorFeed`` takes the true taxel forces of each pad and the finger joints' true
positions and velocities, tick by tick; passes them through each sensor's realism
model (``core.realism``: what a real array and encoder report, frames dropped); and
hands what arrives to ``MonitorInputs`` as the monitor node hands it the messages of
``tactile/<pad>`` and ``joint_states`` (taxel forces rounded to float32, as a cloud
carries them), then runs the samples due through the ``GraspMonitor``.
"""

from __future__ import annotations

from typing import Sequence

from grasp_monitor.core.monitor.config import MonitorConfig
from grasp_monitor.core.monitor.inputs import InputsConfig, MonitorInputs
from grasp_monitor.core.monitor.monitor import GraspMonitor
from grasp_monitor.core.monitor.records import EventRecord
from grasp_monitor.core.realism import JointRealism, JointRealismConfig, stream_seed, \
    TactileRealism, TactileRealismConfig
import numpy as np
import numpy.typing as npt


class SensorFeed:
    """A monitor fed as hardware feeds it, through one realism model.

    Args:
        inputs: what the monitor listens to (taxels, ``finger_joints``).
        monitor: the monitor's configuration.
        tactile: the tactile arrays' realism.
        joints: the joint encoders' realism.
        positions: per pad of ``inputs.pads``, its (N, 3) taxel positions in the pad frame, m.
        seed: the sensors' seed (each pad and the joints draw their own from it,
            ``stream_seed``).

    Attributes:
        inputs: the ``MonitorInputs``.
        monitor: the ``GraspMonitor``.
        records: every record the monitor emitted, in order.
    """

    def __init__(self, inputs: InputsConfig, monitor: MonitorConfig,
                 tactile: TactileRealismConfig, joints: JointRealismConfig,
                 positions: Sequence[npt.ArrayLike], seed: int) -> None:
        self.inputs = MonitorInputs(inputs)
        self.monitor = GraspMonitor(monitor)
        self.pads = inputs.pads
        self.fingers = inputs.finger_joints
        self.positions = [np.asarray(p, np.float32).astype(float) for p in positions]
        period_s = inputs.period_s
        # each stream its own seed, as the nodes and the offline run draw them
        self.tactile = [TactileRealism(tactile, at, period_s, stream_seed(seed, pad))
                        for pad, at in zip(self.pads, self.positions)]
        self.joints = JointRealism(joints, len(self.fingers), period_s,
                                   stream_seed(seed, 'joints'))
        self.records: list[EventRecord] = []

    def feed(self, stamps_s: np.ndarray, forces: Sequence[np.ndarray],
             joint_positions: np.ndarray, joint_velocities: np.ndarray) -> list[EventRecord]:
        """Take a block of T ticks; return the records the monitor emitted.

        Args:
            stamps_s: (T,) the ticks' stamps, s.
            forces: per pad, (T, N, C) its true taxel forces in the pad frame, N.
            joint_positions: (T, J) the finger joints' true positions.
            joint_velocities: (T, J) their true velocities.
        """
        clouds = [model.apply(pad) for model, pad in zip(self.tactile, forces)]
        positions, velocities, delivered = self.joints.apply(joint_positions, joint_velocities)
        inputs, update = self.inputs, self.monitor.update
        records: list[EventRecord] = []
        for k, stamp in enumerate(np.asarray(stamps_s, float).tolist()):
            for pad, at, (values, kept) in zip(self.pads, self.positions, clouds):
                if kept[k]:
                    inputs.update_pad(pad, values[k].astype(np.float32).astype(float), stamp,
                                      at)
            if delivered[k]:
                inputs.update_joints(self.fingers, velocities[k], stamp, positions[k])
            for sample in inputs.due():
                records.extend(update(sample).records)
        self.records.extend(records)
        return records
