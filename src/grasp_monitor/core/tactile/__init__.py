"""Tactile arrays: contact forces distributed over a pad's taxels (mimoTouch).

Touch functions (values per taxel):
    ``normal``: the normal force magnitude, N (1 value, >= 0).
    ``normal_force``: the normal force as a vector in the pad body frame (or,
    with ``force_frame`` geom, in the frame of the taxel's geom), N (3).
    ``force_vector``: the full force in the same frame, N (3).
    ``force_vector_global``: the full force in the world frame, N (3).

A contact acts at MuJoCo's contact point, or (``contact_point`` surface) at
that point moved onto the pad's surface (``surface``).

Response functions:
    ``nearest``: everything to the taxel nearest the contact point.
    ``spread_linear``: to every taxel closer than 2 x resolution, weight
    falling linearly to zero at that distance, normalised so each contact's
    total equals its force; a contact with no taxel in that range goes to
    its nearest taxel (where this differs from mimoTouch: docs/deviations.md).

``config``: the choices; ``pad``: one pad (``compute``, one sample);
``group``: several pads over blocks of samples (``blocks`` does the work, with
``candidate_grid``, ``scatter`` and ``spread_kernel``); ``surface``: a contact point moved onto the
pad; ``pad_layout``: taxels over a pad's geoms
(``layout`` the shared part, ``primitives`` and ``mesh`` the two modes);
``taxel_grid``: a hardware driver's taxel layout; ``settings``: a pad's settings,
which ``plugin``, the ``tactile_array`` sensor plugin, takes.

Names are imported on first use, so a light module (a driver's ``taxel_grid``)
does not load scipy with the pads.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from grasp_monitor.core.tactile.config import (
        LAYOUT_MODES, RESPONSE_FUNCTIONS, SPREAD_RADIUS_RESOLUTIONS, TactileConfig,
        TOUCH_FUNCTIONS)
    from grasp_monitor.core.tactile.geom_taxels import pad_layout
    from grasp_monitor.core.tactile.group import PadGroup
    from grasp_monitor.core.tactile.layout import PadLayout
    from grasp_monitor.core.tactile.mesh import body_mesh
    from grasp_monitor.core.tactile.pad import TactilePad
    from grasp_monitor.core.tactile.plugin import make_tactile_array
    from grasp_monitor.core.tactile.primitives import SURFACE_KINDS, surface_points
    from grasp_monitor.core.tactile.settings import TACTILE_SETTINGS
    from grasp_monitor.core.tactile.taxel_grid import grid_positions, TaxelLayout, VALUES_PER_TAXEL

#: Each public name and the module that defines it.
_MODULES = {
    'RESPONSE_FUNCTIONS': 'config', 'SPREAD_RADIUS_RESOLUTIONS': 'config',
    'TactileConfig': 'config', 'TOUCH_FUNCTIONS': 'config',
    'PadGroup': 'group',
    'TactilePad': 'pad',
    'make_tactile_array': 'plugin', 'TACTILE_SETTINGS': 'settings',
    'body_mesh': 'mesh', 'LAYOUT_MODES': 'config', 'pad_layout': 'geom_taxels',
    'PadLayout': 'layout', 'SURFACE_KINDS': 'primitives', 'surface_points': 'primitives',
    'grid_positions': 'taxel_grid', 'TaxelLayout': 'taxel_grid', 'VALUES_PER_TAXEL': 'taxel_grid',
}

__all__ = [
    'body_mesh', 'grid_positions', 'LAYOUT_MODES', 'make_tactile_array', 'pad_layout',
    'PadGroup', 'PadLayout', 'RESPONSE_FUNCTIONS', 'SPREAD_RADIUS_RESOLUTIONS',
    'SURFACE_KINDS', 'surface_points', 'TACTILE_SETTINGS',
    'TactileConfig', 'TactilePad', 'TaxelLayout', 'TOUCH_FUNCTIONS', 'VALUES_PER_TAXEL',
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use."""
    if name not in _MODULES:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(import_module(f'{__name__}.{_MODULES[name]}'), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """List the public names with the module's own."""
    return sorted(set(globals()) | set(__all__))
