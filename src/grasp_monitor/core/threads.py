"""Thread counts of numerical libraries, set before they load (no numpy import here).

The benchmark runs one process per core, each MuJoCo on one thread. A BLAS library
left to its default starts a thread per core in every process, and those threads spin
on the cores the other runs use: +50 % CPU per 8-cube run when the metric was numpy
matrix products. The metric is compiled now and makes no BLAS calls in a run (the same
CPU with 1 or 2 threads), so this only keeps any that remain from competing.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

#: One thread each for the BLAS and OpenMP libraries numpy may load.
SINGLE_THREADED = {'OPENBLAS_NUM_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1'}


def limit_to_one_thread() -> None:
    """Ask for one thread in libraries not loaded yet (a user's own setting stays)."""
    for name, value in SINGLE_THREADED.items():
        os.environ.setdefault(name, value)


@contextlib.contextmanager
def single_threaded_children() -> Iterator[None]:
    """Start processes with one BLAS thread each while inside (a user's own setting stays)."""
    saved = {name: os.environ.get(name) for name in SINGLE_THREADED}
    limit_to_one_thread()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
