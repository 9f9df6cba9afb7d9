"""rviz and the recorder beside any running grasp_monitor graph; the other launch files include it.

Arguments: ``use_sim_time`` (default false), ``rviz`` (start rviz2 with
config/grasp_monitor.rviz, default false), ``record`` (start the recorder, default
false), ``record_path`` (the recorder's ``path``; default "": recording_<UTC date and
time>.mcap in the current directory).
"""

from grasp_monitor.nodes.launch_actions import check_tools
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    """Return rviz2 and the recorder, each behind its argument."""
    use_sim_time = {'use_sim_time': LaunchConfiguration('use_sim_time')}
    return LaunchDescription([
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Follow /clock (a simulator or a replay).'),
        DeclareLaunchArgument('rviz', default_value='false',
                              description='Start rviz2 with config/grasp_monitor.rviz.'),
        DeclareLaunchArgument('record', default_value='false',
                              description='Record the graph with the recorder node.'),
        DeclareLaunchArgument('record_path', default_value='',
                              description="The recorder's MCAP file (default: "
                              'recording_<UTC date and time>.mcap here).'),
        check_tools(),  # rviz:=true without rviz2: say so before anything starts
        Node(package='rviz2', executable='rviz2', output='screen',
             arguments=['-d', PathJoinSubstitution(
                 [FindPackageShare('grasp_monitor'), 'config', 'grasp_monitor.rviz'])],
             parameters=[use_sim_time], condition=IfCondition(LaunchConfiguration('rviz'))),
        Node(package='grasp_monitor', executable='recorder', output='screen',
             parameters=[use_sim_time, {'path': LaunchConfiguration('record_path')}],
             condition=IfCondition(LaunchConfiguration('record'))),
    ])
