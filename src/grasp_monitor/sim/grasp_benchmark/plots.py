"""The benchmark's energy metric over time, plotted per friction."""

from __future__ import annotations

import math
import os
from pathlib import Path
import textwrap
from typing import Any, Sequence

from grasp_monitor.core.energy import DEFAULT_THRESHOLD_J
from grasp_monitor.sim.grasp_benchmark.run import BenchmarkRun
import numpy as np


def plot_energy(runs: Sequence[BenchmarkRun], path: str | os.PathLike[str],
                title: str = '') -> Path:
    """Plot the metric over time, log scale: a panel per friction, a line per run.

    Each point is the highest metric over the objects and over one series
    interval, drawn at the interval's end; a cross marks a failure. The time
    axis ends where the longest run ended, and turns logarithmic when some
    runs end ten times sooner than others. The energy axis spans at most 12
    decades below the threshold; lower values (and 0 J, a body exactly on its
    goal) are drawn at its floor. Rendered on matplotlib's Agg canvas (no
    display needed).

    Returns:
        The path of the PNG.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frictions = list(dict.fromkeys(run.case.settings.friction for run in runs))
    columns = min(3, max(1, len(frictions)))
    lines = math.ceil(max(1, len(frictions)) / columns)
    figure = Figure(figsize=(6.0 * columns + 1.2, 4.2 * lines + 0.6), layout='constrained')
    FigureCanvasAgg(figure)
    grid = figure.subplots(lines, columns, sharey=True, squeeze=False)
    axes = list(grid.flat)
    for unused in axes[len(frictions):]:
        unused.set_visible(False)
    threshold = max((r.case.threshold_j for r in runs), default=DEFAULT_THRESHOLD_J)
    values = np.concatenate([r.series_energy_j for r in runs] or [np.zeros(0)])
    positive = values[np.isfinite(values) & (values > 0)]
    lowest = positive.min() if positive.size else threshold * 1e-9
    floor = max(10.0 ** math.floor(math.log10(lowest)), threshold * 1e-12)
    highest = max(threshold, positive.max()) if positive.size else threshold
    ceiling = 10.0 ** math.ceil(math.log10(highest) + 0.5)
    colours = _colours(sorted({r.case.n_cubes for r in runs}))
    ends = [r.series_time_s[-1] + r.case.series_interval_s for r in runs if r.series_time_s.size]
    span = max(ends, default=1.0)
    logarithmic = bool(ends) and min(ends) < 0.1 * span
    interval = min((r.case.series_interval_s for r in runs), default=0.01)
    duration = max((r.case.duration_s for r in runs), default=span)
    for axis, mu in zip(axes, frictions):
        for run in sorted((r for r in runs if r.case.settings.friction == mu),
                          key=lambda r: r.case.n_cubes):
            energy = np.clip(np.nan_to_num(run.series_energy_j, nan=ceiling, posinf=ceiling),
                             floor, ceiling)
            times = run.series_time_s + run.case.series_interval_s
            label = (f'n = {run.case.n_cubes}' if run.case.scenario == 'multi_block'
                     else f'{run.case.settings.timestep_s * 1e3:g} ms step')
            colour = colours[run.case.n_cubes]
            axis.plot(times, energy, color=colour, lw=1.3, label=label)
            if run.failed and times.size:
                axis.plot(times[-1], energy[-1], 'x', color=colour, ms=8, mew=2)
        axis.axhline(threshold, color='red', ls='--', lw=1)
        axis.set_yscale('log')
        axis.set_ylim(floor, ceiling)
        if logarithmic:
            axis.set_xscale('log')
            axis.set_xlim(interval, span * 1.3)
        else:
            axis.set_xlim(0.0, span * 1.02)
        axis.text(0.02, 0.97, f'threshold {threshold:g} J' + (
            f'; every run ended by {span:.3g} s of {duration:g} s' if span < duration else ''),
            transform=axis.transAxes, color='red', fontsize=8, va='top')
        axis.set_xlabel('simulated time (s)')
        axis.set_title(f'μ = {mu:g}')
        axis.grid(True, which='major', alpha=0.3)
    for row in grid:
        row[0].set_ylabel('energy metric, max over cubes (J)')
    handles, labels = axes[0].get_legend_handles_labels()
    for axis in axes[1:]:
        more, names = axis.get_legend_handles_labels()
        for handle, name in zip(more, names):
            if name not in labels:
                handles.append(handle)
                labels.append(name)
    if handles:
        order = sorted(range(len(labels)), key=lambda i: _label_key(labels[i]))
        figure.legend([handles[i] for i in order], [labels[i] for i in order],
                      loc='outside right center', fontsize=8, frameon=False)
    if title:
        # About 13 characters of 10 pt text per inch of figure.
        width = int(13 * figure.get_figwidth())
        figure.suptitle(textwrap.fill(title, width), fontsize=10)
    figure.savefig(path, dpi=110)
    return path


def _label_key(label: str) -> tuple[float, str]:
    digits = ''.join(ch for ch in label if ch.isdigit() or ch == '.')
    try:
        return float(digits), label
    except ValueError:
        return math.inf, label


def _colours(cubes: Sequence[int]) -> dict[int, Any]:
    from matplotlib import colormaps
    cmap = colormaps['viridis']
    if len(cubes) == 1:
        return {cubes[0]: 'tab:blue'}
    return {n: cmap(0.9 * i / (len(cubes) - 1)) for i, n in enumerate(cubes)}
