"""The benchmark's runs as a CSV file and a Markdown report."""

from __future__ import annotations

import csv
import dataclasses
import math
import os
from pathlib import Path
from typing import Any, Sequence

from grasp_monitor.sim.grasp_benchmark.run import BenchmarkRun, CSV_COLUMNS
from grasp_monitor.sim.scene import MUJOCO_NOSLIP_TOLERANCE, MUJOCO_TOLERANCE, SimSettings


def write_csv(runs: Sequence[BenchmarkRun], path: str | os.PathLike[str]) -> Path:
    """Write one row per run (``CSV_COLUMNS``); return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open('w', newline='') as stream:
        writer = csv.DictWriter(stream, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for run in runs:
            writer.writerow(run.row())
    return path


def _energy(value: float) -> str:
    return 'NaN' if math.isnan(value) else f'{value:.3g}'


def settings_text(settings: SimSettings, params: Sequence[tuple[str, Any]] = ()) -> str:
    """Return the solver settings of a run and its scene parameters as one line.

    Friction excluded; solver options at MuJoCo's defaults are left out.
    """
    def vector(values: tuple[float, ...]) -> str:
        return ' '.join(f'{v:g}' for v in values) if values else "the scene's own"

    text = (f'cone {settings.cone}, solver {settings.solver}, iterations '
            f'{settings.iterations}, noslip_iterations {settings.noslip_iterations}, '
            f'impratio {settings.impratio:g}, timestep {settings.timestep_s * 1e3:g} ms, '
            f'integrator {settings.integrator}, solref {vector(settings.solref)}, '
            f'solimp {vector(settings.solimp)}')
    for name, default in (('tolerance', MUJOCO_TOLERANCE),
                          ('noslip_tolerance', MUJOCO_NOSLIP_TOLERANCE)):
        if getattr(settings, name) != default:
            text += f', {name} {getattr(settings, name):g}'
    return text + ''.join(f', {key} {value}' for key, value in params)


def markdown_table(runs: Sequence[BenchmarkRun]) -> str:
    """Return the runs as a Markdown table, one row per run."""
    lines = ['| scenario | cubes | μ | result | time to termination (s) | peak energy (J) '
             '| final energy (J) | CPU time (s) | real-time factor |',
             '|---|---|---|---|---|---|---|---|---|']
    for run in runs:
        case = run.case
        lines.append(
            f'| {case.scenario} | {case.n_cubes} | {case.settings.friction:g} | {run.result} '
            f'| {run.termination_time_s:.3f} | {_energy(run.peak_energy_j)} '
            f'| {_energy(run.final_energy_j)} | {run.cpu_time_s:.2f} '
            f'| {run.real_time_factor:.1f} |')
    return '\n'.join(lines) + '\n'


def write_markdown(runs: Sequence[BenchmarkRun], path: str | os.PathLike[str],
                   command: str = '', wall_time_s: float | None = None) -> Path:
    """Write a Markdown report: settings, the table, the command; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f'# Grasp benchmark: {", ".join(sorted({r.case.scenario for r in runs}))}', '']
    for settings, params in dict.fromkeys(
            (dataclasses.replace(r.case.settings, friction=1.0), r.case.params) for r in runs):
        lines.append(f'Settings: {settings_text(settings, params)}.')
    if runs:
        case = runs[0].case
        lines.append(f'Duration {case.duration_s:g} s; the metric fails above '
                     f'{case.threshold_j:g} J; MuJoCo {runs[0].mujoco_version}; real-time '
                     'factor = simulated s per CPU s of the run.')
    if command:
        lines.append(f'Command: `{command}`')
    if wall_time_s is not None:
        lines.append(f'Wall time of the whole benchmark: {wall_time_s:.0f} s.')
    lines += ['', markdown_table(runs)]
    path.write_text('\n'.join(lines))
    return path
