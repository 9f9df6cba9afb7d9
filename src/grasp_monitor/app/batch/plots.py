"""A sweep's criteria and reward against each swept name, as one PNG."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np


def plot_summary(rows: Sequence[dict[str, Any]], names: Sequence[str], path: Path,
                 title: str = '') -> Path:
    """Plot, per swept name, each criterion (left) and the reward (right) against it.

    Every trial is a dot; the line joins the mean at each value (the other names vary
    beneath it). A name of text values (an object kind) is drawn at evenly spaced
    ticks. Rendered on matplotlib's Agg canvas (no display needed).

    Returns:
        The path of the PNG.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    criteria = [key for key in dict.fromkeys(k for row in rows for k in row)
                if key.startswith('criterion_')]
    figure = Figure(figsize=(11.0, 3.2 * max(1, len(names)) + 0.6), layout='constrained')
    FigureCanvasAgg(figure)
    axes = figure.subplots(max(1, len(names)), 2, squeeze=False)
    colours = {name: f'C{i % 10}' for i, name in enumerate(criteria)}
    for line, name in enumerate(names):
        values = [row.get(name) for row in rows]
        x, ticks = _positions(values)
        for column, keys in ((0, criteria), (1, ['reward'])):
            ax = axes[line][column]
            for key in keys:
                y = np.array([_number(row.get(key)) for row in rows])
                colour = colours.get(key, 'k')
                label = key.removeprefix('criterion_')
                ax.plot(x, y, '.', color=colour, alpha=0.35, markersize=5)
                levels = sorted(set(x))
                means = [np.nanmean(y[x == level]) if np.isfinite(y[x == level]).any()
                         else math.nan for level in levels]
                ax.plot(levels, means, '-', color=colour, label=label, linewidth=1.4)
            ax.set_xlabel(name)
            ax.set_ylabel('criterion (reward part)' if column == 0 else 'total reward')
            if ticks:
                ax.set_xticks(range(len(ticks)), ticks)
            ax.grid(True, alpha=0.3)
    figure.suptitle(title or f'{len(rows)} trials', fontsize=10)
    if criteria:  # below the panels, where it hides no trial
        handles, labels = axes[0][0].get_legend_handles_labels()
        figure.legend(handles, labels, loc='outside lower center', ncols=min(8, len(labels)),
                      fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path


def _positions(values: Sequence[Any]) -> tuple[np.ndarray, list[str]]:
    """Return x of each value: the number itself, or a tick index for text values."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.array(values, float), []
    ticks = [str(v) for v in dict.fromkeys(str(v) for v in values)]
    return np.array([ticks.index(str(v)) for v in values], float), ticks


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)
