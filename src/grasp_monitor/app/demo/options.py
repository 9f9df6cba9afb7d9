"""How the demo runs: the options of ``grasp-monitor demo``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DemoOptions:
    """How the demo runs.

    Attributes:
        scenario: scenario name; its parameter file is ``config/<scenario>.yaml``.
        output_dir: each run writes its logs, MCAP, JSON and PNG into a folder of
            its own here, ``<UTC time>/``, and points ``latest`` at it.
        headless: plain lines instead of a redrawn block (also whenever stdout is no TTY).
        duration_s: end the trial after this much simulated time (default: pick_lift
            runs until the monitor ends the trial, others for ``DEFAULT_MONITORING_S``).
        timeout_s: wall-clock limit of the trial, s.
        startup_timeout_s: wall-clock limit for the graph to come up, s.
        grace_s: wait this long after SIGINT before SIGKILL, s.
        params_file: a parameter file other than the scenario's.
    """

    scenario: str = 'pick_lift'
    output_dir: Path = Path('results/demo')
    headless: bool = False
    duration_s: float | None = None
    timeout_s: float = 120.0
    startup_timeout_s: float = 60.0
    grace_s: float = 10.0
    params_file: Path | None = None
