"""Time stamps and the simulated clock."""

from __future__ import annotations

from builtin_interfaces.msg import Time
from rosgraph_msgs.msg import Clock


def time_to_msg(time_s: float) -> Time:
    """Convert seconds to builtin_interfaces/Time (rounded to the nanosecond)."""
    nanoseconds = int(round(time_s * 1e9))
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def time_from_msg(stamp: Time) -> float:
    """Convert builtin_interfaces/Time to seconds."""
    return stamp.sec + stamp.nanosec * 1e-9


def clock_to_msg(time_s: float) -> Clock:
    """Convert simulated time to rosgraph_msgs/Clock."""
    return Clock(clock=time_to_msg(time_s))
