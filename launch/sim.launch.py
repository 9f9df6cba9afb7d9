"""A simulated grasp: mujoco_sim with its tactile sensor, the monitor, the metrics, the controller.

    ros2 launch grasp_monitor sim.launch.py scenario:=pick_lift rviz:=true record:=true

Arguments: ``scenario`` (pick_lift, multi_block or industrial_arm), ``config`` (default
config/<scenario>.yaml), ``use_sim_time`` (default true: every node follows the
simulator's /clock), ``controller`` (host grasp_controller in the simulator's process,
in lockstep with its ticks; default true for pick_lift only, the other scenes drive
themselves), ``lockstep`` (default true: a tick waits for its inputs, so machine load
changes how long a trial takes, never its result; false runs free, as hardware does),
``gripper`` (start gripper_action, control_msgs's GripperCommand action for MoveIt, on
``gripper_action/gripper_cmd``; default false: with it, give controller:=false, or the
scripted pick drives the fingers too), and ``rviz``, ``record``, ``record_path`` of
tools.launch.py. The monitor and the metrics come from monitor.launch.py, with this
file's ``config`` and ``use_sim_time`` (and ``composed``, which it declares).
"""

from grasp_monitor.nodes.launch_actions import check_tools, required
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
            description="Host grasp_controller in the simulator's process "
                        '(default: for pick_lift only).'),
        DeclareLaunchArgument('lockstep', default_value='true',
                              description='Step a tick only once its inputs are in.'),
        DeclareLaunchArgument('gripper', default_value='false',
                              description='Start gripper_action (GripperCommand for MoveIt; '
                                          'with controller:=false).'),
        check_tools(),  # before any process starts
        # One process: the tactile sensor and the controller share the simulator's MuJoCo
        # state and ticks. No name=: it would rename every node of the process.
        *required(Node(package='grasp_monitor', executable='mujoco_sim', output='screen',
                       parameters=parameters + [{
                           'scenario': scenario, 'controller': LaunchConfiguration('controller'),
                           'lockstep': LaunchConfiguration('lockstep')}])),
        Node(package='grasp_monitor', executable='gripper_action', output='screen',
             parameters=parameters, condition=IfCondition(LaunchConfiguration('gripper'))),
        IncludeLaunchDescription(PythonLaunchDescriptionSource(
            PathJoinSubstitution([FindPackageShare('grasp_monitor'), 'launch',
                                  'monitor.launch.py']))),
    ])
