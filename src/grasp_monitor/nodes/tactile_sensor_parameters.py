"""Declared parameters of the ``tactile_sensor`` node.

Per-pad settings are arrays aligned with ``pads`` (ROS parameters cannot be
nested, and these can be declared before the pads are known): an array of
one value sets every pad, otherwise it needs one value per pad.
"""

from grasp_monitor.core.settings import Setting
from grasp_monitor.nodes.params import COMMON

PARAMETERS = COMMON + (
    Setting('pads', ['finger_left', 'finger_right'],
            "Pads, each published on tactile/<pad>; default: the scene's pads.",
            read_only=True),
    Setting('bodies', [''], "Body of each pad ('' = the body named like the pad).",
            read_only=True),
    Setting('resolution', [0.003], 'Taxel spacing of each pad, m, in [0.0001, 1].',
            read_only=True),
    Setting('layout', ['primitives'], 'Taxels of each pad from primitives or mesh.',
            read_only=True),
    Setting('touch', ['force_vector'],
            'Touch function of each pad: normal (published as fz), normal_force or '
            'force_vector (pad frame).', read_only=True),
    Setting('response', ['spread_linear'],
            'Response function of each pad: nearest or spread_linear.', read_only=True),
    Setting('noise_type', ['none'], 'Noise of each pad: none, gaussian or uniform.',
            read_only=True),
    Setting('noise_range', [0.0], 'Gaussian std or uniform half-width of each pad, N.',
            read_only=True),
    Setting('noise_seed', [-1], 'Noise seed of each pad; -1 draws a fresh one.',
            read_only=True),
    Setting('publish_rate', 500.0,
            'tactile/<pad> rate, Hz: every k-th simulator tick, k = round(tick rate / rate).',
            1.0, 2000.0, read_only=True),
    Setting('markers_rate', 10.0, 'tactile/markers rate, Hz (0 = none).', 0.0, 100.0,
            read_only=True),
    Setting('markers_full_scale', 1.0, 'Taxel force drawn largest and reddest, N.', 1e-6,
            1e4, read_only=True),
)

#: ROS parameter -> per-pad setting of ``sim.sensors.pad_specs``.
PER_PAD = ('resolution', 'layout', 'touch', 'response', 'noise_type', 'noise_range',
           'noise_seed')
