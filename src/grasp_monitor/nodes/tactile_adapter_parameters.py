"""Declared parameters of the ``tactile_adapter`` node, and the taxel layout they make."""

from grasp_monitor.core.setting_values import SettingValues
from grasp_monitor.core.settings import Setting
from grasp_monitor.core.tactile.taxel_grid import TaxelLayout
from grasp_monitor.nodes.params import COMMON

PARAMETERS = COMMON + (
    Setting('pad', 'finger_left', 'Pad name: the cloud is published on tactile/<pad>.',
            read_only=True),
    Setting('frame_id', '', 'Frame of the cloud ("" = the pad name).', read_only=True),
    Setting('input_topic', 'taxels', "Driver's std_msgs/Float32MultiArray of taxel values.",
            read_only=True),
    Setting('layout', 'grid', 'Taxel positions from grid.* or from positions.',
            choices=('grid', 'positions'), read_only=True),
    Setting('grid.rows', 4, 'Grid rows (along the pad y axis).', 1, 100000, read_only=True),
    Setting('grid.cols', 4, 'Grid columns (along the pad x axis); values are row-major.',
            1, 100000, read_only=True),
    Setting('grid.pitch_m', 0.004, 'Grid spacing, m.', 1e-6, 1.0, read_only=True),
    Setting('positions', [0.0, 0.0, 0.0], 'layout "positions": x y z of each taxel in the '
            'pad frame, flat, m.', read_only=True),
    Setting('values_per_taxel', 1, '1: normal force along the pad +z (published as fz); '
            '3: fx fy fz in the pad frame.', 1, 3, read_only=True),
    Setting('scale', 1.0, 'Newtons per driver unit.', 1e-12, 1e12, read_only=True),
)


def taxel_layout(p: SettingValues) -> TaxelLayout:
    """Return the taxel layout of the node's parameter values ``p``."""
    if p.layout == 'grid':
        return TaxelLayout.grid(p.grid_rows, p.grid_cols, p.grid_pitch_m, p.values_per_taxel,
                                p.scale)
    return TaxelLayout.from_flat(p.positions, p.values_per_taxel, p.scale)
