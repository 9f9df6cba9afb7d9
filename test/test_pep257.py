"""pep257 docstrings as ament runs it."""

from pathlib import Path

from ament_pep257.main import main
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257():
    # Google-style docstrings (STYLE.md 7), checked with ament's google convention.
    # Constructors and dunders are documented on their class, as ament's own convention does.
    rc = main(argv=[str(ROOT / 'src'), str(ROOT / 'setup.py'),
                    '--convention', 'google', '--add-ignore', 'D105', 'D107'])
    assert rc == 0, 'Found code style errors / warnings'
