"""Declared parameters of the ``grasp_monitor`` node."""

from grasp_monitor.core.events import EVENT_ORDER
from grasp_monitor.nodes.params import COMMON, ParamSpec

PARAMETERS = COMMON + (
    ParamSpec('pads', ['finger_left', 'finger_right'],
              'Tactile pads (tactile/<pad>), one robot body each.', read_only=True),
    ParamSpec('object', 'object', 'Object with ground truth (ground_truth/<object>); "" on '
              'hardware: stillness then comes from finger_joints.', read_only=True),
    ParamSpec('finger_joints', ['finger_left', 'finger_right'],
              'Joints whose speeds show a still grasp without ground truth.', read_only=True),
    ParamSpec('events', list(EVENT_ORDER), 'Events to run.', read_only=True),
    ParamSpec('rate', 100.0, 'Samples at the input stamps k / rate, Hz.', 1.0, 2000.0,
              read_only=True),
    ParamSpec('contact_force', 1e-3, 'A pad touches at this total force, N.', 1e-6, 1e3,
              read_only=True),
    ParamSpec('max_sample_age', 0.1, 'A sample of older input, or that the clock passed by '
              'this before every input came, is stale, s.', 1e-3, 60.0, read_only=True),
    ParamSpec('grasp_dwell', 0.0, 'Still time for a grasp, s (0 = 10 sample periods).',
              0.0, 60.0, read_only=True),
    ParamSpec('still_speed', 0.01, 'Object still below this speed, m/s.', 0.0, 10.0,
              read_only=True),
    ParamSpec('finger_still_speed', 0.01, 'Fingers still below this speed (no ground truth).',
              0.0, 10.0, read_only=True),
    ParamSpec('grasp_limit', 5.0, 'No grasp by then stops the trial, s.', 1e-3, 3600.0,
              read_only=True),
    ParamSpec('contact_timeout', 2.0, 'No contact by then stops the trial, s.', 1e-3, 3600.0,
              read_only=True),
    ParamSpec('slip_out', 1.0, 'Contact lost this long stops the trial, s.', 1e-3, 3600.0,
              read_only=True),
    ParamSpec('force_test_time', 5.0, 'External force test duration after the grasp, s.',
              1e-3, 3600.0, read_only=True),
    ParamSpec('simulator', 'mujoco_sim', 'Node offering ~/external_force/start and stop '
              '("" = none, as on hardware).', read_only=True),
    ParamSpec('event_log', 'grasp_monitor_events.jsonl', 'JSON-lines log of every event.',
              read_only=True),
)
