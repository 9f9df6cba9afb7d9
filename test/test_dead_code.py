"""No dead code: vulture finds nothing unused in src, test, launch or benchmarks.

At confidence 60, its lowest: unused functions, methods, classes, attributes, variables
and imports. What only a framework or a reader by name uses is listed, with that reader,
in vulture_whitelist.py. A name used only by tests counts as used (fixtures and
``grasp_monitor.testing`` are for tests); a function only its own test calls is not caught.
"""

from pathlib import Path

import pytest
import vulture

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.linter
def test_no_unused_code():
    scan = vulture.Vulture()
    scan.scavenge([str(ROOT / p) for p in ('src', 'test', 'launch', 'benchmarks')
                   if (ROOT / p).exists()])
    unused = [item.get_report() for item in scan.get_unused_code(min_confidence=60)]
    assert not unused, (
        'unused code (remove it; if a framework or a reader by name uses it, add it to '
        'test/vulture_whitelist.py with that reader):\n' + '\n'.join(unused))
