"""Every parameter file names our nodes and only their declared parameters; rviz views them.

Pure: the files are parsed as YAML and checked against the declaration tables
(``PARAMETERS``, ``INTERFACES``); no node is started. rclpy ignores an override
of an undeclared parameter, so without this check a misspelt key would be lost.
"""

import math
from pathlib import Path

from grasp_monitor.app.reference import node_modules, parameter_file
import pytest
import yaml

CONFIG = Path(__file__).resolve().parents[1] / 'config'
PARAMETER_FILES = sorted(CONFIG.glob('*.yaml'))
MODULES = node_modules()
#: Declared by rclpy on every node.
IMPLICIT = ('use_sim_time',)
#: The Python type of a parameter of each ROS type.
TYPES = {'bool': bool, 'integer': int, 'double': float, 'string': str}
SCENARIOS = ('pick_lift', 'multi_block', 'industrial_arm')


def node_of(key):
    """Return the node name a parameter file key applies to ('/**' for every node)."""
    return '/**' if key == '/**' else key.rstrip('/').rsplit('/', 1)[-1]


def problems(name, spec, value):
    """Return what is wrong with ``value`` for parameter ``spec`` (empty when fine)."""
    kind = spec.type_name.removesuffix('_array')
    values = value if isinstance(value, list) else [value]
    if spec.type_name.endswith('_array') != isinstance(value, list):
        return [f'{name}: {value!r} is not a {spec.type_name}']
    if not values:
        return [f'{name}: an empty list has no ROS type']
    # bool is an int to Python, not to ROS; an integer where a double is declared is
    # refused by rclpy at start-up ("expecting type DOUBLE").
    wrong = [v for v in values if type(v) is not TYPES[kind]]
    if wrong:
        return [f'{name}: {wrong[0]!r} is not a {kind}']
    found = []
    found += [f'{name}: {v!r} is not one of {spec.choices}' for v in values
              if spec.choices and v not in spec.choices]
    if spec.low is not None and not isinstance(value, list) and not (
            spec.low <= value <= spec.high) and not math.isnan(value):
        found.append(f'{name}: {value!r} is outside [{spec.low}, {spec.high}]')
    return found


@pytest.mark.parametrize('path', PARAMETER_FILES, ids=[p.name for p in PARAMETER_FILES])
def test_every_key_is_a_declared_parameter_of_a_node_of_ours(path):
    found = []
    for key, parameters in parameter_file(path).items():
        node = node_of(key)
        assert node == '/**' or node in MODULES, \
            f'{path.name}: {key} is not one of our nodes: {", ".join(MODULES)}'
        # '/**' applies to every node: each of them must declare the key
        nodes = list(MODULES) if node == '/**' else [node]
        for name, value in parameters.items():
            for each in nodes:
                specs = {spec.name: spec for spec in MODULES[each].PARAMETERS}
                if name in IMPLICIT:
                    found += [] if isinstance(value, bool) else [f'{name}: not a bool']
                elif name not in specs:
                    found.append(f'{key}: {name} is not a parameter of {each}')
                else:
                    found += [f'{key}: {p}' for p in problems(name, specs[name], value)]
    assert found == [], path.name


def test_the_check_finds_misspelt_keys_wrong_types_and_values_out_of_range():
    specs = {spec.name: spec for spec in MODULES['grasp_monitor'].PARAMETERS}
    assert problems('rate', specs['rate'], 100) == ['rate: 100 is not a double']
    assert problems('rate', specs['rate'], 5000.0) == \
        ['rate: 5000.0 is outside [1.0, 2000.0]']
    assert problems('pads', specs['pads'], 'finger_left') == \
        ["pads: 'finger_left' is not a string_array"]
    assert problems('pads', specs['pads'], []) == ['pads: an empty list has no ROS type']
    sim = {spec.name: spec for spec in MODULES['mujoco_sim'].PARAMETERS}
    assert problems('scenario', sim['scenario'], 'pick_up') == \
        ["scenario: 'pick_up' is not one of ('pick_lift', 'multi_block', 'industrial_arm')"]
    assert problems('tactile', sim['tactile'], 1) == ['tactile: 1 is not a bool']
    assert problems('rate', specs['rate'], 100.0) == []
    assert node_of('/**/grasp_monitor') == 'grasp_monitor' and node_of('/**') == '/**'


def test_each_launch_file_has_its_parameter_file():
    names = {p.name for p in PARAMETER_FILES}
    assert {'pick_lift.yaml', 'multi_block.yaml', 'industrial_arm.yaml', 'monitor.yaml',
            'hardware.yaml', 'moteus_servos.example.yaml'} <= names


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_each_scenarios_rviz_config_is_the_generated_one(scenario):
    from grasp_monitor.app.rviz_config import rviz_text
    from grasp_monitor.app.scene_view import SceneView
    checked_in = (CONFIG / 'rviz' / f'{scenario}.rviz').read_text()
    assert checked_in == rviz_text(SceneView.for_scenario(scenario)), \
        f'regenerate: grasp-monitor rviz {scenario} --output config/rviz/{scenario}.rviz'


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_rviz_shows_the_scenes_pads_objects_robot_and_events_in_world(scenario):
    from grasp_monitor.app.rviz_config import displays
    from grasp_monitor.app.scene_view import SceneView
    config = yaml.safe_load((CONFIG / 'rviz' / f'{scenario}.rviz').read_text())
    manager = config['Visualization Manager']
    assert manager['Global Options']['Fixed Frame'] == 'world'
    assert {'Panels', 'Visualization Manager', 'Window Geometry'} <= set(config)
    assert manager['Class'] == '' and manager['Name'] == 'root'
    every = manager['Displays']
    assert all(d['Class'].startswith('rviz_default_plugins/') and d['Name'] for d in every)
    assert len({d['Name'] for d in every}) == len(every), 'display names are unique'
    assert {'rviz_default_plugins/Grid', 'rviz_default_plugins/TF'} <= {d['Class'] for d in every}
    view = SceneView.for_scenario(scenario)
    shown = {d['topic']: d['type'] for d in displays(config)}
    assert shown == {
        '/robot_description': 'std_msgs/msg/String',
        **{f'tactile/{pad.name}': 'sensor_msgs/msg/PointCloud2' for pad in view.pads},
        'tactile/markers': 'visualization_msgs/msg/MarkerArray',
        'contacts/markers': 'visualization_msgs/msg/MarkerArray',
        'grasp_monitor/markers': 'visualization_msgs/msg/MarkerArray',
        **{f'ground_truth/{body}': 'nav_msgs/msg/Odometry' for body in view.objects}}
    # every topic shown is one a node of ours publishes, with that type
    published = [(e, name) for name, m in MODULES.items() for e in m.INTERFACES
                 if e.kind == 'publishes']
    for topic, interface in shown.items():
        full = topic if topic.startswith('/') else '/' + topic
        assert any(e.interface == interface and e.pattern('/', node).match(full)
                   for e, node in published), topic
    # the camera looks at the robot and the objects, from far enough to hold them
    orbit = manager['Views']['Current']
    assert orbit['Class'] == 'rviz_default_plugins/Orbit'
    focal = [orbit['Focal Point'][axis] for axis in 'XYZ']
    assert all(lo <= f <= hi for lo, f, hi in zip(view.low, focal, view.high))
    assert orbit['Distance'] > max(hi - lo for lo, hi in zip(view.low, view.high))


def test_each_monitor_and_metrics_setting_is_the_name_of_its_core_field():
    """One name per setting: the ROS name with '.' as '_' is the field it sets.

    A config of one group of settings (``criteria.*``, ``weights.*``, ``epsilon.*``)
    names its fields after the group's dot.
    """
    import dataclasses
    from grasp_monitor.core.metrics import MetricsConfig
    from grasp_monitor.core.metrics.criteria import CriteriaConfig, CriteriaWeights
    from grasp_monitor.core.monitor import InputsConfig, MonitorConfig
    from grasp_monitor.core.monitor.settings import INPUT_SETTINGS, SETTINGS
    from grasp_monitor.core.quality import EpsilonConfig
    from grasp_monitor.core.setting_values import field_name
    from grasp_monitor.nodes import grasp_metrics_parameters

    def fields(config: type) -> set[str]:
        return {field.name for field in dataclasses.fields(config)}
    assert {field_name(setting) for setting in SETTINGS} <= fields(MonitorConfig)
    assert {field_name(setting) for setting in INPUT_SETTINGS} <= fields(InputsConfig)
    groups = {'criteria': CriteriaConfig, 'weights': CriteriaWeights, 'epsilon': EpsilonConfig}
    grouped = [spec.name.split('.') for spec in grasp_metrics_parameters.PARAMETERS
               if spec.name.split('.')[0] in groups]
    assert len(grouped) == sum(len(fields(config)) for config in groups.values())
    assert all(name in fields(groups[group]) for group, name in grouped), grouped
    own = {'object', 'pads', 'object_mass', 'object_inertia', 'energy_from', 'energy_dt',
           'energy_desired_velocity'}
    assert own <= fields(MetricsConfig)
    assert own <= {field_name(spec) for spec in grasp_metrics_parameters.PARAMETERS}


def test_node_tables_declare_the_core_settings_once():
    """A node's parameter for a core setting is that setting: same default, range and text."""
    from grasp_monitor.core.monitor.settings import MONITOR_SETTINGS
    from grasp_monitor.core.servo.settings import COMMAND_TIMEOUT
    from grasp_monitor.core.tactile.settings import TACTILE_SETTINGS
    from grasp_monitor.nodes import (
        grasp_monitor_parameters, moteus_servos, mujoco_sim_parameters,
        tactile_sensor_parameters)
    monitor = {spec.name: spec for spec in grasp_monitor_parameters.PARAMETERS}
    assert all(monitor[setting.name] is setting for setting in MONITOR_SETTINGS)
    for table in (mujoco_sim_parameters.PARAMETERS, moteus_servos.PARAMETERS):
        assert COMMAND_TIMEOUT in table
    tactile = {spec.name: spec for spec in tactile_sensor_parameters.PARAMETERS}
    for setting in TACTILE_SETTINGS:
        node = tactile[setting.name]
        assert (node.default, node.low, node.high) == ([setting.default], setting.low,
                                                       setting.high)
        assert node.description.startswith(setting.description)
        assert set(node.choices) <= set(setting.choices)
    # the realism settings, from the one table: the arrays' in tactile_sensor, the
    # encoders' in mujoco_sim, the preset and the seed in both
    from grasp_monitor.core.realism import REALISM_SETTINGS
    sim = {spec.name: spec for spec in mujoco_sim_parameters.PARAMETERS}
    for setting in REALISM_SETTINGS:
        group = setting.name.split('.')[1]
        assert (tactile.get(setting.name) is setting) == (group != 'joints'), setting.name
        assert (sim.get(setting.name) is setting) == (group != 'tactile'), setting.name
