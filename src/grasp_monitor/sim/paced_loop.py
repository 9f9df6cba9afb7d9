"""A paced stepping loop shared by the ``mujoco_sim`` node and the offline command."""

from __future__ import annotations

from dataclasses import dataclass
import threading
from typing import Callable

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.pacing import Pacer
from grasp_monitor.sim.backend import Simulator


@dataclass(frozen=True)
class RunConfig:
    """How a simulation is paced.

    Attributes:
        publish_rate_hz: ticks per simulated second; each tick steps the physics
            ``round(1 / (publish_rate_hz * timestep))`` times and calls back.
        real_time_factor: simulated seconds per wall second; 0 runs as fast as possible.
        pause_at_s: pause by itself once simulated time reaches this, on the timeline
            of each reset (not the one it starts with: a trial starts with a reset),
            once its gate let that tick in; 0: never.
    """

    publish_rate_hz: float = 500.0
    real_time_factor: float = 1.0
    pause_at_s: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.publish_rate_hz <= 10000:
            raise ConfigError(
                f'publish_rate_hz must be in (0, 10000], got {self.publish_rate_hz}')
        if not (0 <= self.pause_at_s < float('inf')):
            raise ConfigError(f'pause_at_s must be finite and >= 0, got {self.pause_at_s}')
        if not 0 <= self.real_time_factor <= 1000:
            raise ConfigError(
                f'real_time_factor must be in [0, 1000] (0 = as fast as possible), '
                f'got {self.real_time_factor}')

    def steps_per_tick(self, timestep_s: float) -> int:
        """Physics steps between two ticks (at least one)."""
        return max(1, round(1.0 / (self.publish_rate_hz * timestep_s)))


class SimRunner:
    """Steps a Simulator tick by tick, paced against the wall clock.

    Pacing never lets simulated time run ahead of ``real_time_factor`` × wall
    time: before each tick it waits until the wall clock has reached the time
    the tick will end at. Pausing, resetting and commanding are safe from other
    threads (they take ``lock``).

    Args:
        sim: the simulator.
        config: pacing.
        on_tick: called after every tick, with the lock held.
        gate: called before every tick, without the lock; the tick waits for it to
            return (lockstep: until the tick's inputs are in). False skips the tick.

    Attributes:
        control_callbacks: called before every tick's step, with the lock held, in
            order: in-process controllers set the tick's command there.
        tick_callbacks: more callbacks, called after ``on_tick`` in order, with
            the lock held (so the MuJoCo data they read is one consistent state);
            change them through ``add_tick_callback`` / ``remove_tick_callback``.
    """

    def __init__(self, sim: Simulator, config: RunConfig,
                 on_tick: Callable[[Simulator], None] | None = None,
                 gate: Callable[[], bool] | None = None) -> None:
        self.sim = sim
        self.config = config
        self.on_tick = on_tick
        self.gate = gate
        self.tick_callbacks: list[Callable[[Simulator], None]] = []
        self.control_callbacks: list[Callable[[Simulator], None]] = []
        self.steps_per_tick = config.steps_per_tick(sim.timestep_s)
        self.lock = threading.RLock()
        self.ticks = 0
        self.pacer = Pacer(config.real_time_factor)
        self._paused_at = False  # paused at pause_at_s on this timeline
        self._reset_once = False  # pause_at_s counts from the first reset on

    @property
    def paused(self) -> bool:
        """Whether stepping is suspended."""
        return self.pacer.paused

    def set_paused(self, paused: bool) -> None:
        """Suspend or resume stepping; pacing restarts from now on resume."""
        self.pacer.set_paused(paused)

    def reset(self) -> None:
        """Reset the simulation; pacing restarts from now."""
        with self.lock:
            self.sim.reset()
            self.pacer.rebase()
            self._reset_once = True

    def add_tick_callback(self, callback: Callable[[Simulator], None]) -> None:
        """Call ``callback(sim)`` after every tick from now on."""
        with self.lock:
            self.tick_callbacks.append(callback)

    def remove_tick_callback(self, callback: Callable[[Simulator], None]) -> None:
        """Stop calling ``callback`` (no error if it is not registered)."""
        with self.lock:
            if callback in self.tick_callbacks:
                self.tick_callbacks.remove(callback)
            if callback in self.control_callbacks:
                self.control_callbacks.remove(callback)

    def on_grid(self, every: int) -> bool:
        """Whether the tick just taken ends on every ``every``-th tick of simulated time.

        On the time, not on a count of ticks: after a reset the same stamps come out, so
        a sample grid of the consumers (k / rate) stays on the published stamps.
        """
        tick_s = self.steps_per_tick * self.sim.timestep_s
        return round(self.sim.time_s / tick_s) % every == 0

    def add_control_callback(self, callback: Callable[[Simulator], None]) -> None:
        """Call ``callback(sim)`` before every tick's step from now on (remove as above)."""
        with self.lock:
            self.control_callbacks.append(callback)

    def stop(self) -> None:
        """Make ``run`` return after the current tick."""
        self.pacer.stop()

    def tick(self) -> bool:
        """One tick: step and call back. Returns False when the simulation diverged."""
        with self.lock:
            before_s = self.sim.time_s
            for control in self.control_callbacks:
                control(self.sim)
            ok = self.sim.step(self.steps_per_tick)
            if self.sim.time_s < before_s:
                # MuJoCo reset an unstable state to time 0: pace from here, or the
                # runner would race flat out to catch up with the old time
                self.pacer.rebase()
            self.ticks += 1
            if self.on_tick is not None:
                self.on_tick(self.sim)
            for callback in self.tick_callbacks:
                callback(self.sim)
        return ok

    def _pause_here(self) -> bool:
        """Pause at ``pause_at_s`` once per timeline; True when it just paused."""
        at_s = self.config.pause_at_s
        if not at_s or not self._reset_once:
            return False
        with self.lock:
            now_s = self.sim.time_s
            if now_s < at_s - 0.5 * self.sim.timestep_s:
                self._paused_at = False  # a reset sent time back before it
                return False
            if self._paused_at:
                return False
            self._paused_at = True
            self.pacer.set_paused(True)
            return True

    def run(self, duration_s: float | None = None) -> None:
        """Tick until ``stop()``, or until ``duration_s`` of simulated time has passed."""
        pacer = self.pacer
        end_s = None if duration_s is None else self.sim.time_s + duration_s
        tick_s = self.steps_per_tick * self.sim.timestep_s
        while not pacer.stopped:
            if pacer.paused:
                pacer.sleep(0.01)
                continue
            if end_s is not None and self.sim.time_s >= end_s - 0.5 * self.sim.timestep_s:
                return
            if pacer.rate > 0:
                # wait until the wall clock reaches the time this tick ends at
                delay = pacer.delay_s(self.sim.time_s + tick_s, origin=self.sim.time_s)
                if delay > 0:
                    pacer.sleep(delay)
                    if pacer.stopped or pacer.paused:
                        continue
            if self.gate is not None and not self.gate():
                continue
            if self._pause_here():
                continue
            self.tick()
