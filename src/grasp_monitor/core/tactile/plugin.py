"""The ``tactile_array`` sensor plugin: a ``TactilePad`` built from plugin parameters."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from grasp_monitor.core.noise import NoiseConfig
from grasp_monitor.core.plugins import register_plugin
from grasp_monitor.core.tactile.config import TactileConfig
from grasp_monitor.core.tactile.geom_taxels import pad_layout
from grasp_monitor.core.tactile.pad import TactilePad
from grasp_monitor.core.tactile.settings import TACTILE_SETTINGS
from grasp_monitor.core.values import GeomShape
import numpy.typing as npt


@register_plugin('sensor', 'tactile_array', TACTILE_SETTINGS,
                 "Taxels over a pad body's collision geoms, fed by simulator contacts "
                 '(context: shapes=GeomShape tuple of the pad body, optional meshes=).')
def make_tactile_array(parameters: Mapping[str, Any], *, shapes: Iterable[GeomShape],
                       meshes: Mapping[int, tuple[npt.ArrayLike, npt.ArrayLike]] | None = None
                       ) -> TactilePad:
    """Build a TactilePad from checked plugin parameters and the pad body's geoms.

    Args:
        parameters: values of ``TACTILE_SETTINGS``.
        shapes: the pad body's collision geoms (``sim.contacts.geom_shapes``).
        meshes: triangles of its mesh geoms (``sim.contacts.geom_meshes``).
    """
    shapes = tuple(shapes)
    layout = pad_layout(shapes, parameters['resolution'], parameters['layout'],
                        meshes=meshes)
    config = TactileConfig(parameters['touch'], parameters['response'],
                           noise=NoiseConfig.from_parameters(dict(parameters)),
                           force_frame=parameters['force_frame'],
                           contact_point=parameters['contact_point'],
                           slip=parameters['slip'])
    return TactilePad(layout, [shape.geom_id for shape in shapes], config,
                      {shape.geom_id: shape.quaternion_in_body for shape in shapes})
