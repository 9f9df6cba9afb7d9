"""Where a run's results go: a folder of its own per run, and a ``latest`` link.

``grasp-monitor demo`` and ``grasp-monitor run`` never overwrite an earlier run:
each writes into ``<output-dir>/<UTC start time>/`` (``2026-11-25T14-03-12Z``;
a second run in the same second gets ``-2``, ``-3``, ...) and, when it ends,
whatever its result, points ``<output-dir>/latest`` at that folder.
"""

from __future__ import annotations

from datetime import datetime, timezone
import os
from pathlib import Path

#: Name of the link to the newest run's folder.
LATEST = 'latest'
#: UTC time, with '-' for ':' (a valid file name everywhere).
TIME_FORMAT = '%Y-%m-%dT%H-%M-%SZ'


def new_run_dir(output_dir: Path | str, started: datetime | None = None) -> Path:
    """Create and return a folder of its own for a run under ``output_dir``.

    Args:
        output_dir: the folder of every run (created if missing).
        started: the run's start (default: now); named in UTC.
    """
    parent = Path(output_dir)
    parent.mkdir(parents=True, exist_ok=True)
    stamp = (started or datetime.now(timezone.utc)).astimezone(timezone.utc) \
        .strftime(TIME_FORMAT)
    suffix = 1
    while True:
        run_dir = parent / (stamp if suffix == 1 else f'{stamp}-{suffix}')
        try:
            run_dir.mkdir()  # exclusive: a run in the same second takes the next suffix
            return run_dir
        except FileExistsError:
            suffix += 1


def point_latest(run_dir: Path | str) -> Path:
    """Point ``<parent>/latest`` at ``run_dir`` in one step; return the link.

    The link is relative (the folder's name), so the output folder can move. A new
    link is made beside the old one and renamed over it: a reader sees either.
    """
    run_dir = Path(run_dir)
    link = run_dir.parent / LATEST
    temporary = run_dir.parent / f'.{LATEST}.{os.getpid()}'
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(run_dir.name, target_is_directory=True)
    os.replace(temporary, link)
    return link
