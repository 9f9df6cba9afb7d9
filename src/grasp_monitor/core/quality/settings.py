"""The grasp quality's settings: the table the metrics node, the run and EpsilonConfig read."""

from __future__ import annotations

from typing import Any

from grasp_monitor.core.settings import Setting

#: Norms of the contact forces the epsilon is taken under (``core.quality.epsilon``).
VARIANTS = ('l1', 'linf')
#: Contact models: point contact with friction, or soft finger (with torsional friction).
CONTACT_MODELS = ('point', 'soft')

#: The ``EpsilonConfig`` settings: ``epsilon.<field>`` sets the field ``<field>``.
SETTINGS = (
    Setting('epsilon.variant', 'l1', 'Epsilon computed each sample: l1 (sum of the '
            'normal forces <= 1) or linf (each <= 1; about 4-20 times slower).',
            choices=VARIANTS, read_only=True),
    Setting('epsilon.contact', 'point', 'Contact model: point (with friction) or soft '
            '(adds torsional friction about the normal).', choices=CONTACT_MODELS,
            read_only=True),
    Setting('epsilon.friction', 1.0, 'Coulomb friction coefficient of the contacts '
            "(MuJoCo's default).", 1e-3, 100.0, read_only=True),
    Setting('epsilon.cone_edges', 8, 'Edges of the polyhedral friction cone.', 3, 64,
            read_only=True),
    Setting('epsilon.torsion', 0.005, 'Torsional friction of a soft contact: torque about '
            "the normal per newton of normal force, m (MuJoCo's default).", 0.0, 1.0,
            read_only=True),
    Setting('epsilon.under_load', False, 'L1 only: measure from the wrench the contacts apply '
            'now (per newton of their normal forces), not from the origin: the margin left '
            'while holding the load (contacts; taxels give no load).',
            read_only=True),
    Setting('epsilon.torque_length', 0.0, 'Torques are divided by this length, m (0 = the '
            "largest distance of a contact from the object's centre of mass).", 0.0, 10.0,
            read_only=True),
)
#: The settings, as ``core.quality`` offers them.
EPSILON_SETTINGS = SETTINGS
#: The settings' common prefix, which the fields drop.
PREFIX = 'epsilon.'


def default(field: str) -> Any:
    """Return the default of the setting that sets EpsilonConfig field ``field``."""
    return next(setting.default for setting in SETTINGS if setting.name == PREFIX + field)
