"""The monitor and the metrics alone, for an external robot or a replay; the others include it.

    ros2 launch grasp_monitor monitor.launch.py
    ros2 launch grasp_monitor monitor.launch.py use_sim_time:=true   # beside a replay
    ros2 launch grasp_monitor monitor.launch.py composed:=true       # one process for both

Arguments: ``config`` (default config/monitor.yaml), ``use_sim_time`` (default false;
true beside a replay, which publishes the recording's /clock), ``composed`` (default
false; true runs both nodes in one process, ``monitor_metrics``: a message both take wakes
one process, a quarter less CPU at 1 kHz), and ``rviz``, ``record``, ``record_path`` of
tools.launch.py. sim.launch.py and hardware.launch.py pass ``composed`` on.
"""

from grasp_monitor.nodes.launch_actions import check_tools, required
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.conditions import IfCondition, UnlessCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    """Return grasp_monitor and grasp_metrics, configured from one parameter file."""
    parameters = [LaunchConfiguration('config'),
                  {'use_sim_time': LaunchConfiguration('use_sim_time')}]
    composed = LaunchConfiguration('composed')
    return LaunchDescription([
        DeclareLaunchArgument('config', default_value=PathJoinSubstitution(
            [FindPackageShare('grasp_monitor'), 'config', 'monitor.yaml']),
            description='Parameter file of grasp_monitor and grasp_metrics.'),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Follow /clock (true beside a replay).'),
        DeclareLaunchArgument('composed', default_value='false', choices=['true', 'false'],
                              description='Run both nodes in one process (monitor_metrics).'),
        check_tools(),  # before any process starts
        *required(Node(package='grasp_monitor', executable='grasp_monitor', output='screen',
                       parameters=parameters, condition=UnlessCondition(composed))),
        *required(Node(package='grasp_monitor', executable='grasp_metrics', output='screen',
                       parameters=parameters, condition=UnlessCondition(composed))),
        *required(Node(package='grasp_monitor', executable='monitor_metrics', output='screen',
                       parameters=parameters, condition=IfCondition(composed))),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(
            PathJoinSubstitution([FindPackageShare('grasp_monitor'), 'launch',
                                  'tools.launch.py']))),
    ])
