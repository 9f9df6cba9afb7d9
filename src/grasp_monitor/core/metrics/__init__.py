"""Grasp metrics over trials: the energy metric every sample, the criteria at each end.

``trial``: the record of one trial; ``criteria``: rostok's criteria and their weighted
reward over a record; ``config``: what they are computed on; ``samples``: a sample's
reading as contacts; ``timelines``: which trial is on which timeline; ``trial_metrics``:
``TrialMetrics``, which ties them together; ``feed``: stamped inputs sampled on the
monitor's grid, for a node.
"""

from grasp_monitor.core.metrics.config import ENERGY_REFERENCES, MetricsConfig
from grasp_monitor.core.metrics.samples import Sample
from grasp_monitor.core.metrics.timelines import RESET_SLACK_S, TIMELINE_SLACK_S
from grasp_monitor.core.metrics.trial_metrics import TrialMetrics

__all__ = [
    'ENERGY_REFERENCES', 'MetricsConfig', 'RESET_SLACK_S', 'Sample', 'TIMELINE_SLACK_S',
    'TrialMetrics',
]
