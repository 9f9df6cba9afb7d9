"""Small helpers to write MJCF text from numbers."""

from __future__ import annotations

from typing import Iterable


def vec(values: Iterable[float]) -> str:
    """Format numbers for an MJCF attribute, exactly (repr keeps every digit)."""
    return ' '.join(repr(float(v)) for v in values)


def servo_actuator(joint: str) -> str:
    """Return an actuator that the simulator turns into the moteus servo law."""
    return f'<general name="{joint}" joint="{joint}" gainprm="1" biastype="affine"/>'
