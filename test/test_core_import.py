"""The core and the MuJoCo backend never load ROS."""

import pkgutil
import subprocess
import sys

import grasp_monitor.core
import grasp_monitor.hardware
import grasp_monitor.sim


def test_core_sim_and_hardware_import_without_rclpy():
    modules = [
        info.name for package in (grasp_monitor.core, grasp_monitor.sim, grasp_monitor.hardware)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.')]
    code = (
        'import importlib, sys\n'
        f'for name in {modules!r}:\n'
        '    importlib.import_module(name)\n'
        "leaks = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('rclpy', 'rcl_interfaces', 'std_msgs', 'sensor_msgs', 'nav_msgs'))\n"
        'print(len(sys.modules)); assert not leaks, leaks\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert 'grasp_monitor.core.servo' in modules and 'grasp_monitor.sim.backend' in modules
