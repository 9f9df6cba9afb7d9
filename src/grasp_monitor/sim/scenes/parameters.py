"""Which generator parameters each scenario takes from outside (node or command), declared once."""

from grasp_monitor.core.settings import Setting

#: The parameters a scenario takes from a node's parameters or ``--param``.
SCENARIO_SETTINGS = {
    'pick_lift': (
        Setting('object_kind', 'box', 'pick_lift: object shape.',
                choices=('box', 'cylinder', 'sphere'), read_only=True),
        Setting('object_mass_kg', 0.2, 'pick_lift: object mass, kg.', 0.001, 100.0,
                read_only=True),
    ),
    'multi_block': (
        Setting('n_cubes', 3, 'multi_block: cubes in the row.', 1, 11, read_only=True),
    ),
    'industrial_arm': (
        Setting('feedforward', 'inverse_dynamics', 'industrial_arm: arm torque feedforward.',
                choices=('none', 'gravity', 'inverse_dynamics'), read_only=True),
        Setting('cube_joint', 'free', "industrial_arm: the cube's six degrees of freedom: a "
                "free joint in the world, or joints in the hand's frame.",
                choices=('free', 'hand'), read_only=True),
        Setting('velocity_target', 'derivative', "industrial_arm: the arm joints' velocity "
                'target: the derivative of q_des = A sin(w t), A w cos(w t) (derivative), or '
                'A cos(w t) (cosine, without the w factor).',
                choices=('derivative', 'cosine'), read_only=True),
    ),
}
#: Their names, by scenario.
SCENARIO_PARAMETERS = {name: tuple(setting.name for setting in settings)
                       for name, settings in SCENARIO_SETTINGS.items()}
