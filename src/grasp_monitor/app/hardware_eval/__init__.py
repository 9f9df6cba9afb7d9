"""``grasp-monitor hardware-eval``: every event scored on what a real robot gives the monitor.

``family`` draws the trials (holds, pulls that slip, drops, slow closes, closes that
never come), ``trial`` runs one offline and feeds a monitor only tactile clouds and
joint states through the realism model of each preset, ``score`` holds each event
against the simulator's truth, and ``run`` writes the tables (docs/realism.md).
"""
