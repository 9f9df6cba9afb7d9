"""A simulated grasp: mujoco_sim with its tactile sensor, the monitor, the metrics, the controller.

    ros2 launch grasp_monitor sim.launch.py scenario:=pick_lift rviz:=true record:=true

Arguments: ``scenario`` (pick_lift, multi_block or industrial_arm), ``config`` (default
config/<scenario>.yaml), ``use_sim_time`` (default true: every node follows the
simulator's /clock), ``controller`` (start grasp_controller; default true for pick_lift
only, the other scenes drive themselves), and ``rviz``, ``record``, ``record_path`` of
tools.launch.py. The monitor and the metrics come from monitor.launch.py, with this
file's ``config`` and ``use_sim_time``.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution, PythonExpression
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    """Return the simulated graph, configured from one parameter file."""
    scenario = LaunchConfiguration('scenario')
    parameters = [LaunchConfiguration('config'),
                  {'use_sim_time': LaunchConfiguration('use_sim_time')}]
    return LaunchDescription([
        DeclareLaunchArgument('scenario', default_value='pick_lift',
                              choices=['pick_lift', 'multi_block', 'industrial_arm'],
                              description='Scenario to simulate.'),
        # Concatenated, not PathJoinSubstitution: Humble and Jazzy join no nested lists.
        DeclareLaunchArgument('config', default_value=[
            FindPackageShare('grasp_monitor'), '/config/', scenario, '.yaml'],
            description="Parameter file of every node (default: the scenario's)."),
        DeclareLaunchArgument('use_sim_time', default_value='true',
                              description="Follow the simulator's /clock."),
        DeclareLaunchArgument('controller', default_value=PythonExpression(
            ["'", scenario, "' == 'pick_lift'"]),
            description='Start grasp_controller (default: for pick_lift only).'),
        # One process: the tactile sensor shares the simulator's MuJoCo state. No name=:
        # it would rename both of the process's nodes.
        Node(package='grasp_monitor', executable='mujoco_sim', output='screen',
             parameters=parameters + [{'scenario': scenario}]),
        Node(package='grasp_monitor', executable='grasp_controller', output='screen',
             parameters=parameters, condition=IfCondition(LaunchConfiguration('controller'))),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(
            PathJoinSubstitution([FindPackageShare('grasp_monitor'), 'launch',
                                  'monitor.launch.py']))),
    ])
