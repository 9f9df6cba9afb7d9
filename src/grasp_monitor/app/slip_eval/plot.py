"""The slip detector's precision-recall curves as a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np


def plot_pr(curves: Mapping[str, tuple[np.ndarray, np.ndarray]], path: Path,
            title: str) -> None:
    """Write each detector's tick precision against recall (its thresholds scaled) to ``path``.

    Args:
        curves: per detector, (F, 3) precision, recall, F1 and the (F,) scales swept.
        path: the PNG.
        title: what was scored.
    """
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    for (name, (curve, factors)), marker in zip(curves.items(), 'os^v'):
        (line,) = axes.plot(curve[:, 1], curve[:, 0], label=name, linewidth=1.5)
        picked = int(np.argmin(np.abs(factors - 1.0)))
        axes.plot(curve[picked, 1], curve[picked, 0], marker, markersize=8,
                  color=line.get_color(), label=f'{name}: tuned (F1 {curve[picked, 2]:.3f})')
    axes.set_xlabel('recall (slipping ticks alarmed)')
    axes.set_ylabel('precision (alarmed ticks slipping)')
    axes.set_xlim(0, 1.02)
    axes.set_ylim(0, 1.02)
    axes.grid(True, alpha=0.3)
    axes.set_title(f'incipient_slip against ground truth, per tick\n{title}', fontsize=10)
    axes.legend(loc='lower left', fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
