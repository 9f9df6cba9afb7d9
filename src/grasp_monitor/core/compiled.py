"""Functions compiled with numba where blocks of samples are scored, plain Python elsewhere.

numba brings LLVM with it: importing it takes about 130 MB of resident memory (the metrics
node: 54 MB without, 183 MB with). So nothing imports numba until a block is scored; a
function written for numba runs as the same plain Python for single samples, and compiled
(or loaded from numba's cache) once per process for blocks. Without numba, blocks run as
Python too (the same results, about 30 µs per sample and object), with a warning.
"""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable

_log = logging.getLogger(__name__)


def float_array(numba: Any, ndim: int, readonly: bool = True) -> Any:
    """Return the numba type of a float64 array of any layout (views convert to it)."""
    return numba.types.Array(numba.float64, ndim, 'A', readonly=readonly)


class Compiled:
    """``func`` compiled for one signature on first use, then called compiled.

    One signature (``signature(numba)``) keeps any array layout from costing a
    compilation of its own.

    Args:
        func: a function numba can compile in nopython mode.
        signature: builds its numba signature from the ``numba`` module.
    """

    def __init__(self, func: Callable[..., Any], signature: Callable[[Any], Any]) -> None:
        self.func = func
        self._signature = signature

    @functools.cached_property
    def compiled(self) -> Callable[..., Any]:
        """The compiled function; the first access imports numba and compiles (or loads).

        Without numba: the function itself, after a warning.
        """
        try:
            import numba  # here, not at import: see the module docstring
        except ImportError:
            _log.warning('numba is not installed: %s runs as Python, about 140 times slower '
                         '(pip install numba, or the python3-numba package)',
                         self.func.__name__)
            return self.func
        return numba.njit(self._signature(numba), cache=True, nogil=True)(self.func)

    def compile_now(self) -> None:
        """Compile now (or load from numba's cache), not in the first call: before a clock."""
        self.compiled

    def __call__(self, *args: Any) -> Any:
        """Call the compiled function."""
        return self.compiled(*args)
