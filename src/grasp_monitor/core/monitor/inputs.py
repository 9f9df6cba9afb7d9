"""The monitor's view of its inputs: readings by stamp, sampled on a fixed grid of stamps.

Samples are taken at ``T_k = k * period`` (sim or wall time, as the readings
are stamped), each from the latest reading of every input stamped at or
before ``T_k``, once every input has a reading stamped at or after it. The
samples are then a function of the readings alone, not of when they arrived,
so a replay computes what the live run did. A sample is *stale* when an input
it needs is missing or older than ``max_sample_age``, or when the clock passed
``T_k + max_sample_age`` before every input arrived: silence pauses the monitor
instead of looking like a slip. An input stamped well before its own previous
reading means time went back (a simulator reset): every reading of the old
timeline is dropped, so none of them can pass for a contact in the new one.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.frames import FrameLookupError, FrameTree
from grasp_monitor.core.monitor.finger_motion import FingerMotion
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.settings import input_default
from grasp_monitor.core.monitor.slip_signals import pad_slip_signals
from grasp_monitor.core.monitor.stamp_grid import StampGrid
from grasp_monitor.core.monitor.taxel_zero import TaxelZero
from grasp_monitor.core.pad_contacts import (
    basis_name, ObjectContacts, PadContacts, strongest_per_pad)
import numpy as np
import numpy.typing as npt

#: A pad carrying less than this many contact forces is light: every taxel's zero follows
#: (``TaxelZero.apply``), so what a load leaves behind (hysteresis, drift under the load)
#: fades once the load is gone. More would also fade a gentle touch's first moments.
LIGHT_CONTACTS = 1.0


@dataclass(frozen=True)
class InputsConfig:
    """What the monitor listens to.

    Attributes:
        pads: tactile pads, one robot body each, in sample order.
        finger_joints: joints whose speeds tell stillness without ground truth.
        use_object: whether an object ground truth (speed) is expected.
        contact_force: a pad touches when its total taxel force reaches this, N;
            with ``contacts``, when one of its contacts with the object does.
        max_sample_age: a reading older than this makes the sample stale, s.
        period_s: interval of the sample grid, s.
        time_back_s: an input stamped more than this before its previous reading
            opens a new timeline (a simulator reset), s; less is out of order.
        use_distances: whether the pads' distances from the base are expected
            (body poses, for flying_apart).
        contacts: whether the pads' contacts with the object come (the simulator's),
            instead of each pad's taxels (an estimate: whatever the pad touches).
        palm: which pad is the palm ('' = none).
        slip_signals: whether each pad's taxels also give the samples' ``pad_signals``
            (for incipient_slip; taxels only, not ``contacts``).
        incipient_slip_normal_axis: the pads' frame axis normal to their surface, for
            those signals.
        tare_time, taxel_deadband, deadband_sigmas, zero_tracking: each pad's ``TaxelZero``
            (taxels only).
        contact_release: a pad in contact is free again below this share of
            ``contact_force`` (taxels only; 1: no hysteresis).
        finger_still_window: the fingers' speeds over this window of their positions
            (``FingerMotion``; 0: their reported velocities).
    """

    pads: tuple[str, ...]
    finger_joints: tuple[str, ...] = ()
    use_object: bool = True
    contact_force: float = 1e-3
    max_sample_age: float = 0.1
    period_s: float = 0.01
    time_back_s: float = 0.05
    use_distances: bool = False
    contacts: bool = False
    palm: str = ''
    slip_signals: bool = False
    incipient_slip_normal_axis: str = 'y'
    tare_time: float = input_default('tare_time')
    taxel_deadband: float = input_default('taxel_deadband')
    deadband_sigmas: float = input_default('deadband_sigmas')
    zero_tracking: float = input_default('zero_tracking')
    contact_release: float = input_default('contact_release')
    finger_still_window: float = input_default('finger_still_window')

    def __post_init__(self) -> None:
        object.__setattr__(self, 'pads', tuple(self.pads))
        object.__setattr__(self, 'finger_joints', tuple(self.finger_joints))
        if not self.pads:
            raise ConfigError('pads must name at least one tactile pad')
        if len(set(self.pads)) != len(self.pads):
            raise ConfigError(f'pads must be unique, got {list(self.pads)}')
        if self.palm and self.palm not in self.pads:
            raise ConfigError(f'palm {self.palm!r} is not one of the pads: '
                              f'{", ".join(self.pads)}')
        if not self.contact_force > 0:
            raise ConfigError(f'contact_force must be > 0, got {self.contact_force}')
        if not self.max_sample_age > 0:
            raise ConfigError(f'max_sample_age must be > 0, got {self.max_sample_age}')
        if not self.period_s > 0 or not self.time_back_s > 0:
            raise ConfigError('period_s and time_back_s must be > 0, got '
                              f'{self.period_s}, {self.time_back_s}')
        if not 0 < self.contact_release <= 1:
            raise ConfigError(f'contact_release must be in (0, 1], got {self.contact_release}')
        TaxelZero(self.tare_time, self.taxel_deadband, self.deadband_sigmas, self.zero_tracking)
        FingerMotion(len(self.finger_joints), self.finger_still_window)  # checks the window
        if not self.use_object and not self.finger_joints:
            raise ConfigError('without object ground truth, finger_joints must name the '
                              'joints whose speeds show the grasp is still')


class MonitorInputs:
    """Buffers tactile, object, joint and distance readings; builds GraspSamples on the grid."""

    def __init__(self, config: InputsConfig) -> None:
        self.config = config
        # the pads' inputs: one per pad's taxels, or one for all their contacts
        n = 1 if config.contacts else len(config.pads)
        self._pad_index = {} if config.contacts else {pad: i for i, pad in enumerate(config.pads)}
        self._object_index = n if config.use_object else -1
        self._joints_index = n + int(config.use_object) if config.finger_joints else -1
        inputs = n + int(config.use_object) + int(bool(config.finger_joints))
        self._distances_index = inputs if config.use_distances else -1
        inputs += int(config.use_distances)
        self.grid = StampGrid(inputs, config.period_s, config.time_back_s)
        self._palm_index = config.pads.index(config.palm) if config.palm else -1
        # taxels as a real array gives them: each pad's zero, and its contact's hysteresis
        self.zeros = [] if config.contacts else [
            TaxelZero(config.tare_time, config.taxel_deadband, config.deadband_sigmas,
                      config.zero_tracking) for _ in config.pads]
        self._touching = np.zeros(len(config.pads), bool)
        self._totals = np.zeros(len(config.pads))  # each pad's latest total, N
        self.fingers = FingerMotion(len(config.finger_joints), config.finger_still_window)
        self._finger_positions = np.full(len(config.finger_joints), np.nan)

    def tare(self) -> None:
        """Learn each pad's zero again from its next readings (``tare_time`` of them)."""
        for zero in self.zeros:
            zero.tare()

    def names(self) -> tuple[str, ...]:
        """Return the inputs by what they are, in the grid's order.

        Each is a pad's name, ``contacts``, ``object``, ``finger_joints`` or ``distances``.
        """
        return (('contacts',) if self.config.contacts else self.config.pads) \
            + (('object',) if self.config.use_object else ()) \
            + (('finger_joints',) if self.config.finger_joints else ()) \
            + (('distances',) if self.config.use_distances else ())

    def missing(self) -> tuple[str, ...]:
        """Return the inputs no reading has come from yet, as :meth:`names` names them.

        Samples are taken only once each has spoken, so a trial started before then opens
        at the first sample after.
        """
        names = self.names()
        return tuple(names[i] for i in self.grid.silent())

    def update_pad(self, pad: str, forces_n: npt.ArrayLike, time_s: float,
                   positions_m: npt.ArrayLike | None = None,
                   slip_m_per_s: npt.ArrayLike | None = None) -> None:
        """Take a pad's taxel forces (N, 3) N (or (N,) normal forces) read at ``time_s``.

        With ``slip_signals``, ``positions_m`` are the taxels' (N, 3) positions in the pad
        frame, m, for the pad's slip signals (None: the sample has none), and
        ``slip_m_per_s`` the taxels' (N, 3) slip, m/s, where the sensor has a slip channel.

        Raises:
            ConfigError: an unknown pad.
        """
        index = self._pad_index.get(pad)
        if index is None:
            raise ConfigError(f'unknown pad {pad!r}; pads: {", ".join(self.config.pads)}'
                              if not self.config.contacts else
                              'the monitor reads contacts, not taxels')
        forces = np.asarray(forces_n, float)
        if forces.ndim == 2 and forces.shape[0]:
            forces = self.zeros[index].apply(
                forces, time_s, self._totals[index] < LIGHT_CONTACTS * self.config.contact_force,
                positions_m)
        total = np.linalg.norm(forces.sum(axis=0)) if forces.ndim == 2 else abs(forces.sum())
        self._totals[index] = total
        if self.config.slip_signals and positions_m is not None:
            # the total first, then the pad's slip signals
            signals = pad_slip_signals(positions_m, forces.reshape(len(forces), -1),
                                       self.config.incipient_slip_normal_axis, slip_m_per_s)
            self.grid.add(index, time_s, np.concatenate(([total], signals)))
        else:
            self.grid.add(index, time_s, float(total))

    def update_contacts(self, strongest_n: npt.ArrayLike, time_s: float) -> None:
        """Take each pad's strongest contact force with the object (N, ``pads`` order).

        Raises:
            ConfigError: the monitor reads taxels, or not one force per pad.
        """
        forces = np.array(strongest_n, float)
        if not self.config.contacts or forces.shape != (len(self.config.pads),):
            raise ConfigError(f'contacts need InputsConfig.contacts and one force per pad '
                              f'{list(self.config.pads)}, got {forces.shape}')
        self.grid.add(0, time_s, forces)

    def update_object_contacts(self, contacts: ObjectContacts, sample: PadContacts) -> None:
        """Take the pads' contacts with the object from the simulator's pad contacts."""
        _, forces, pad = contacts.select(sample)
        self.update_contacts(strongest_per_pad(forces, pad, len(contacts.pads)), sample.time_s)

    def update_object(self, linear_velocity: npt.ArrayLike, time_s: float) -> None:
        """Take the object's linear velocity (m/s, any frame) read at ``time_s``."""
        if self._object_index >= 0:
            speed = float(np.linalg.norm(np.asarray(linear_velocity, float)))
            self.grid.add(self._object_index, time_s, speed)

    def update_joints(self, names: tuple[str, ...] | list[str], velocities: npt.ArrayLike,
                      time_s: float, positions: npt.ArrayLike | None = None) -> None:
        """Take joint velocities (rad/s or m/s) and, if known, positions (rad or m).

        Joints not listed as fingers are ignored. With positions, a finger's speed is
        the spread of its positions over ``finger_still_window`` (``FingerMotion``).
        """
        if self._joints_index < 0:
            return
        velocity = dict(zip(names, np.asarray(velocities, float).tolist()))
        position = {} if positions is None else dict(
            zip(names, np.asarray(positions, float).tolist()))
        values, _ = self.grid.latest()
        speeds = values[self._joints_index]  # a joint left out keeps its last speed
        speeds = np.full(len(self.config.finger_joints), np.nan) if speeds is None else \
            speeds.copy()
        reported = np.full(len(self.config.finger_joints), np.nan)
        for i, joint in enumerate(self.config.finger_joints):
            if joint in velocity:
                reported[i] = velocity[joint]
            if joint in position:
                self._finger_positions[i] = position[joint]
        moving = self.fingers.speeds(self._finger_positions if position else None,
                                     np.where(np.isnan(reported), speeds, reported), time_s)
        speeds = np.where(np.isnan(reported), speeds, moving)
        self.grid.add(self._joints_index, time_s, speeds)

    def update_distances(self, distances_m: npt.ArrayLike, time_s: float) -> None:
        """Take each pad's distance from the base (m, in ``pads`` order) at ``time_s``.

        Raises:
            ConfigError: not one distance per pad.
        """
        if self._distances_index < 0:
            return
        distances = np.array(distances_m, float)
        if distances.shape != (len(self.config.pads),):
            raise ConfigError(f'{distances.size} distances for pads {list(self.config.pads)}')
        self.grid.add(self._distances_index, time_s, distances)

    def update_frames(self, frames: FrameTree, base_frame: str) -> bool:
        """Take the pads' distances from ``base_frame`` in ``frames``, at the stamp of their poses.

        Returns:
            False while a frame is not yet known (no /tf_static yet, say): nothing taken.
        """
        try:
            distances, stamp_s = frames.distances_m(self.config.pads, base_frame)
        except FrameLookupError:
            return False
        self.update_distances(distances, stamp_s)
        return True

    def pad_forces_n(self) -> np.ndarray:
        """Return the latest total force on each pad, N (0 before any reading)."""
        values, _ = self.grid.latest()
        return self._forces(values)

    def diagnostics(self) -> dict[str, str]:
        """Return the diagnostic values of the inputs: pad forces, basis, samples dropped."""
        values = {f'pad_force_n.{pad}': f'{force:.3f}'
                  for pad, force in zip(self.config.pads, self.pad_forces_n())}
        values.update(basis=basis_name(self.config.contacts),
                      dropped_samples=str(self.grid.dropped),
                      old_timeline_inputs=str(self.grid.ignored))
        return values

    def _forces(self, values: Sequence[Any]) -> np.ndarray:
        n = len(self.config.pads)
        if self.config.contacts:
            return np.zeros(n) if values[0] is None else values[0]
        return np.array([0.0 if v is None else v if np.ndim(v) == 0 else v[0]
                         for v in values[:n]])

    def _signals(self, values: Sequence[Any]) -> np.ndarray | tuple[()]:
        pads = values[:len(self.config.pads)]
        if self.config.contacts or not all(np.ndim(v) == 1 for v in pads):
            return ()
        return np.stack([v[1:] for v in pads])

    def _in_contact(self, forces: np.ndarray, keep: bool) -> np.ndarray:
        """Return each pad's contact: on at ``contact_force``, off below its release share."""
        config = self.config
        if config.contacts or config.contact_release == 1.0:
            return forces >= config.contact_force
        touching = np.where(self._touching, forces >= config.contact_release
                            * config.contact_force, forces >= config.contact_force)
        if keep:
            self._touching = touching
        return touching

    def _sample(self, time_s: float, values: Sequence[Any], stamps_s: Sequence[float],
                late: bool, keep: bool = True) -> GraspSample:
        forces = self._forces(values)
        speed = values[self._object_index] if self._object_index >= 0 else None
        fingers = values[self._joints_index] if self._joints_index >= 0 else None
        distances = values[self._distances_index] if self._distances_index >= 0 else None
        age_s = time_s - min(stamps_s)
        return GraspSample(
            time_s=time_s,
            in_contact=self._in_contact(forces, keep),
            palm_index=self._palm_index,
            object_speed_m_per_s=math.nan if speed is None else speed,
            finger_speeds=np.full(len(self.config.finger_joints), np.nan)
            if fingers is None else fingers.copy(),
            distances_from_base_m=() if distances is None else distances,
            stale=bool(late or age_s > self.config.max_sample_age),
            age_s=age_s if math.isfinite(age_s) else math.inf,
            pad_signals=self._signals(values) if self.config.slip_signals else (),
            timeline=self.grid.epoch)

    def due(self, now_s: float | None = None) -> list[GraspSample]:
        """Return the samples owed on the grid, oldest first.

        Args:
            now_s: the node's clock, s: a grid stamp it passed by more than
                ``max_sample_age`` before every input arrived gives a stale sample.
                None: only samples every input has arrived for.
        """
        return [self._sample(p.time_s, p.values, p.stamps_s, p.late)
                for p in self.grid.due(now_s, self.config.max_sample_age)]

    def sample(self, now_s: float) -> GraspSample:
        """Build a sample at ``now_s`` from the latest readings, whatever their stamps.

        For status reports; the monitor itself runs on :meth:`due`.
        """
        values, stamps = self.grid.latest()
        # Readings from later than now belong to a timeline the clock has left.
        ahead = max(stamps) > now_s + self.config.max_sample_age
        return self._sample(now_s, values, stamps, ahead, keep=False)
