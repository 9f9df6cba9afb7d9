"""``grasp-monitor demo``: the whole graph as separate processes, one trial, a report.

The demo starts ``mujoco_sim`` (with its tactile sensor), ``grasp_monitor``,
``grasp_metrics``, ``grasp_controller`` (pick_lift only) and the recorder as
separate processes, each in its own process group and with its output in a log
file, all with the scenario's ``config/<scenario>.yaml``. It then runs one trial
through the services and watches it live, and ends with a results table, a JSON
summary, the MCAP and a PNG figure.

The recording window is bounded by pauses of the simulator: the recorder starts
while the simulator is paused and stops after it is paused again, so every
message the simulator published in between is in the window. The simulator
reports its tick count on ``/diagnostics``; each tick publishes ``/clock``,
``joint_states`` and every ``ground_truth/<body>`` once, and every k-th tick each
``tactile/<pad>``. Those counts, and the monitor's own list of the events it
published, are what the MCAP's counts are checked against.
"""

from grasp_monitor.app.demo.options import DemoOptions
from grasp_monitor.app.demo.plan import GraphPlan
from grasp_monitor.app.demo.run import run_demo

__all__ = ['DemoOptions', 'GraphPlan', 'run_demo']
