"""What a real tactile array reports for the forces on its taxels: ``TactileRealism``.

Effects, in the order a reading meets them (each skipped when its field is 0):
crosstalk (each taxel gets a share of its neighbours' force), gain error,
hysteresis (a play operator per taxel and component), offset and drift, white
noise, saturation, quantisation, dead and stuck taxels (one compiled pass,
``kernel``), then latency and dropped frames.
Per-taxel draws are per component too (each axis of a 3-axis taxel is its own
channel); they are drawn once at construction, scaled by the configuration, so
one seed gives proportional draws at every preset.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.realism.checks import int_field, model_arguments, real_field
from grasp_monitor.core.realism.crosstalk import neighbours
from grasp_monitor.core.realism.kernel import noise_table, TACTILE_FRAMES
from grasp_monitor.core.realism.stream import delivered, FrameDelay, latency_frames
import numpy as np
import numpy.typing as npt

_OWNER = 'TactileRealismConfig'
#: Components a taxel may report: a force vector (3) or a normal force (1).
COMPONENTS = (1, 3)


@dataclass(frozen=True)
class TactileRealismConfig:
    """The imperfections of a tactile array; the defaults are an ideal sensor.

    Attributes:
        noise_n: per-taxel white Gaussian noise, std per force component, N.
        offset_n: per-taxel constant offset, std of its draw, N.
        drift_n_per_s: per-taxel drift rate, std of its draw, N/s (linear in
            time from 0 at construction).
        gain_error: per-taxel relative gain error, std (gain 1 + e drawn once), < 0.5.
        hysteresis: width of the loading/unloading loop as a share of
            ``full_scale_n`` (a play operator of half that width each side).
        full_scale_n: saturation, N: each component clamped to [-full, full].
        bits: ADC resolution over [-full_scale_n, full_scale_n]; 0: none.
        dead_fraction: share of taxels that read 0.
        stuck_fraction: share of taxels stuck at a value drawn once, uniform
            within [-full_scale_n, full_scale_n] per component.
        crosstalk: share of each neighbour's force added to a taxel
            (neighbours: within 1.5 times the nearest-taxel spacing).
        drop_rate: probability a frame is not delivered, < 1.
        latency_s: a frame carries the reading of ``latency_s`` earlier, s.

    Raises:
        ConfigError: a field out of range (named), or an effect that needs a
            finite ``full_scale_n`` without one.
    """

    noise_n: float = 0.0
    offset_n: float = 0.0
    drift_n_per_s: float = 0.0
    gain_error: float = 0.0
    hysteresis: float = 0.0
    full_scale_n: float = math.inf
    bits: int = 0
    dead_fraction: float = 0.0
    stuck_fraction: float = 0.0
    crosstalk: float = 0.0
    drop_rate: float = 0.0
    latency_s: float = 0.0

    def __post_init__(self) -> None:
        ranges = {'gain_error': (0.0, 0.5, True), 'hysteresis': (0.0, 1.0, False),
                  'dead_fraction': (0.0, 1.0, False), 'stuck_fraction': (0.0, 1.0, False),
                  'crosstalk': (0.0, 1.0, False), 'drop_rate': (0.0, 1.0, True)}
        for field in fields(self):
            name = field.name
            value = getattr(self, name)
            if name == 'bits':
                checked = int_field(_OWNER, name, value, 0, 32)
            elif name == 'full_scale_n':
                checked = real_field(_OWNER, name, value, 1e-12, math.inf, infinite=True)
            else:
                low, high, open_ = ranges.get(name, (0.0, math.inf, False))
                checked = real_field(_OWNER, name, value, low, high, open_)
            object.__setattr__(self, name, checked)
        if self.dead_fraction + self.stuck_fraction > 1.0:
            raise ConfigError(f'{_OWNER}.dead_fraction + stuck_fraction must be <= 1, got '
                              f'{self.dead_fraction} + {self.stuck_fraction}')
        if not math.isfinite(self.full_scale_n):
            for name in ('hysteresis', 'bits', 'stuck_fraction'):
                if getattr(self, name) > 0:
                    raise ConfigError(f'{_OWNER}.{name} = {getattr(self, name)} needs a '
                                      f'finite full_scale_n, got {self.full_scale_n}')

    @property
    def is_ideal(self) -> bool:
        """True when the sensor reports exactly the forces it feels."""
        return self == TactileRealismConfig()


class TactileRealism:
    """Turns the forces on a pad's taxels into what a real array reports.

    Args:
        config: the imperfections.
        positions_in_pad: (N, 3) taxel positions, m (for crosstalk's neighbours).
        sample_period_s: time between frames, s (drift, latency).
        seed: seed of every draw (>= 0); give each pad its own.

    Raises:
        ConfigError: bad positions, period or seed.
    """

    def __init__(self, config: TactileRealismConfig, positions_in_pad: npt.ArrayLike,
                 sample_period_s: float, seed: int) -> None:
        positions = np.asarray(positions_in_pad, dtype=float)
        if positions.ndim != 2 or positions.shape[1] != 3 \
                or not np.all(np.isfinite(positions)):
            raise ConfigError(f'positions_in_pad must be finite (N, 3), m, got shape '
                              f'{positions.shape}')
        self.config = config
        self.sample_period_s, self.seed = model_arguments(sample_period_s, seed)
        self.taxels = positions.shape[0]
        draws, noise, drops = np.random.SeedSequence(self.seed).spawn(3)
        self._streams = (noise, drops)
        rng = np.random.default_rng(draws)
        shape = (self.taxels, 3)
        # Always the same draws in the same order, scaled by the config afterwards.
        self.offsets_n = config.offset_n * rng.standard_normal(shape)
        self.drift_rates_n_per_s = config.drift_n_per_s * rng.standard_normal(shape)
        self.gains = 1.0 + config.gain_error * rng.standard_normal(shape)
        order = rng.permutation(self.taxels)
        uniform = rng.uniform(-1.0, 1.0, shape)
        dead = int(round(config.dead_fraction * self.taxels))
        stuck = int(round(config.stuck_fraction * self.taxels))
        self.dead = np.sort(order[:dead])
        self.stuck = np.sort(order[dead:dead + stuck])
        full = config.full_scale_n
        self._step = 2.0 * full / 2 ** config.bits if config.bits else 0.0
        self.stuck_values_n = np.zeros(shape)
        if stuck:
            values = full * uniform[self.stuck]
            if self._step:
                values = np.clip(np.rint(values / self._step) * self._step, -full, full)
            self.stuck_values_n[self.stuck] = values
        self._faults = np.zeros(self.taxels if dead or stuck else 0, dtype=np.int64)
        self._faults[self.dead] = 1
        self._faults[self.stuck] = 2
        self._neighbours = neighbours(positions) if config.crosstalk > 0 else \
            (np.zeros(self.taxels + 1, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self._table = noise_table() if config.noise_n > 0 else np.zeros(0)
        self._delay = FrameDelay(latency_frames(config.latency_s, self.sample_period_s))
        self.reset()

    def reset(self) -> None:
        """Return to the state after construction: time 0, the same draws ahead."""
        self._frame = 0
        self._components: int | None = None
        self._tables: tuple[np.ndarray, ...] | None = None
        self._delay.reset()
        self._noise = np.random.SFC64(self._streams[0])
        self._drops = np.random.default_rng(self._streams[1])

    def _per_taxel(self, components: int) -> tuple[np.ndarray, ...]:
        """Return the kernel's contiguous per-taxel tables for C components (empty: off)."""
        config = self.config
        tables = []
        for table, used in ((self.gains, config.gain_error > 0), (None, config.hysteresis > 0),
                            (self.offsets_n, config.offset_n > 0),
                            (self.drift_rates_n_per_s, config.drift_n_per_s > 0),
                            (self.stuck_values_n, True)):
            if table is None:  # the play operator's state, starting unloaded
                table = np.zeros((self.taxels, 3))
            tables.append(np.ascontiguousarray(table[:, :components]) if used
                          else np.zeros((0, 0)))
        return tuple(tables)

    def _noise_index(self, frames: int, values: int) -> np.ndarray:
        if self.config.noise_n == 0:
            return np.zeros((0, 0), dtype=np.uint16)
        # Whole 64-bit words per frame: a block draws what its frames would one by one.
        words = -(-values // 4)
        raw = self._noise.random_raw(frames * words)
        return raw.view(np.uint16).reshape(frames, 4 * words)

    def apply(self, forces: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Return what the array reports for S consecutive frames, and which arrive.

        Stateful across calls (drift time, hysteresis, latency, the noise
        sequence): a block of S frames and S calls of one frame give the same.

        Args:
            forces: (S, N, C) true forces on the N taxels, C = 3 or 1, N.

        Returns:
            (S, N, C) float readings, N; (S,) bool, False where the frame is
            dropped (its reading is then not to be used).

        Raises:
            ValueError: wrong shape, or C changed since the last reset.
        """
        values = np.array(forces, dtype=float)
        if values.ndim != 3 or values.shape[1] != self.taxels \
                or values.shape[2] not in COMPONENTS:
            raise ValueError(f'forces must be (S, {self.taxels}, 1 or 3), got {values.shape}')
        frames, _, components = values.shape
        if self._components is None:
            self._components = components
        elif components != self._components:
            raise ValueError(f'forces have {components} components, earlier ones had '
                             f'{self._components}; reset() first')
        config = self.config
        if config.is_ideal:
            self._frame += frames
            return values, np.ones(frames, dtype=bool)
        if self._tables is None:
            self._tables = self._per_taxel(components)
        readings = np.empty_like(values)
        gains, played, offsets, rates, stuck = self._tables
        TACTILE_FRAMES(
            values, readings, self._frame, self.sample_period_s, *self._neighbours,
            config.crosstalk, gains, played, 0.5 * config.hysteresis * config.full_scale_n,
            offsets, rates, self._noise_index(frames, self.taxels * components), self._table,
            config.noise_n, config.full_scale_n, self._step, self._faults, stuck)
        self._frame += frames
        return self._delay.apply(readings), delivered(self._drops, frames, config.drop_rate)
