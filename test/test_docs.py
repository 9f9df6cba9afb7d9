"""Documentation generated from the code must be current."""

from pathlib import Path

from grasp_monitor.app.reference import interfaces_markdown, markdown, write
import pytest

ROOT = Path(__file__).resolve().parents[1]
STALE = 'README is stale: run grasp-monitor reference --write README.md'


def test_readme_parameter_reference_is_current():
    assert markdown() in (ROOT / 'README.md').read_text(), STALE


def test_readme_topic_and_service_reference_is_current():
    assert interfaces_markdown() in (ROOT / 'README.md').read_text(), STALE


def test_write_replaces_the_blocks_and_keeps_the_rest(tmp_path):
    readme = tmp_path / 'README.md'
    text = (ROOT / 'README.md').read_text()
    readme.write_text(text.replace('| `scenario` | string', '| `scenario` | edited', 1))
    assert write(readme)
    assert readme.read_text() == text
    assert not write(readme)


def test_write_refuses_a_file_without_the_markers(tmp_path):
    readme = tmp_path / 'README.md'
    readme.write_text('# no reference here\n')
    with pytest.raises(ValueError, match='has no block between'):
        write(readme)
