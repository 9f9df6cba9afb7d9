"""The launch files' arguments, read with the real launch API: defaults and what they start.

Nothing is launched; substitutions are evaluated in a launch context. Skipped, with the
reason, where launch_testing is not importable or grasp_monitor is not installed in
an ament prefix (see launch_support).
"""

from pathlib import Path

import launch_support as support  # skips this module where launch_testing is missing
import pytest

pytestmark = pytest.mark.skipif(bool(support.SKIP), reason=support.SKIP)
SCENARIOS = ('pick_lift', 'multi_block', 'industrial_arm')


def load(launch_file):
    from launch.launch_description_sources import (
        get_launch_description_from_python_launch_file,
    )
    return get_launch_description_from_python_launch_file(
        str(support.ROOT / 'launch' / launch_file))


def evaluate(substitutions, **configurations):
    from launch import LaunchContext
    from launch.utilities import perform_substitutions
    context = LaunchContext()
    context.launch_configurations.update(configurations)
    return perform_substitutions(context, substitutions)


def arguments(launch_file):
    return {a.name: a for a in load(launch_file).get_launch_arguments()}


def share():
    from ament_index_python.packages import get_package_share_directory
    return Path(get_package_share_directory('grasp_monitor'))


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_sim_takes_the_scenarios_parameter_file_and_its_controller_only_for_pick_lift(
        scenario):
    declared = arguments('sim.launch.py')
    assert {'scenario', 'config', 'use_sim_time', 'controller'} <= set(declared)
    config = evaluate(declared['config'].default_value, scenario=scenario)
    assert Path(config) == share() / 'config' / f'{scenario}.yaml' and Path(config).exists()
    controller = evaluate(declared['controller'].default_value, scenario=scenario)
    assert controller.lower() == str(scenario == 'pick_lift').lower()
    assert declared['scenario'].choices == list(SCENARIOS)
    assert evaluate(declared['use_sim_time'].default_value) == 'true'


@pytest.mark.parametrize('launch_file, config', [('monitor.launch.py', 'monitor.yaml'),
                                                 ('hardware.launch.py', 'hardware.yaml')])
def test_monitor_and_hardware_take_their_parameter_files_on_wall_time(launch_file, config):
    declared = arguments(launch_file)
    path = Path(evaluate(declared['config'].default_value))
    assert path == share() / 'config' / config and path.exists()
    assert evaluate(declared['use_sim_time'].default_value) == 'false'
    if launch_file == 'hardware.launch.py':
        servos = Path(evaluate(declared['servos_config'].default_value))
        assert servos.name == 'moteus_servos.example.yaml' and servos.exists()


@pytest.mark.parametrize('record, rviz', [('false', 'false'), ('true', 'false'),
                                          ('false', 'true')])
def test_tools_start_rviz_and_the_recorder_only_when_asked(record, rviz):
    tools = load('tools.launch.py')
    assert {'use_sim_time', 'rviz', 'record', 'record_path'} <= {
        a.name for a in tools.get_launch_arguments()}
    from launch import LaunchContext
    context = LaunchContext()
    context.launch_configurations.update(record=record, rviz=rviz)
    started = {entity.node_executable for entity in tools.entities
               if hasattr(entity, 'node_executable')
               and entity.condition.evaluate(context)}
    assert started == {name for name, on in (('recorder', record), ('rviz2', rviz))
                       if on == 'true'}
    rviz_node = next(e for e in tools.entities if getattr(e, 'node_executable', '') == 'rviz2')
    assert rviz_node.node_package == 'rviz2'


@pytest.mark.parametrize('scenario', SCENARIOS)
def test_rviz_shows_the_scenario_sim_launch_runs(scenario):
    declared = arguments('tools.launch.py')
    config = evaluate(declared['rviz_config'].default_value, scenario=scenario)
    assert Path(config) == share() / 'config' / 'rviz' / f'{scenario}.rviz'
    assert Path(config).exists()
    # alone (monitor.launch.py, hardware.launch.py): pick_lift's
    assert evaluate(declared['scenario'].default_value) == 'pick_lift'


@pytest.mark.parametrize('launch_file, included', [
    ('sim.launch.py', 'monitor.launch.py'), ('hardware.launch.py', 'monitor.launch.py'),
    ('monitor.launch.py', 'tools.launch.py')])
def test_the_monitor_and_the_tools_come_from_one_installed_file(launch_file, included):
    from launch import LaunchContext
    from launch.actions import IncludeLaunchDescription
    includes = [e for e in load(launch_file).entities if isinstance(e, IncludeLaunchDescription)]
    assert len(includes) == 1
    source = includes[0].launch_description_source
    # an empty context will do, so `ros2 launch --show-args` lists the included arguments
    description = source.get_launch_description(LaunchContext())
    assert Path(source.location) == share() / 'launch' / included
    assert {a.name for a in description.get_launch_arguments()} == {
        a.name for a in load(included).get_launch_arguments()}


def test_show_args_lists_the_arguments_of_the_included_files():
    assert {'scenario', 'config', 'use_sim_time', 'controller', 'lockstep', 'composed', 'rviz',
            'rviz_config', 'record', 'record_path'} == set(arguments('sim.launch.py'))
    # tools.launch.py's scenario picks the rviz config where no simulator sets it
    assert {'servos_config', 'config', 'use_sim_time', 'composed', 'rviz', 'rviz_config',
            'scenario', 'record', 'record_path'} == set(arguments('hardware.launch.py'))


@pytest.mark.parametrize('launch_file', ['sim.launch.py', 'monitor.launch.py',
                                         'hardware.launch.py'])
def test_composed_is_declared_off_by_default_wherever_the_monitor_is_included(launch_file):
    declared = arguments(launch_file)
    assert declared['composed'].choices == ['true', 'false']
    assert evaluate(declared['composed'].default_value) == 'false'
