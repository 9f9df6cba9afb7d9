"""MuJoCo backend: scenes, stepping, contact extraction into core values."""
