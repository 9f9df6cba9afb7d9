"""Grasp quality: the Ferrari–Canny epsilon of the contacts on an object.

``wrenches``: the contact wrenches per unit normal force (point or soft contact);
``polytope``: the distance from the origin to a wrench set's boundary (the expanding
polytope, compiled with numba), its arrays kept between calls in ``workspace``;
``epsilon``: the L1 and L∞ epsilon, with a reason when a grasp is degenerate;
``settings``: its settings, declared once; ``summary``: a trial's series in three numbers.
"""

from grasp_monitor.core.quality.epsilon import (
    compile_kernel, epsilon, EpsilonConfig, grasp_quality, GraspQuality)
from grasp_monitor.core.quality.settings import EPSILON_SETTINGS, VARIANTS
from grasp_monitor.core.quality.summary import epsilon_summary
from grasp_monitor.core.quality.wrenches import contact_wrenches

__all__ = [
    'compile_kernel', 'contact_wrenches', 'epsilon', 'EPSILON_SETTINGS', 'epsilon_summary',
    'EpsilonConfig', 'grasp_quality', 'GraspQuality', 'VARIANTS',
]
