"""rviz and the recorder beside any running grasp_monitor graph; the other launch files include it.

Arguments: ``use_sim_time`` (default false), ``rviz`` (start rviz2, default false),
``rviz_config`` (default config/rviz/<scenario>.rviz, ``scenario`` being sim.launch.py's,
else pick_lift), ``record`` (start the recorder, default
false), ``record_path`` (the recorder's ``path``; default "": recording_<UTC date and
time>.mcap in the current directory).
"""

from grasp_monitor.nodes.launch_actions import check_tools
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    """Return rviz2 and the recorder, each behind its argument."""
    use_sim_time = {'use_sim_time': LaunchConfiguration('use_sim_time')}
    # sim.launch.py's scenario when it includes this file; set arguments keep their value
    scenario = LaunchConfiguration('scenario')
    return LaunchDescription([
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Follow /clock (a simulator or a replay).'),
        DeclareLaunchArgument('rviz', default_value='false', description='Start rviz2.'),
        DeclareLaunchArgument('scenario', default_value='pick_lift',
                              description='Scenario whose rviz config is the default.'),
        # Concatenated, not PathJoinSubstitution: Humble and Jazzy join no nested lists.
        DeclareLaunchArgument('rviz_config', default_value=[
            FindPackageShare('grasp_monitor'), '/config/rviz/', scenario, '.rviz'],
            description="rviz2's config (default: config/rviz/<scenario>.rviz)."),
        DeclareLaunchArgument('record', default_value='false',
                              description='Record the graph with the recorder node.'),
        DeclareLaunchArgument('record_path', default_value='',
                              description="The recorder's MCAP file (default: "
                              'recording_<UTC date and time>.mcap here).'),
        check_tools(),  # rviz:=true without rviz2: say so before anything starts
        Node(package='rviz2', executable='rviz2', output='screen',
             arguments=['-d', LaunchConfiguration('rviz_config')],
             parameters=[use_sim_time], condition=IfCondition(LaunchConfiguration('rviz'))),
        Node(package='grasp_monitor', executable='recorder', output='screen',
             parameters=[use_sim_time, {'path': LaunchConfiguration('record_path')}],
             condition=IfCondition(LaunchConfiguration('record'))),
    ])
