"""The hardware-eval trials: pick_lift grasps that hold, slip, drop, close slowly or never.

Every trial is pick_lift with slip-eval's quick script, its values drawn from its seed:

- ``hold``: grasped and held, under a load swinging up to half what the pads' friction
  holds (a quarter: none); what false alarms are counted on.
- ``slip``: grasped, then pulled (a ramp along the pads) past the friction limit: the
  object slides out (incipient slip, then slip-out once it is lost).
- ``drop``: a grip too weak to lift the object: the pads rise without it (slip-out).
- ``slow_close``: the fingers close slowly (3-8 mm/s, from 5 mm away): a grasp must not
  fire while they still close.
- ``no_close``: the fingers never close (contact timeout).
"""

from __future__ import annotations

import dataclasses
import math

from grasp_monitor.app.slip_eval.family import GRAVITY_M_PER_S2, make_family as pulls, \
    PULL_S, SlipTrial
import numpy as np

#: The kinds of trial, in the order the family interleaves them.
KINDS = ('hold', 'slip', 'drop', 'slow_close', 'no_close')
#: Simulated time after the pull's end in a slip trial: the object falls, slip-out fires.
AFTER_PULL_S = 1.5


@dataclasses.dataclass(frozen=True)
class HardwareTrial:
    """One trial of the family.

    Attributes:
        index: its place in the family.
        kind: one of ``KINDS``.
        tuning: in the tuning split (detector settings are chosen there), else held out.
        pull: the slip-eval trial it extends (grip, mass, friction, pull, motor noise).
        close_speed_m_per_s: the fingers' closing speed (0: under the grip force).
        finger_gap_m: each open pad's clearance from the object, m.
        duration_s: simulated time of the trial, s.
    """

    index: int
    kind: str
    tuning: bool
    pull: SlipTrial
    close_speed_m_per_s: float = 0.0
    finger_gap_m: float = 0.03
    duration_s: float = 4.2

    @property
    def seed(self) -> int:
        """What the trial's values (and its sensors' noise) are drawn from."""
        return self.pull.seed


def make_family(per_kind: int, seed: int = 0, tuning_share: float = 1 / 3
                ) -> list[HardwareTrial]:
    """Return ``per_kind`` trials of each kind, drawn from ``seed``, interleaved by kind."""
    base = pulls(2 * per_kind, seed, tuning_share=tuning_share)
    slips = [t for t in base if t.slips]
    holds = [t for t in base if not t.slips]
    family = []
    for i in range(per_kind):
        rng = np.random.default_rng([seed, i, 7])
        hold, slip = holds[i], slips[i]
        no_pull = dataclasses.replace(slip, pull_n=0.0, slips=False)
        weight_n = slip.mass_kg * GRAVITY_M_PER_S2
        # a grip whose friction holds a third to two thirds of the weight
        weak_n = float(rng.uniform(1 / 3, 2 / 3)) * weight_n / (2.0 * slip.friction)
        trials = {
            'hold': HardwareTrial(0, 'hold', hold.tuning, hold),
            'slip': HardwareTrial(0, 'slip', slip.tuning, slip,
                                  duration_s=slip.duration_s + AFTER_PULL_S),
            'drop': HardwareTrial(0, 'drop', no_pull.tuning,
                                  dataclasses.replace(no_pull, grip_force_n=weak_n),
                                  duration_s=4.0),
            'slow_close': HardwareTrial(
                0, 'slow_close', hold.tuning, dataclasses.replace(hold, pull_n=0.0),
                close_speed_m_per_s=float(rng.uniform(0.003, 0.008)), finger_gap_m=0.005,
                duration_s=4.5),
            'no_close': HardwareTrial(0, 'no_close', slip.tuning,
                                      dataclasses.replace(no_pull, grip_force_n=0.0),
                                      duration_s=5.6),
        }
        family += [dataclasses.replace(trials[kind], index=len(family) + k)
                   for k, kind in enumerate(KINDS)]
    return family


def pull_start_s(trial: HardwareTrial) -> float:
    """When the trial's pull starts, s (inf: no pull)."""
    return PULL_S if trial.pull.pull_n > 0 and not math.isinf(trial.pull.pull_n) \
        else math.inf
