"""The core and the MuJoCo backend never load ROS."""

import pkgutil

from common import run_fresh_python
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


def test_blocks_without_numba_run_as_python_with_a_warning_and_the_same_energies():
    code = (
        'import logging, sys\n'
        "sys.modules['numba'] = None  # as if not installed: its import fails\n"
        'logging.basicConfig(stream=sys.stdout, format="%(levelname)s %(message)s")\n'
        'import numpy as np\n'
        'from grasp_monitor.core.energy import EnergyTracker, EnergyTrackerConfig\n'
        'rng = np.random.default_rng(3)\n'
        'n = 4\n'
        'q = rng.normal(size=(n, 3, 4)); q /= np.linalg.norm(q, axis=-1, keepdims=True)\n'
        'arrays = [rng.normal(size=(n, 1, 3)), q[:, :1], rng.normal(size=(n, 1, 3)),\n'
        '          rng.normal(size=(n, 1, 3)), rng.normal(size=(n, 2, 3)), q[:, 1:],\n'
        '          rng.normal(size=(n, 2, 3)), rng.normal(size=(n, 2, 3))]\n'
        'times = 0.001 * np.arange(1, n + 1)\n'
        "config = EnergyTrackerConfig(('cube',), 1.0, [[1.0, 2.0, 3.0]])\n"
        'block = EnergyTracker(config).update_block(times, *arrays)\n'
        'single = EnergyTracker(config)\n'
        'one = [single.update_arrays(t, *(a[i] for a in arrays)) for i, t in enumerate(times)]\n'
        'assert np.array_equal(block.energy_mean_j, [s.energy_mean_j for s in one])\n'
        "print('numba' in sys.modules and sys.modules['numba'] is not None)\n")
    out = run_fresh_python(code)
    assert 'WARNING numba is not installed: _score_block runs as Python' in out
    assert out.splitlines()[-1] == 'False'
