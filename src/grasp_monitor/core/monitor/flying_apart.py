"""The flying-apart event: a robot body too far from the base."""

from __future__ import annotations

import math

from grasp_monitor.core.monitor.event import check_positive, MonitorEvent
from grasp_monitor.core.monitor.records import Command
from grasp_monitor.core.monitor.samples import GraspSample
from grasp_monitor.core.monitor.state import TrialState
import numpy as np


class FlyingApartEvent(MonitorEvent):
    """Stops the trial when a robot body is farther than ``max_distance_m`` from the base.

    A NaN distance (diverged state) counts as infinitely far. Samples without
    distances (hardware) never fire it.

    Args:
        max_distance_m: m (default 2).
        body_names: names of the B robot bodies, for the record.
    """

    name = 'flying_apart'

    def __init__(self, max_distance_m: float = 2.0, body_names: tuple[str, ...] = ()) -> None:
        check_positive(max_distance_m=max_distance_m)
        self.max_distance_m = float(max_distance_m)
        self.body_names = tuple(body_names)
        super().__init__()

    def check(self, sample: GraspSample, state: TrialState) -> Command:
        """STOP on the first sample with a body too far (or NaN)."""
        # `<=` is false for NaN, which counts as infinitely far.
        if sample.farthest_from_base_m <= self.max_distance_m:
            return Command.CONTINUE
        distances = sample.distances_from_base_m
        too_far = ~(distances <= self.max_distance_m)
        body = int(np.argmax(too_far))
        distance = float(distances[body])
        self._fire(state, body=self.body_names[body] if self.body_names else str(body),
                   distance_m=math.inf if math.isnan(distance) else distance,
                   max_distance_m=self.max_distance_m)
        return Command.STOP
