"""A pad's total force as the monitor computes it, from a tactile cloud."""

from __future__ import annotations

from grasp_monitor.app.demo.plan import GraphPlan
from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.monitor import InputsConfig, MonitorInputs
from grasp_monitor.nodes.conversions import tactile_cloud_from_msg


def pad_inputs(plan: GraphPlan):
    """Return a MonitorInputs for the plan's pads: the monitor's own total force of a pad."""
    return MonitorInputs(InputsConfig(plan.pads or ('none',), plan.finger_joints,
                                      use_object=False))


def read_pad(inputs, pad: str, msg) -> float | None:
    """Take a tactile cloud into ``inputs``; return its stamp, s (None: malformed, skipped)."""
    try:
        _, forces, stamp_s = tactile_cloud_from_msg(msg)
    except GraspMonitorError:
        return None  # the monitor logs and counts malformed clouds; the demo skips them
    inputs.update_pad(pad, forces, stamp_s)
    return stamp_s
