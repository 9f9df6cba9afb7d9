"""A real gripper: moteus_servos, the monitor, the metrics and the gripper action.

    ros2 launch grasp_monitor hardware.launch.py servos_config:=my_servos.yaml

Arguments: ``servos_config`` (moteus_servos' parameter file, default
config/moteus_servos.example.yaml, which starts read-only), ``config`` (grasp_monitor's
and grasp_metrics', default config/hardware.yaml), ``use_sim_time`` (default false),
``gripper`` (start gripper_action, control_msgs's GripperCommand action for MoveIt on
``gripper_action/gripper_cmd``, with its parameters from ``config``; default true), and
``rviz``, ``record``, ``record_path`` of tools.launch.py. The monitor and the metrics
come from monitor.launch.py, with this file's ``config`` and ``use_sim_time`` (and
``composed``, which it declares).
"""

from grasp_monitor.nodes.launch_actions import check_tools, required
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription
from launch.conditions import IfCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    """Return moteus_servos and gripper_action beside monitor.launch.py."""
    config = PathJoinSubstitution([FindPackageShare('grasp_monitor'), 'config'])
    use_sim_time = {'use_sim_time': LaunchConfiguration('use_sim_time')}
    return LaunchDescription([
        DeclareLaunchArgument('servos_config', default_value=PathJoinSubstitution(
            [config, 'moteus_servos.example.yaml']),
            description='Parameter file of moteus_servos (the example starts read-only).'),
        DeclareLaunchArgument('config', default_value=PathJoinSubstitution(
            [config, 'hardware.yaml']),
            description='Parameter file of grasp_monitor and grasp_metrics.'),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Follow /clock.'),
        DeclareLaunchArgument('gripper', default_value='true',
                              description='Start gripper_action (GripperCommand for MoveIt).'),
        check_tools(),  # before any process starts
        *required(Node(package='grasp_monitor', executable='moteus_servos', output='screen',
                       parameters=[LaunchConfiguration('servos_config'), use_sim_time])),
        Node(package='grasp_monitor', executable='gripper_action', output='screen',
             parameters=[LaunchConfiguration('config'), use_sim_time],
             condition=IfCondition(LaunchConfiguration('gripper'))),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(
            PathJoinSubstitution([FindPackageShare('grasp_monitor'), 'launch',
                                  'monitor.launch.py']))),
    ])
