"""The slip-eval trials: pick_lift holds pulled past their friction limit, and held ones.

Each trial is pick_lift with a quicker script and, once the object hangs in the
pads, a force ramping up on it (the force test's sine, whose first stretch is a
ramp) along the pads' surface: down, up or sideways. A *slip* trial's ramp passes
what the two pads' friction holds some time into the pull; a *hold* trial's stays
well below it (or is none). Grip force, object mass, friction and the pull are
drawn per trial from its seed.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

#: The script's phases, s: quick, so that the trials are short.
SCRIPT = {'grasp_controller.approach_height': 0.02, 'grasp_controller.approach_duration': 0.3,
          'grasp_controller.close_duration': 0.5, 'grasp_controller.close_ramp': 0.3,
          'grasp_controller.lift_duration': 0.6, 'grasp_controller.lift_height': 0.05}
#: The grasp is established (the drift's reference, the window's start), s.
HOLD_S = 1.6
#: The pull starts, s.
PULL_S = 1.7
#: The ramp's angular frequency, rad/s: sin(w t) is a ramp to within 10 % over the pull.
RAMP_RAD_PER_S = 0.4
#: Directions of the pull in the world: along the pads' surface (their normal is y).
DIRECTIONS = {'down': (0.0, 0.0, -1.0), 'up': (0.0, 0.0, 1.0), 'side': (1.0, 0.0, 0.0)}
GRAVITY_M_PER_S2 = 9.81
#: Coulomb friction (stick, then slide at the cone) rather than MuJoCo's creeping soft one.
NOSLIP_ITERATIONS = 10
#: Simulated time of a long hold after the grasp, s.
LONG_HOLD_S = 60.0


@dataclasses.dataclass(frozen=True)
class SlipTrial:
    """One trial of the family.

    Attributes:
        index: its place in the family.
        seed: what its values were drawn from.
        slips: a slip trial (the pull passes the friction limit) or a hold trial.
        tuning: in the tuning split (thresholds are picked on these), else held out.
        grip_force_n: each finger's closing force, N.
        mass_kg: the object's mass, kg.
        friction: the friction coefficient of the pads and the object.
        direction: a key of ``DIRECTIONS``.
        pull_n: the ramp's amplitude, N (0: no pull).
        pull_s: simulated time of the pull, s.
        motor_noise_n: noise of the finger servos' force, N (Gaussian std).
        noslip_iterations: MuJoCo's noslip solver iterations (0: soft friction, whose
            contacts creep inside the friction cone).
    """

    index: int
    seed: int
    slips: bool
    tuning: bool
    grip_force_n: float
    mass_kg: float
    friction: float
    direction: str
    pull_n: float
    pull_s: float
    motor_noise_n: float
    noslip_iterations: int = NOSLIP_ITERATIONS

    @property
    def duration_s(self) -> float:
        """Simulated time of the trial, s."""
        return PULL_S + self.pull_s

    def holding_limit_n(self) -> float:
        """Return the pull the two pads' friction holds along the direction, N (rigid estimate)."""
        friction_n = 2.0 * self.friction * self.grip_force_n
        weight_n = self.mass_kg * GRAVITY_M_PER_S2
        if self.direction == 'down':
            return friction_n - weight_n
        if self.direction == 'up':
            return friction_n + weight_n
        return math.sqrt(max(friction_n ** 2 - weight_n ** 2, 0.0))


def make_family(trials: int, seed: int = 0, pull_s: float = 2.5,
                tuning_share: float = 1 / 3,
                noslip_iterations: int = NOSLIP_ITERATIONS) -> list[SlipTrial]:
    """Return ``trials`` trials, every other one a slip trial, drawn from ``seed``.

    A slip trial's ramp reaches the holding limit between 20 % and 80 % of the
    pull; a hold trial's peak stays below 50 % of it (a quarter of them: no pull).
    A trial goes to the tuning split with probability ``tuning_share``, drawn from
    its seed.
    """
    family = []
    for index in range(trials):
        trial_seed = seed * 100003 + index
        rng = np.random.default_rng(trial_seed)
        slips = index % 2 == 0
        mass_kg, friction = float(rng.uniform(0.05, 0.4)), float(rng.uniform(0.5, 1.2))
        # a grip that lifts the object with a margin of 2.5 on its weight
        weakest_n = max(3.0, 2.5 * mass_kg * GRAVITY_M_PER_S2 / (2.0 * friction))
        values = {'grip_force_n': float(rng.uniform(weakest_n, 15.0)), 'mass_kg': mass_kg,
                  'friction': friction, 'direction': str(rng.choice(list(DIRECTIONS))),
                  'motor_noise_n': float(rng.uniform(0.0, 0.1))}
        probe = SlipTrial(index, trial_seed, slips, False, pull_n=0.0, pull_s=pull_s,
                          noslip_iterations=noslip_iterations, **values)
        limit_n = max(probe.holding_limit_n(), 0.5)
        if slips:
            at = float(rng.uniform(0.2, 0.8)) * pull_s
            pull_n = 1.0 * limit_n / math.sin(RAMP_RAD_PER_S * at)
        else:
            share = 0.0 if rng.uniform() < 0.25 else float(rng.uniform(0.1, 0.5))
            # the sine's peak over the pull: its end, or its crest in a longer pull
            pull_n = share * limit_n / math.sin(min(RAMP_RAD_PER_S * pull_s, math.pi / 2))
        tuning = bool(rng.uniform() < tuning_share)
        family.append(dataclasses.replace(probe, pull_n=pull_n, tuning=tuning))
    return family


def long_holds(count: int, seed: int = 0, hold_s: float = LONG_HOLD_S,
               noslip_iterations: int = NOSLIP_ITERATIONS) -> list[SlipTrial]:
    """Return ``count`` hold trials of ``hold_s`` simulated seconds after the grasp.

    Drawn as ``make_family``'s holds (from the next seed, so none is one of its
    trials): a load swinging up to half the holding limit (the sine's period is
    2π / ``RAMP_RAD_PER_S``, about 16 s), a quarter of them none, motor noise on the
    fingers. What false alarms per minute of stable grasp are counted on.
    """
    return [trial for trial in make_family(2 * count, seed + 1, hold_s,
                                           noslip_iterations=noslip_iterations)
            if not trial.slips]
