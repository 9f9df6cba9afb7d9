"""flake8 as ament runs it."""

from pathlib import Path

from ament_flake8.main import main_with_errors
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.flake8
@pytest.mark.linter
def test_flake8():
    paths = [str(ROOT / p) for p in ('src', 'test', 'setup.py', 'launch', 'benchmarks')
             if (ROOT / p).exists()]
    rc, errors = main_with_errors(argv=paths)
    assert rc == 0, f'Found {len(errors)} code style errors / warnings:\n' + '\n'.join(errors)
