"""Blocks of physics steps recorded, evaluated, and stepped again up to a monitor's command.

Per physics step only MuJoCo runs plus one copy of ``sensordata`` into a block
buffer; the control (the scene's drive, the force test) is applied every control
tick with ``Simulator.apply_control``, between steps. Steps report the state
they started from (MuJoCo computes sensors before it integrates).

A command of the monitor (ACTIVATE on a grasp, STOP) acts at its own sample, as
the lockstep graph does: a block in which the monitor commanded before its last
sample is stepped again from its start up to that sample (MuJoCo steps
deterministically, and the block's evaluation is undone), the command applied
there, and the rest of the block stepped after it.
"""

from __future__ import annotations

import copy
from typing import Any

from grasp_monitor.core.compiled import Compiled
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.offline.block_evaluation import BlockEvaluation
import mujoco
import numpy as np


class BlockStepper:
    """Steps blocks of whole control ticks into a buffer and has each evaluated.

    Args:
        sim: the simulator (its model has the pipeline's sensors).
        evaluation: what evaluates each block.
        steps_per_tick: physics steps per control tick.
        block_steps: physics steps per block, whole ticks.

    Attributes:
        record: (block_steps, nsensordata) the rows of the last block.
        steps: physics steps taken.
        block_time_s: (S,) time stamps of the last block's steps, s.
    """

    def __init__(self, sim: Simulator, evaluation: BlockEvaluation, steps_per_tick: int,
                 block_steps: int) -> None:
        self.sim = sim
        self.evaluation = evaluation
        self.steps_per_tick = steps_per_tick
        self.block_steps = block_steps
        self.record = np.empty((block_steps, sim.model.nsensordata))
        # Memoryviews of the rows: a slice assignment between two is a plain memcpy, a
        # third cheaper per step than numpy's item assignment.
        self._rows = [memoryview(row) for row in self.record]
        self.block_time_s = np.zeros(0)
        self.steps = 0
        #: a block stepped again up to a command that ended the trial stops there
        self.stop_at_end = False
        _NON_FINITE.compile_now()  # here, not in the first block

    def step_block(self, count: int) -> None:
        """Step ``count`` physics steps (whole ticks, at most ``block_steps``), then evaluate.

        A monitor command before the block's last sample sends the block back to its
        start, to be stepped to that sample, commanded, then stepped on (module docstring).

        Raises:
            ConfigError: ``count`` out of range or not whole ticks.
        """
        per_tick = self.steps_per_tick
        if not (0 < count <= self.block_steps and count % per_tick == 0):
            raise ConfigError(f'count must be whole ticks of {per_tick} steps, at most '
                              f'{self.block_steps}, got {count}')
        # Without a force test no command changes the physics: nothing to step again.
        saved = self._checkpoint() if count > per_tick and self.evaluation.may_act() else None
        first_step = self.steps
        command_step = self._step_and_evaluate(count, stop_at_command=saved is not None)
        if command_step is None or command_step >= first_step + count:
            return
        # The monitor commanded at a sample inside the block: step again up to it.
        head = command_step - first_step
        self._rollback(saved)
        self._step_and_evaluate(head, stop_at_command=False)
        if not (self.stop_at_end and self.evaluation.trial_ended):
            self.step_block(count - head)

    def _checkpoint(self) -> tuple:
        """Return everything a block changes, to step it again."""
        evaluation = self.evaluation
        return (self.sim.checkpoint(), copy.deepcopy((
            evaluation.state(), self.steps, self.block_time_s)), len(evaluation.events))

    def _rollback(self, saved: tuple) -> None:
        sim_state, state, events = saved
        self.sim.rollback(sim_state)
        evaluation_state, self.steps, self.block_time_s = copy.deepcopy(state)
        self.evaluation.restore(evaluation_state, events)

    def _step_and_evaluate(self, count: int, stop_at_command: bool) -> int | None:
        """Step ``count`` steps and evaluate them; return the step of a command (or None)."""
        sim = self.sim
        model, data = sim.model, sim.data
        per_tick = self.steps_per_tick
        rows, sensordata = self._rows, memoryview(data.sensordata)
        step, apply_control = mujoco.mj_step, sim.apply_control
        first_time_s = sim.time_s
        warnings_before = sim.instability_warnings()
        for tick_start in range(0, count, per_tick):
            apply_control()
            for row in range(tick_start, tick_start + per_tick):
                step(model, data)
                rows[row][:] = sensordata
        record = self.record[:count]
        dt = sim.timestep_s
        # The state of each row is the one its step started from.
        state_time_s = first_time_s + np.arange(count) * dt
        if not (sim.check_steps(first_time_s, warnings_before)
                and not _NON_FINITE(record.view(np.uint64))):
            sim.mark_diverged(first_time_s)
            self.steps += count
            return None
        self.steps += count
        self.block_time_s = state_time_s + dt
        return self.evaluation.evaluate(record, state_time_s, self.steps - count,
                                        stop_at_command)


def _non_finite(bits: np.ndarray) -> int:
    """Return how many of the float64 values (their bits, ``uint64``) are inf or NaN.

    Theirs is the all-ones exponent. ``np.isfinite(record).all()`` in one pass that
    writes nothing: two thirds of its time over a block of rows.
    """
    exponent = np.uint64(0x7FF0000000000000)
    count = 0
    for row in range(bits.shape[0]):
        for column in range(bits.shape[1]):
            count += (bits[row, column] & exponent) == exponent
    return count


def _non_finite_signature(nb: Any) -> Any:
    return nb.int64(nb.types.Array(nb.uint64, 2, 'C', readonly=True))


_NON_FINITE = Compiled(_non_finite, _non_finite_signature)
