"""The ``tactile_array`` sensor plugin: a ``TactilePad`` built from plugin parameters."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from grasp_monitor.core.noise import NOISE_PARAMETERS, NoiseConfig
from grasp_monitor.core.plugins import ParameterSpec, register_plugin
from grasp_monitor.core.tactile.config import (
    RESPONSE_FUNCTIONS, TactileConfig, TOUCH_FUNCTIONS)
from grasp_monitor.core.tactile.pad import TactilePad
from grasp_monitor.core.tactile.sensor_layout import LAYOUT_MODES, pad_layout
from grasp_monitor.core.values import GeomShape
import numpy.typing as npt

#: Parameters of the ``tactile_array`` sensor plugin.
TACTILE_PARAMETERS = (
    ParameterSpec('resolution_m', float, 0.005, (1e-4, 1.0),
                  'Taxel spacing, m; spread_linear reaches twice this.'),
    ParameterSpec('layout', str, 'primitives', LAYOUT_MODES,
                  'Taxels from analytic primitives, or from merged trimesh meshes '
                  'with hidden taxels removed.'),
    ParameterSpec('touch', str, 'force_vector', tuple(TOUCH_FUNCTIONS),
                  'What each taxel reports (see grasp_monitor.core.tactile).'),
    ParameterSpec('response', str, 'spread_linear', RESPONSE_FUNCTIONS,
                  'How a contact force is shared among taxels.'),
) + NOISE_PARAMETERS


@register_plugin('sensor', 'tactile_array', TACTILE_PARAMETERS,
                 "Taxels over a pad body's collision geoms, fed by simulator contacts "
                 '(context: shapes=GeomShape tuple of the pad body, optional meshes=).')
def make_tactile_array(parameters: Mapping[str, Any], *, shapes: Iterable[GeomShape],
                       meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]] | None = None
                       ) -> TactilePad:
    """Build a TactilePad from checked plugin parameters and the pad body's geoms.

    Args:
        parameters: values of ``TACTILE_PARAMETERS``.
        shapes: the pad body's collision geoms (``sim.contacts.geom_shapes``).
        meshes: triangles of its mesh geoms (``sim.contacts.geom_meshes``).
    """
    shapes = tuple(shapes)
    layout = pad_layout(shapes, parameters['resolution_m'], parameters['layout'],
                        meshes=meshes)
    config = TactileConfig(parameters['touch'], parameters['response'],
                           noise=NoiseConfig.from_parameters(dict(parameters)))
    return TactilePad(layout, [shape.geom_id for shape in shapes], config)
