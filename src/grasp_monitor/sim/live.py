"""A simulation stepped live for a graph: paced ticks, the lockstep gate, the force test.

What the ``mujoco_sim`` node wraps, without ROS: the node hands it how to publish a tick
and how to ask the graph about a missing input, and calls it from its callbacks (reset,
pause, the force test, the monitor's verdicts), from any thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
import math
from typing import Callable

from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.realism import joint_model
from grasp_monitor.core.realism.joints import JointRealismConfig
from grasp_monitor.core.values import JointStates
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.lockstep import Lockstep
from grasp_monitor.sim.paced_loop import RunConfig, SimRunner


@dataclass(frozen=True)
class LiveConfig:
    """How a live simulation runs.

    Attributes:
        run: pacing (ticks per second, real-time factor, pause_at).
        force_test: the external force test's profile.
        force_test_body: the body it pulls ('' = the scene's first object).
        force_test_start_time_s: also start the test by itself at this simulated time after every
            reset, s (0: only when asked).
        lockstep: a tick waits for its inputs (``sim.lockstep.Lockstep``).
        clock_rate_hz: /clock rate, Hz (0: every tick).
        joint_realism: the encoders' imperfections (ideal: the joints as they are).
        realism_seed: the seed of the encoders' model.
    """

    run: RunConfig = RunConfig()
    force_test: ExternalForceTest = ExternalForceTest()
    force_test_body: str = ''
    force_test_start_time_s: float = 0.0
    lockstep: bool = True
    clock_rate_hz: float = 0.0
    joint_realism: JointRealismConfig = field(default_factory=JointRealismConfig)
    realism_seed: int = 0


class LiveSimulation:
    """A ``Simulator`` stepped by a ``SimRunner``, gated in lockstep, with its force test.

    Args:
        sim: the simulator.
        config: how it runs.
        publish: publishes a tick (lock held): ``publish(sim, clock, states)``, ``clock``
            whether /clock is due (``clock_rate_hz``), ``states`` the joint states as the
            encoders report them (None: the frame is lost).
        warn: logs a warning.
        present: whether a missing input (``servo_commands`` or ``verdicts``) has a
            publisher (``Lockstep.wait``).
        resend: sends the clock at the given time again, for a missing answer.
    """

    def __init__(self, sim: Simulator, config: LiveConfig,
                 publish: Callable[[Simulator, bool, JointStates | None], None],
                 warn: Callable[[str], object],
                 present: Callable[[str], bool], resend: Callable[[float], object]) -> None:
        self.sim = sim
        self.config = config
        self.force_test_body = config.force_test_body or sim.scene.objects[0]
        if config.force_test_start_time_s > 0.0:
            sim.schedule_force_test(config.force_test, self.force_test_body,
                                    config.force_test_start_time_s)
        self.lockstep = Lockstep(lambda: sim.time_s, 0.5 * sim.timestep_s, config.lockstep,
                                 warn)
        self._publish = publish
        self.runner = SimRunner(sim, config.run, on_tick=self._on_tick,
                                gate=self._inputs_in if config.lockstep else None)
        self._present, self._resend = present, resend
        tick_rate_hz = 1.0 / (self.runner.steps_per_tick * sim.timestep_s)
        self.clock_every = max(1, round(tick_rate_hz / config.clock_rate_hz)) \
            if config.clock_rate_hz else 1
        # what real encoders report (None: ideal, the joints as they are)
        self.encoders = joint_model(config.joint_realism, len(sim.scene.joints),
                                    1.0 / tick_rate_hz, config.realism_seed)
        self.encoders_s = -math.inf  # the last frame's time: a reset starts them over

    def _on_tick(self, sim: Simulator) -> None:
        self._publish(sim, self.runner.on_grid(self.clock_every),
                      self.encoded(sim.joint_states()))

    def encoded(self, states: JointStates) -> JointStates | None:
        """Return the joint states as the encoders report them (None: the frame is lost)."""
        if self.encoders is None:
            return states
        if states.time_s < self.encoders_s:  # a reset: the same encoders from time 0
            self.encoders.reset()
        self.encoders_s = states.time_s
        position, velocity, kept = self.encoders.apply(states.position[None],
                                                       states.velocity[None])
        return replace(states, position=position[0], velocity=velocity[0]) \
            if kept[0] else None

    def _inputs_in(self) -> bool:
        """Lockstep gate: wait until the tick's inputs are in from its peers."""
        return self.lockstep.wait(
            lambda: not self.runner.pacer.stopped and not self.runner.paused,
            self._present, self._resend)

    def verdict_in(self, stamp_s: float, command: str, next_s: float, stale: bool) -> None:
        """Take the monitor's verdict on a sample: it starts or stops the force test there."""
        self.lockstep.verdict_in(stamp_s, command, next_s, stale, force=self.force)

    def force(self, start: bool) -> str:
        """Start or stop the force test; a start while it pulls keeps it.

        The monitor's verdict and a service call both ask for one start.

        Returns:
            What it does now, for a reply.
        """
        with self.runner.lock:
            if start and not self.sim.force_test_active:
                self.sim.start_force_test(self.config.force_test, self.force_test_body)
            elif not start:
                self.sim.stop_force_test()
        return f'pulling {self.force_test_body}' if start else 'released'

    def reset(self) -> None:
        """Back to the scene's start, servos stopped; lockstep's peers join again."""
        self.runner.reset()
        self.lockstep.reset()

    def status(self) -> tuple[str, str, dict[str, object]]:
        """Return the simulator's level, message and values, with the run's and lockstep's."""
        with self.runner.lock:
            level, message, values = self.sim.status()
        values.update({'ticks': self.runner.ticks, 'paused': self.runner.paused}
                      | self.lockstep.diagnostics())
        return level, message, values
