"""The incipient slip event: a pad's tactile signals warn that the object starts to slide."""

from __future__ import annotations

from collections import deque
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor.event import check_positive, MonitorEvent
from grasp_monitor.core.monitor.records import Command
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.settings import default
from grasp_monitor.core.monitor.state import TrialState
import numpy as np

#: The cues, in the order of ``IncipientSlipEvent.cues``.
CUES = ('friction', 'cop', 'vibration', 'slip', 'stall')
#: The stall cue's short window, s: the ratio's rise over it against the long window's.
STALL_SHORT_S = 0.02
#: Time constant of the low-pass of the shear ratio the stall cue reads, s.
STALL_FILTER_S = 0.005
#: How long a stall must last to count, s: the top of a load's spike falls again.
STALL_CONFIRM_S = 0.01
#: The least rise of the shear ratio over the stall window, per second of it: a load that
#: barely changes has no pace to miss.
STALL_MIN_PACE_PER_S = 0.05


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
      (only where the sensor has one: NaN counts as 0);
    - stall (needs no friction coefficient): the shear ratio (shear / normal force),
      having risen by at least ``stall_rise`` from its lowest since the pad was loaded and
      still rising over the last ``stall_window_s``, stops rising: one minus its rise
      over the last ``STALL_SHORT_S`` as a share of the rise over the window at the same
      pace, over ``stall`` (the cone's edge: a pull past it slides at the friction limit
      instead of loading the pads further; a load that turns smoothly, at the peak of a
      swing, slows over the whole window, not in its last moments).

    A pad is watched once it has been loaded for ``settle_s`` without a break (the
    impact of the close is no slip), and from then on whenever it is loaded. A
    ``friction`` of 0 means it is unknown: the friction cue is off.
    Defaults: the monitor's settings, ``incipient_slip.*``.

    Args:
        friction: friction coefficient of the pads on the object assumed by the cone
            (0: unknown, the friction cue is off).
        ratio: share of the friction cone that warns, in (0, 10].
        cop_speed: centre of pressure speed that warns, m/s (0: off).
        vibration: relative high-passed normal force that warns (0: off).
        slip_speed: sliding speed that warns, m/s (0: off).
        min_force_n: a pad pressed less than this is not watched, N.
        high_pass_s: time constant of the vibration's low-pass, s.
        cop_window_s: time constant of the low-pass of the centre of pressure's
            velocity, s (0: none).
        stall: share of the expected rise that, missing, warns (0: off).
        stall_rise: least rise of the shear ratio before a stall counts.
        stall_window_s: the window over which the ratio must have been rising, s.
        settle_s: a pad is watched once loaded this long, s.

    Raises:
        ConfigError: a value out of range, naming it.
    """

    def __init__(self, friction: float = default('incipient_slip_friction'),
                 ratio: float = default('incipient_slip_ratio'),
                 cop_speed: float = default('incipient_slip_cop_speed'),
                 vibration: float = default('incipient_slip_vibration'),
                 slip_speed: float = default('incipient_slip_slip_speed'),
                 min_force_n: float = default('incipient_slip_min_force'),
                 high_pass_s: float = default('incipient_slip_high_pass'),
                 cop_window_s: float = default('incipient_slip_cop_window'),
                 stall: float = default('incipient_slip_stall'),
                 stall_rise: float = default('incipient_slip_stall_rise'),
                 stall_window_s: float = default('incipient_slip_stall_window'),
                 settle_s: float = default('incipient_slip_settle')) -> None:
        check_positive(ratio=ratio, min_force_n=min_force_n, high_pass_s=high_pass_s,
                       stall_window_s=stall_window_s)
        for name, value in (('friction', friction), ('cop_speed', cop_speed),
                            ('vibration', vibration), ('slip_speed', slip_speed),
                            ('cop_window_s', cop_window_s), ('stall', stall),
                            ('stall_rise', stall_rise), ('settle_s', settle_s)):
            if not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f'{name} must be finite and >= 0 (0: off), got {value}')
        if stall_window_s <= STALL_SHORT_S:
            raise ConfigError(f'stall_window_s must be longer than {STALL_SHORT_S} s, got '
                              f'{stall_window_s}')
        self.friction = float(friction)
        self.min_force_n = float(min_force_n)
        self.high_pass_s = float(high_pass_s)
        self.cop_window_s = float(cop_window_s)
        self.stall_rise = float(stall_rise)
        self.stall_window_s = float(stall_window_s)
        self.settle_s = float(settle_s)
        # multiplied by each cue: 0 turns it off
        self._scale = np.array([1.0 / ratio if friction > 0 else 0.0] + [
            1.0 / v if v > 0 else 0.0 for v in (cop_speed, vibration, slip_speed, stall)])
        self._stall_on = stall > 0
        self.reset()

    def reset(self) -> None:
        """Forget the filters' past (a new trial, or samples not seen)."""
        self._cop: np.ndarray | None = None
        self._cop_velocity: np.ndarray | None = None
        self._low: np.ndarray | None = None
        self._time_s = 0.0
        self._loaded_for: np.ndarray | None = None
        # the stall cue's past: the low-passed shear ratio, its lowest, and its history
        self._ratio: np.ndarray | None = None
        self._lowest: np.ndarray | None = None
        self._history: deque[tuple[float, np.ndarray]] = deque()
        self._stalled_for: np.ndarray | None = None

    def update(self, signals: np.ndarray, dt_s: float) -> np.ndarray:
        """Return (B, 5) each pad's cues over their thresholds (0 for a pad not watched).

        Args:
            signals: (B, 5) the pads' ``slip_signals.SIGNALS`` now.
            dt_s: time since the previous update, s.
        """
        normal, shear = signals[:, 0], signals[:, 1]
        loaded = normal >= self.min_force_n
        safe = np.where(loaded, normal, 1.0)
        self._time_s += dt_s
        if self._loaded_for is None:
            self._loaded_for = np.zeros(normal.size)
            self._settled = np.zeros(normal.size, bool)
        self._loaded_for = np.where(loaded, self._loaded_for + dt_s, 0.0)
        # settled once: a slip that unloads the pad for a moment does not start it again
        self._settled |= self._loaded_for >= self.settle_s - 1e-12
        cues = np.zeros((normal.size, len(CUES)))
        if self.friction > 0:
            cues[:, 0] = shear / (self.friction * safe)
        if self._stall_on:
            cues[:, 4] = self._stall(np.where(loaded, shear / safe, np.nan), dt_s)
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
        cues[~loaded | ~self._settled] = 0.0
        return cues

    def _stall(self, ratio: np.ndarray, dt_s: float) -> np.ndarray:
        """Return (B,) the stall cue, unscaled: the share of the expected rise missing."""
        if self._ratio is None:
            self._ratio = ratio.copy()
            self._lowest = ratio.copy()
        else:
            self._ratio += (ratio - self._ratio) * (dt_s / (STALL_FILTER_S + dt_s))
            # a pad loaded again starts from its ratio now
            restart = ~np.isfinite(self._ratio)
            self._ratio[restart] = ratio[restart]
            self._lowest = np.fmin(np.where(np.isfinite(ratio), self._lowest, np.nan),
                                   self._ratio)
        now_s, history = self._time_s, self._history
        history.append((now_s, self._ratio.copy()))
        while len(history) > 1 and history[1][0] <= now_s - self.stall_window_s + 1e-12:
            history.popleft()
        start_s, start = history[0]
        span_s = now_s - start_s
        if span_s < self.stall_window_s - 1e-9:
            return np.zeros(ratio.size)
        # the ratio a short window ago (the newest entry at or before it)
        short_at = now_s - STALL_SHORT_S
        recent = next(value for stamp, value in reversed(history) if stamp <= short_at + 1e-12)
        rise = self._ratio - start
        expected = rise * (STALL_SHORT_S / span_s)
        armed = (self._ratio - self._lowest >= self.stall_rise) & (
            rise >= STALL_MIN_PACE_PER_S * span_s)
        with np.errstate(invalid='ignore', divide='ignore'):
            missing = 1.0 - (self._ratio - recent) / expected
        # a plateau: the rise stopped without the ratio falling back (the top of a spike)
        plateau = armed & np.isfinite(missing) & (missing >= 0.0) & (missing <= 2.0 - (
            1.0 / self._scale[4] if self._scale[4] > 0 else 1.0))
        if self._stalled_for is None:
            self._stalled_for = np.zeros(ratio.size)
        self._stalled_for = np.where(plateau, self._stalled_for + dt_s, 0.0)
        confirmed = self._stalled_for >= STALL_CONFIRM_S - 1e-9
        return np.where(plateau & confirmed, np.clip(missing, 0.0, 1.0), 0.0)


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
            shares = {'friction_share': float(signals[pad, 1]) / (self.scorer.friction * normal)} \
                if self.scorer.friction > 0 else {}
            self._fire(state, pad=name, cue=CUES[int(cues[pad].argmax())], score=self.score,
                       shear_ratio=float(signals[pad, 1]) / normal, **shares,
                       normal_force_n=normal)
        return Command.CONTINUE
