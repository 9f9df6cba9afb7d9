"""``grasp-monitor reference``: the topic, service and parameter reference, from the code."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = 'print the topic, service and parameter reference (docs/reference.md), from the code'
DESCRIPTION = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--write``."""
    parser.add_argument('--write', type=Path, nargs='?', const=Path('docs/reference.md'),
                        metavar='FILE', help='replace the generated blocks in this file '
                        '(default docs/reference.md, from the checkout) instead')


def run(args: argparse.Namespace) -> int:
    """Print the generated blocks, or write them into the file ``--write`` names."""
    from grasp_monitor.app.reference import blocks, write
    if args.write is None:
        print('\n\n'.join(blocks()))
    elif write(args.write):
        print(f'updated {args.write}')
    return 0
