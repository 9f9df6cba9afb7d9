"""Declared parameters of the ``grasp_metrics`` node, and the metrics they make."""

from typing import Any, Mapping

from grasp_monitor.core.energy import DESIRED_VELOCITIES
from grasp_monitor.core.metrics import ENERGY_REFERENCES, MetricsConfig
from grasp_monitor.core.metrics.criteria import (
    CRITERIA, CriteriaConfig, CriteriaWeights, GRASP_TIME_SPANS)
from grasp_monitor.core.quality import EpsilonConfig
from grasp_monitor.core.quality.settings import EPSILON_SETTINGS
from grasp_monitor.core.setting_values import SettingValues, values_of
from grasp_monitor.core.settings import Setting
from grasp_monitor.nodes.params import COMMON

PARAMETERS = COMMON + (
    Setting('object', 'object', 'Grasped object (ground_truth/<object>).', read_only=True),
    Setting('pads', ['finger_left', 'finger_right'],
            'Left and right pads: tactile/<pad> and ground_truth/<pad>.', read_only=True),
    Setting('contacts', 'contacts', "The simulator's contacts of the pads (PointCloud2; "
            'body names on <contacts>/bodies): the criteria from the contacts between the '
            'pads and `object`, as rostok computes them; "" = from the taxels of '
            'tactile/<pad>, whatever the pads touch (estimates, as on hardware).',
            read_only=True),
    Setting('object_mass', 0.2, 'Object mass, kg.', 1e-6, 1e4, read_only=True),
    Setting('object_inertia', [8.333e-5, 8.333e-5, 8.333e-5],
            'Principal moments of inertia about the COG, kg*m^2.', read_only=True),
    Setting('rate', 100.0, 'Samples at the input stamps k / rate, Hz.', 1.0, 2000.0,
            read_only=True),
    Setting('energy_threshold', 1e7, 'Energy above which the grasp failed, J.', 0.0, 1e12,
            read_only=True),
    Setting('energy_from', 'trial_start',
            'Energy reference: the object in the hand at trial_start (held from the start) '
            'or at the grasp (a pick; no energy before it).', read_only=True,
            choices=ENERGY_REFERENCES),
    Setting('energy.dt', 0.001, "The energy metric's dt: the physics step of the simulation "
            "the inputs come from (the simulator's physics.timestep, 1 ms in every scenario), "
            "s, whatever `rate`, as the benchmark's analyser (the pose term scales as 1/dt); "
            "the offline run and the demo refuse a value that is not the simulator's step.",
            1e-6, 0.1, read_only=True),
    Setting('energy.desired_velocity', DESIRED_VELOCITIES[0], "The object's desired linear "
            'velocity: rigid = v_g + w_g x (x* - x_g), the object carried rigidly (the '
            "benchmark's prose); gripper = v_g (the benchmark's code).", read_only=True,
            choices=DESIRED_VELOCITIES),
    Setting('energy_warn', 1.0, 'Energy reported as WARN from this value, J.', 0.0, 1e12,
            read_only=True),
    Setting('criteria.trial_duration', 10.0, 'T of the time criterion, s.', 1e-3, 1e5,
            read_only=True),
    Setting('criteria.grasp_limit', 5.0, 'Grasp limit of the grasp time criterion, s.',
            1e-3, 1e5, read_only=True),
    Setting('criteria.grasp_time_span', GRASP_TIME_SPANS[0], 'The grasp time criterion is '
            '1 - t_grasp / span, span = criteria.grasp_limit or criteria.trial_duration.',
            choices=GRASP_TIME_SPANS, read_only=True),
    Setting('criteria.time_span', 'trial_duration', 'T of the time criterion: '
            "criteria.trial_duration (rostok's examples) or criteria.grasp_limit (rostok's "
            'pipeline).', choices=GRASP_TIME_SPANS, read_only=True),
    Setting('criteria.final_position_ref', 0.3, 'Displacement that scores 0, m.', 1e-6,
            100.0, read_only=True),
    Setting('criteria.force_cutoff', 100.0, 'Samples with more net force are dropped, N.',
            1e-6, 1e6, read_only=True),
) + tuple(Setting(f'weights.{name}', getattr(CriteriaWeights(), name),
                  f'Weight of the {name} criterion.', 0.0, 1e6, read_only=True)
          for name in CRITERIA) + EPSILON_SETTINGS


def metrics_config(p: Mapping[str, Any] | SettingValues) -> MetricsConfig:
    """Return the metrics of parameter values ``p`` (the node's, or a parameter file's)."""
    p = values_of(PARAMETERS, p)
    return MetricsConfig(
        p.object, tuple(p.pads), p.object_mass, tuple(p.object_inertia), 1.0 / p.rate,
        CriteriaConfig(**p.group('criteria')), CriteriaWeights(**p.group('weights')),
        p.energy_from, EpsilonConfig(**p.group('epsilon')), p.energy_dt,
        p.energy_desired_velocity)
