"""The external force on a body, and the force test that sets it every control tick."""

from __future__ import annotations

from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.sim.backend.names import resolve_body
import mujoco
import numpy as np


class ExternalForce:
    """One body's external force (``xfrc_applied``) and the force test's schedule.

    Args:
        model: the model.
        data: the data whose ``xfrc_applied`` it sets.
        objects: the scene's objects; a force test given no body pulls the first.
    """

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData,
                 objects: tuple[str, ...]) -> None:
        self._model = model
        self._data = data
        self._objects = objects
        # Body ids by name: a force test sets its force at every 1 ms tick.
        self._ids: dict[str, int] = {}
        self._body = -1
        self._test: tuple[ExternalForceTest, str, float, float] | None = None
        self._schedule: tuple[ExternalForceTest, str, float] | None = None
        self._scheduled = False  # the scheduled test started since the reset

    def reset(self) -> None:
        """No force and no test; a scheduled test starts again at its time."""
        self._test = None
        self._scheduled = False
        self.clear_force()

    def set_force(self, body: str, force_in_world: np.ndarray) -> None:
        """Apply a force (N, world frame) at the COM of ``body`` until cleared."""
        index = self._ids.get(body)
        if index is None:
            index = self._ids[body] = int(resolve_body(self._model, body))
        self.clear_force()
        self._data.xfrc_applied[index, :3] = force_in_world
        self._body = index

    def clear_force(self) -> None:
        """Remove the external force, if any."""
        if self._body >= 0:
            self._data.xfrc_applied[self._body] = 0.0
            self._body = -1

    def start_test(self, test: ExternalForceTest, body: str, time_s: float) -> None:
        """Pull on ``body`` (default: the first object) with ``test``'s force from ``time_s``."""
        body = body or self._objects[0]
        self._test = (test, body, float(self._model.body_mass[resolve_body(self._model, body)]),
                      time_s)

    def schedule_test(self, test: ExternalForceTest, body: str, start_s: float) -> None:
        """Start ``test`` on ``body`` by itself at simulated time ``start_s``, s, after resets."""
        body = body or self._objects[0]
        resolve_body(self._model, body)  # a known body
        self._schedule = (test, body, float(start_s))
        self._scheduled = False

    def stop_test(self) -> None:
        """End the force test and remove its force."""
        self._test = None
        self.clear_force()

    @property
    def test_active(self) -> bool:
        """Whether the force test is pulling."""
        return self._test is not None

    def apply(self) -> None:
        """Start a scheduled test whose time came, and set the test's force for the time now.

        Called every control tick: with no test scheduled or pulling it reads nothing.
        """
        schedule = self._schedule
        if schedule is not None and not self._scheduled \
                and self._time_s() >= schedule[2] - 0.5 * self._timestep_s():
            self._scheduled = True
            self.start_test(schedule[0], schedule[1], self._time_s())
        if self._test is not None:
            test, body, mass_kg, start_s = self._test
            since_s = self._time_s() - start_s
            self.set_force(body, test.force_in_world(
                since_s, mass_kg, int(round(since_s / self._timestep_s()))))

    def _time_s(self) -> float:
        return float(self._data.time)

    def _timestep_s(self) -> float:
        return float(self._model.opt.timestep)

    def checkpoint(self) -> tuple:
        """Return what ``rollback`` needs: the test, the force and the schedule's progress."""
        return self._test, self._body, self._data.xfrc_applied.copy(), self._scheduled

    def rollback(self, checkpoint: tuple) -> None:
        """Go back to a ``checkpoint``: the test and the forces as they were."""
        self._test, self._body, forces, self._scheduled = checkpoint
        self._data.xfrc_applied[:] = forces
