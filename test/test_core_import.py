"""The core and the MuJoCo backend never load ROS."""

import pkgutil

from conftest import run_fresh_python
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
    run_fresh_python(code)
    assert 'grasp_monitor.core.servo' in modules and 'grasp_monitor.sim.backend' in modules


def test_single_samples_leave_numba_unloaded_and_blocks_load_it():
    # numba brings LLVM (about 130 MB resident): the metrics node scores single samples
    # and must not pay for it; blocks (the benchmark, the offline pipeline) do.
    code = (
        'import sys\n'
        'import numpy as np\n'
        'from grasp_monitor.core.energy import EnergyTracker, EnergyTrackerConfig\n'
        "tracker = EnergyTracker(EnergyTrackerConfig(('cube',), 1.0, [[1.0, 1.0, 1.0]]))\n"
        'pose = [np.zeros((1, 3)), np.array([[1.0, 0, 0, 0]]), np.zeros((1, 3)), '
        'np.zeros((1, 3))]\n'
        'pads = [np.zeros((2, 3)), np.array([[1.0, 0, 0, 0]] * 2), np.zeros((2, 3)), '
        'np.zeros((2, 3))]\n'
        'tracker.update_arrays(0.0, *pose, *pads)\n'
        "print('numba' in sys.modules)\n"
        'tracker.update_block(np.array([0.001, 0.002]), *(np.stack([a, a]) for a in pose),\n'
        '                     *(np.stack([a, a]) for a in pads))\n'
        "print('numba' in sys.modules)\n")
    assert run_fresh_python(code).split() == ['False', 'True']
