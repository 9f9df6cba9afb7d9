"""The incipient slip event: a pad's tactile signals warn that the object starts to slide."""

from __future__ import annotations

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.event import check_positive, MonitorEvent
from grasp_monitor.core.monitor.records import Command
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.settings import default
from grasp_monitor.core.monitor.state import TrialState
import numpy as np

#: The cues, in the order of ``IncipientSlipEvent.cues``.
CUES = ('friction', 'cop', 'vibration', 'slip')


class SlipScore:
    """A pad's cues of incipient slip, each over its threshold; the score is their largest.

    Per pad loaded with at least ``min_force_n``, four cues, each divided by its
    threshold (0 turns a cue off); the score is their largest over the pads:

    - friction: shear / (``friction`` x normal force), the share of the friction
      cone in use, over ``ratio``;
    - cop: the speed of the centre of pressure over the pad, m/s (its velocity
      low-passed with time constant ``cop_window_s``), over ``cop_speed``;
    - vibration: the normal force's high-pass (its distance from a first-order
      low-pass of time constant ``high_pass_s``) over the normal force, over
      ``vibration``;
    - slip: the sliding speed of a sensor's slip channel, m/s, over ``slip_speed``
      (only where the sensor has one: NaN counts as 0).

    Defaults: the monitor's settings, ``incipient_slip.*``.

    Args:
        friction: friction coefficient of the pads on the object assumed by the cone.
        ratio: share of the friction cone that warns, in (0, 10].
        cop_speed: centre of pressure speed that warns, m/s (0: off).
        vibration: relative high-passed normal force that warns (0: off).
        slip_speed: sliding speed that warns, m/s (0: off).
        min_force_n: a pad pressed less than this is not watched, N.
        high_pass_s: time constant of the vibration's low-pass, s.
        cop_window_s: time constant of the low-pass of the centre of pressure's
            velocity, s (0: none).

    Raises:
        ConfigError: a value out of range, naming it.
    """

    def __init__(self, friction: float = default('slip_friction'),
                 ratio: float = default('slip_ratio'),
                 cop_speed: float = default('slip_cop_speed'),
                 vibration: float = default('slip_vibration'),
                 slip_speed: float = default('slip_speed'),
                 min_force_n: float = default('slip_min_force_n'),
                 high_pass_s: float = default('slip_high_pass_s'),
                 cop_window_s: float = default('slip_cop_window_s')) -> None:
        check_positive(friction=friction, ratio=ratio, min_force_n=min_force_n,
                       high_pass_s=high_pass_s)
        for name, value in (('cop_speed', cop_speed), ('vibration', vibration),
                            ('slip_speed', slip_speed), ('cop_window_s', cop_window_s)):
            if not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f'{name} must be finite and >= 0 (0: off), got {value}')
        self.friction = float(friction)
        self.min_force_n = float(min_force_n)
        self.high_pass_s = float(high_pass_s)
        self.cop_window_s = float(cop_window_s)
        # multiplied by each cue: 0 turns it off
        self._scale = np.array([1.0 / ratio] + [1.0 / v if v > 0 else 0.0
                                                for v in (cop_speed, vibration, slip_speed)])
        self.reset()

    def reset(self) -> None:
        """Forget the filters' past (a new trial, or samples not seen)."""
        self._cop: np.ndarray | None = None
        self._cop_velocity: np.ndarray | None = None
        self._low: np.ndarray | None = None

    def update(self, signals: np.ndarray, dt_s: float) -> np.ndarray:
        """Return (B, 4) each pad's cues over their thresholds (0 for a pad not loaded).

        Args:
            signals: (B, 5) the pads' ``slip_signals.SIGNALS`` now.
            dt_s: time since the previous update, s.
        """
        normal, shear = signals[:, 0], signals[:, 1]
        loaded = normal >= self.min_force_n
        safe = np.where(loaded, normal, 1.0)
        cues = np.zeros((normal.size, len(CUES)))
        cues[:, 0] = shear / (self.friction * safe)
        cop = signals[:, 2:4]
        if self._cop is not None and dt_s > 0:
            velocity = (cop - self._cop) / dt_s
            velocity[~np.isfinite(velocity)] = 0.0  # a pad loaded or unloaded since
            if self._cop_velocity is None:  # from rest
                self._cop_velocity = np.zeros_like(velocity)
            self._cop_velocity += (velocity - self._cop_velocity) * (
                dt_s / (self.cop_window_s + dt_s))
            cues[:, 1] = np.hypot(*self._cop_velocity.T)
        self._cop = cop
        if self._low is None:
            self._low = normal.copy()
        else:
            self._low += (normal - self._low) * (dt_s / (self.high_pass_s + dt_s))
        cues[:, 2] = np.abs(normal - self._low) / safe
        slip = signals[:, 4]
        cues[:, 3] = np.where(np.isfinite(slip), slip, 0.0)
        cues *= self._scale
        cues[~loaded] = 0.0
        return cues


class IncipientSlipEvent(MonitorEvent):
    """Fires when a loaded pad's slip score (``SlipScore``) reaches 1: the object starts to slide.

    Reads the samples' ``pad_signals`` (``slip_signals.SIGNALS``); without them it
    never fires.

    Args:
        *args, **kwargs: the ``SlipScore``'s.
        body_names: names of the B robot bodies, for the record's ``pad`` (empty: indices).

    Attributes:
        score: the latest sample's score (0 with no pad loaded).
    """

    name = 'incipient_slip'

    def __init__(self, *args: float, body_names: tuple[str, ...] = (),
                 **kwargs: float) -> None:
        self.scorer = SlipScore(*args, **kwargs)
        self.body_names = tuple(body_names)
        super().__init__()

    def reset(self) -> None:
        """Forget the scorer's past too."""
        super().reset()
        self.score = 0.0
        self.scorer.reset()

    def resume(self, state: TrialState) -> None:
        """Forget the filters' past: the samples in between were not seen."""
        self.scorer.reset()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """Score the sample's pads; fire when the score reaches 1."""
        signals = sample.pad_signals
        if signals.size == 0:
            self.score = 0.0
            return Command.CONTINUE
        cues = self.scorer.update(signals, state.dt_s)
        per_pad = cues.max(axis=1)
        pad = int(per_pad.argmax())
        self.score = float(per_pad[pad])
        if self.score >= 1.0:
            normal = float(signals[pad, 0])
            name = self.body_names[pad] if self.body_names else pad
            self._fire(state, pad=name, cue=CUES[int(cues[pad].argmax())], score=self.score,
                       friction_share=float(signals[pad, 1]) / (self.scorer.friction * normal),
                       normal_force_n=normal)
        return Command.CONTINUE
