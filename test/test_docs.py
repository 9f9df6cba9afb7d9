"""Documentation generated from the code must be current."""

from pathlib import Path

from grasp_monitor.reference import markdown

ROOT = Path(__file__).resolve().parents[1]


def test_readme_parameter_reference_is_current():
    readme = (ROOT / 'README.md').read_text()
    assert markdown() in readme, 'README is stale: paste the output of grasp-monitor reference'
