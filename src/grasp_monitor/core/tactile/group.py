"""Pads whose block values come from one call: ``PadGroup``."""

from __future__ import annotations

from typing import Iterable

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.tactile.blocks import _PadBlocks
from grasp_monitor.core.tactile.pad import TactilePad


class PadGroup(_PadBlocks):
    """Pads whose block values come from one call: the pads of one simulator.

    ``TactilePad.compute_block`` costs some 40 numpy calls whatever the size
    of the block, besides its work per contact and per candidate taxel; a
    group pays them once for all its pads. Pads that share their touch and
    response functions share every step: the rotations, one candidate table
    (the pads' tables end to end, for ``spread_linear``) and one sparse
    product into one output, whose rows are each pad's (S, N, width) values
    in turn. A group of pads that differ computes them pad by pad. Either
    way each pad's values equal its own ``compute_block``'s to rounding.

    Args:
        pads: the pads, in the order of the block inputs.

    Attributes:
        pads: the pads.

    Raises:
        ConfigError: no pads, or one that is not a ``TactilePad``.
    """

    def __init__(self, pads: Iterable[TactilePad]) -> None:
        pads = tuple(pads)
        if not pads or not all(isinstance(pad, TactilePad) for pad in pads):
            raise ConfigError('a pad group needs one or more TactilePad')
        super().__init__(pads)
