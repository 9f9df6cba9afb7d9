"""``grasp-monitor plugins``: the sensor and motor plugin types with their parameters."""

from __future__ import annotations

import argparse

HELP = 'list the sensor and motor plugin types with their parameters'
DESCRIPTION = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add nothing: the verb takes no arguments."""


def run(args: argparse.Namespace) -> int:
    """Print every plugin type and its parameters."""
    from grasp_monitor.core.plugins import describe_plugins
    print(describe_plugins())
    return 0
