"""``grasp-monitor slip-eval``: the incipient_slip detector scored against simulated truth.

``family`` draws the trials (pick_lift holds pulled past their friction, and held),
``trial`` runs one offline into per-tick cues and ground truth, ``score`` scores
them (ticks, trials, lead time, false alarms), ``plot`` draws the PR curve and
``run`` ties it together (docs/slip.md).
"""
