"""Fixtures shared by the node and graph tests; their helpers live in common.py."""

from common import RosHarness  # also isolates this process's DDS domain (see common.py)
import pytest


@pytest.fixture
def ros():
    """Yield a RosHarness, closed after the test."""
    harness = RosHarness()
    yield harness
    harness.close()
