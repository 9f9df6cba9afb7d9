"""``grasp-monitor snapshot``: what rviz would show at the grasp, as a PNG.

The scenario runs offline to its grasp (``sim.tactile_plot.snapshot_at_grasp``, the
pads as ``tactile_sensor`` builds them from the parameter file); MuJoCo renders it
from the rviz config's camera, with the taxels coloured as its clouds and the pads'
contact forces as arrows (``sim.snapshot``); matplotlib adds the title and scale.
"""

from __future__ import annotations

from pathlib import Path

from grasp_monitor.app.scene_view import SceneView
from grasp_monitor.sim.snapshot import (
    render_grasp, snapshot_at, TaxelColours, use_offscreen_gl)
from grasp_monitor.sim.tactile_plot import GraspSnapshot, snapshot_at_grasp
import numpy as np

#: The longest arrow, as a fraction of the scene's size.
_ARROW_FRACTION = 0.15


def write_snapshot(scenario: str, output: Path, params_file: Path | None = None,
                   at_s: float | None = None, width: int = 1200,
                   height: int = 800) -> GraspSnapshot:
    """Run ``scenario`` to its grasp (or to ``at_s``), draw it into the PNG ``output``.

    Returns the snapshot drawn.

    Raises:
        ConfigError: a bad scenario or parameter file.
        SimulationError: no grasp, or the simulation diverged.
    """
    use_offscreen_gl()
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot
    from matplotlib.colors import LinearSegmentedColormap, Normalize

    view = SceneView.for_scenario(scenario, params_file)
    snapshot = snapshot_at_grasp(scenario, view.pad_specs) if at_s is None else \
        snapshot_at(scenario, view.pad_specs, at_s)
    when = 'at the grasp' if at_s is None else 'at'
    colours = [TaxelColours('xyz'.index(pad.channel[1]), pad.sign, pad.full_scale_n,
                            0.4 * pad.spacing_m) for pad in view.pads]
    contacts = snapshot.reading.contacts
    strongest = float(np.abs(contacts.force_in_contact[:, 0]).max()) \
        if len(contacts.body1) else 1.0
    size = max(h - lo for lo, h in zip(view.low, view.high))
    camera = view.camera
    pixels = render_grasp(snapshot, colours, camera.focal_point, camera.distance_m,
                          camera.yaw_rad, camera.pitch_rad,
                          _ARROW_FRACTION * size / max(strongest, 1e-9), width, height)
    figure = pyplot.figure(figsize=(width / 100, height / 100 + 0.9), dpi=100)
    axes = figure.add_axes((0.0, 0.0, 0.9, height / (height + 90)))
    axes.imshow(pixels)
    axes.set_axis_off()
    full_scale = max((pad.full_scale_n for pad in view.pads), default=1.0)
    bar = figure.add_axes((0.91, 0.1, 0.02, 0.7))
    colour_map = LinearSegmentedColormap.from_list('rviz', ['#0000ff', '#ff0000'])
    figure.colorbar(pyplot.cm.ScalarMappable(Normalize(0.0, full_scale), colour_map),
                    cax=bar, label='taxel force along the pad normal, N')
    figure.suptitle(
        f'{scenario} {when}, t = {snapshot.reading.time_s:.3f} s: taxels coloured as '
        "rviz's tactile clouds; arrows = the pads' contact forces "
        f"(longest {strongest:.2f} N)\ncamera = config/rviz/{scenario}.rviz's Orbit view",
        fontsize=11)
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output)
    pyplot.close(figure)
    return snapshot
