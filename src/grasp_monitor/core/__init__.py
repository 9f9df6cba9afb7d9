"""ROS-free core of grasp_monitor: numpy only, no rclpy, no mujoco."""

from grasp_monitor.core.errors import CommandError, ConfigError, GraspMonitorError, SimulationError

__all__ = ['CommandError', 'ConfigError', 'GraspMonitorError', 'SimulationError']
