"""Which generator parameters each scenario takes from outside (node or command)."""

SCENARIO_PARAMETERS = {
    'pick_lift': ('object_kind', 'object_mass_kg'),
    'multi_block': ('n_cubes',),
    'industrial_arm': ('feedforward',),
}
