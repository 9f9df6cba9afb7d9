"""rviz:=true where rviz2 is not installed: a clear message, and nothing started or left running.

Skipped where launch is not importable, where grasp_monitor is not installed in an ament
prefix (see launch_support), or where rviz2 is installed (then rviz would start).
"""

import launch_support as support  # skips this module where launch_testing is missing
import pytest


def _rviz_installed() -> bool:
    from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    try:
        get_package_prefix('rviz2')
    except PackageNotFoundError:
        return False
    return True


@pytest.mark.skipif(bool(support.SKIP), reason=support.SKIP)
@pytest.mark.skipif(not support.SKIP and _rviz_installed(), reason='rviz2 is installed here')
@pytest.mark.parametrize('launch_file', ['sim.launch.py', 'monitor.launch.py',
                                         'hardware.launch.py', 'tools.launch.py'])
def test_rviz_asked_for_but_absent_starts_nothing_and_says_so(launch_file):
    result = support.run_launch(launch_file, timeout_s=60.0, rviz='true')
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert 'rviz:=true, but rviz2 is not installed' in output, output[-3000:]
    assert 'nothing was started' in output
    assert 'process started with pid' not in output, output[-3000:]
