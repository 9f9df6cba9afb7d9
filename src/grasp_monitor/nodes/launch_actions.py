"""What the launch files share: a check before anything starts, and required nodes.

``launch`` and ``launch_ros`` come with a ROS 2 installation, so only the launch files
import this module.
"""

from __future__ import annotations

from launch.actions import OpaqueFunction, RegisterEventHandler, Shutdown
from launch.event_handlers import OnProcessExit
from launch.launch_context import LaunchContext
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

#: Launch arguments that start an external tool, and the package it comes from.
TOOLS = {'rviz': 'rviz2'}


class LaunchError(RuntimeError):
    """The launch cannot go on; launch says why and ends with a non-zero status."""


def _truthy(text: str) -> bool:
    return text.strip().lower() in ('true', '1', 'yes', 'on')


def _check_tools(context: LaunchContext) -> None:
    from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    for argument, package in TOOLS.items():
        if not _truthy(LaunchConfiguration(argument, default='false').perform(context)):
            continue
        try:
            get_package_prefix(package)
        except PackageNotFoundError:
            raise LaunchError(
                f'{argument}:=true, but {package} is not installed (it comes with a ROS 2 '
                f'desktop install: apt install ros-$ROS_DISTRO-{package}); nothing was '
                f'started. Run again without {argument}:=true, or install {package}.'
            ) from None


def check_tools() -> OpaqueFunction:
    """Return the action that refuses, before any process starts, a tool that is absent."""
    return OpaqueFunction(function=_check_tools)


def _ended(context: LaunchContext) -> list:
    if context.is_shutdown:
        return []  # stopped with the rest
    event = context.locals.event
    name = event.process_name
    if event.returncode != 0:
        raise LaunchError(f'{name} exited with status {event.returncode}; it is required, '
                          'so the launch stops (its output above says why)')
    return [Shutdown(reason=f'{name} exited; it is required')]


def required(node: Node) -> list:
    """Return ``node`` and the handler that ends the launch when it exits.

    A non-zero exit ends the launch with a non-zero status naming the node.
    """
    return [node, RegisterEventHandler(OnProcessExit(
        target_action=node, on_exit=OpaqueFunction(function=_ended)))]
