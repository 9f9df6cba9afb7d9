"""The grasp monitor's settings: the one table its node, the offline run and MonitorConfig read."""

from __future__ import annotations

from typing import Any

from grasp_monitor.core.monitor.records import EVENT_ORDER
from grasp_monitor.core.monitor.slip_signals import AXES
from grasp_monitor.core.setting_values import field_name
from grasp_monitor.core.settings import Setting

#: The ``MonitorConfig`` settings: each sets the field named by ``field_name`` (dots as _).
SETTINGS = (
    Setting('events', [name for name in EVENT_ORDER if name != 'incipient_slip'],
            f'Events to run, of: {", ".join(EVENT_ORDER)}.', read_only=True),
    Setting('grasp_dwell', 0.0, 'Still time for a grasp, s (0 = 10 sample periods).',
            0.0, 60.0, read_only=True),
    Setting('still_speed', 0.01, 'Object still below this speed, m/s.', 0.0, 10.0,
            read_only=True),
    Setting('finger_still_speed', 0.01, 'Fingers still below this speed (no ground truth).',
            0.0, 10.0, read_only=True),
    Setting('palm', '', 'Which of the robot bodies (pads) is the palm ("" = none); the '
            '*_count_palm settings say whether its contact counts.', read_only=True),
    Setting('contact_count_palm', True, 'The contact event counts a contact of the palm '
            '(false: of the other bodies only).', read_only=True),
    Setting('grasp_min_bodies', 2, 'Robot bodies that must touch the still object for a '
            'grasp.', 1, 64, read_only=True),
    Setting('grasp_count_palm', False, 'The palm counts among grasp_min_bodies.',
            read_only=True),
    Setting('grasp_limit', 5.0, 'No grasp by then stops the trial, s.', 1e-3, 3600.0,
            read_only=True),
    Setting('contact_timeout', 2.0, 'No contact by then stops the trial, s.', 1e-3, 3600.0,
            read_only=True),
    Setting('slip_out', 1.0, 'Contact lost this long stops the trial, s.', 1e-3, 3600.0,
            read_only=True),
    Setting('slip_out_count_palm', False, 'A contact of the palm alone holds off slip_out.',
            read_only=True),
    Setting('max_distance', 2.0, 'A pad farther than this from base_frame stops the trial '
            '(flying_apart), m.', 1e-3, 1e3, read_only=True),
    Setting('restart_on_reset', False, 'A reset (time going back) ends the open trial; '
            'true = it also opens the next trial by itself, false = the next waits for '
            'a start.', read_only=True),
    Setting('force_test_time', 5.0, 'External force test duration after the grasp, s.',
            1e-3, 3600.0, read_only=True),
    Setting('incipient_slip.normal_axis', 'y', "The tactile pads' frame axis normal to their "
            'sensing surface (the simulated pads: y).', choices=AXES, read_only=True),
    Setting('incipient_slip.friction', 1.0, 'Friction coefficient of the pads on the object '
            'that the friction cone assumes (0 = unknown: no friction cue).', 0.0, 10.0,
            read_only=True),
    # ratio and cop_speed: what `grasp-monitor slip-eval` tunes, rounded (docs/slip.md)
    Setting('incipient_slip.ratio', 0.995, 'incipient_slip fires when a pad uses this share '
            'of its friction cone (shear / (friction x normal force)).', 0.01, 10.0,
            read_only=True),
    Setting('incipient_slip.cop_speed', 0.05, "incipient_slip also fires when a pad's "
            'centre of pressure moves this fast, m/s (0 = off).', 0.0, 100.0,
            read_only=True),
    Setting('incipient_slip.vibration', 0.0, "incipient_slip also fires when a pad's "
            'high-passed normal force reaches this share of it (0 = off).', 0.0, 100.0,
            read_only=True),
    Setting('incipient_slip.slip_speed', 0.0, "incipient_slip also fires when a sensor's "
            'slip channel reads this sliding speed, m/s (0 = off; simulated pads with slip '
            'on).', 0.0, 100.0, read_only=True),
    Setting('incipient_slip.min_force', 0.5, 'incipient_slip watches a pad pressed with at '
            'least this normal force, N.', 1e-6, 1e4, read_only=True),
    Setting('incipient_slip.high_pass', 0.02, "Time constant of the vibration cue's low-pass, "
            's.', 1e-4, 10.0, read_only=True),
    Setting('incipient_slip.stall', 0.0, "incipient_slip also fires when a pad's shear "
            'ratio, having risen, stops rising: this share of its expected rise over the '
            'last 20 ms missing (0 = off; needs no friction coefficient).', 0.0, 10.0,
            read_only=True),
    Setting('incipient_slip.stall_rise', 0.1, 'The stall cue watches a pad whose shear ratio '
            'rose at least this much since it was loaded.', 0.0, 10.0, read_only=True),
    Setting('incipient_slip.stall_window', 0.1, 'The stall cue: how long the shear ratio '
            'must have been rising, s.', 0.021, 10.0, read_only=True),
    Setting('incipient_slip.settle', 0.2, 'incipient_slip watches a pad once it has been '
            "loaded this long, s (the close's impact is no slip).", 0.0, 60.0,
            read_only=True),
    Setting('incipient_slip.cop_window', 0.02, 'Time constant of the low-pass of the centre '
            "of pressure's velocity, s (0 = none): a centre of pressure that jitters between "
            'contacts averages out, one that drifts does not.', 0.0, 10.0, read_only=True),
)
#: How the monitor reads its inputs as a real robot gives them: each sets the
#: ``InputsConfig`` field of its name (docs/realism.md, "Detectors").
INPUT_SETTINGS = (
    Setting('tare_time', 0.1, "Taxels only: each pad's zero and noise are learned over this "
            'much of its first readings, and again at each trial start and ~/tare (the pad '
            'reads 0 meanwhile), s (0 = no tare).', 0.0, 60.0, read_only=True),
    Setting('taxel_deadband', 0.0, 'Taxels only: least noise floor of a taxel, N; a taxel '
            'within its floor of its zero reads 0.', 0.0, 1e3, read_only=True),
    Setting('deadband_sigmas', 3.0, "Taxels only: a taxel's noise floor in units of the "
            'noise learned at the tare.', 0.0, 100.0, read_only=True),
    Setting('zero_tracking', 0.25, 'Taxels only: time constant with which an unloaded '
            "taxel's zero (within 3 noise floors) follows slow drift, s (0 = never).", 0.0,
            3600.0, read_only=True),
    Setting('contact_release', 0.5, 'Taxels only: a pad in contact is free again below this '
            'share of contact_force (hysteresis; 1 = none).', 0.01, 1.0, read_only=True),
    Setting('finger_still_window', 0.05, "Without ground truth: a finger's speed is the "
            'spread of its reported positions over this window, s (0 = its reported '
            'velocity; a finger without positions: always its velocity).', 0.0, 10.0,
            read_only=True),
)
#: The settings alone, in order.
MONITOR_SETTINGS = SETTINGS + INPUT_SETTINGS


def default(field: str) -> Any:
    """Return the default of the setting that sets MonitorConfig field ``field``."""
    return next(setting.default for setting in SETTINGS if field_name(setting) == field)


def config_fields(values: Any) -> dict[str, Any]:
    """Return the MonitorConfig fields that setting values ``values`` (by field) give."""
    return {field_name(setting): getattr(values, field_name(setting)) for setting in SETTINGS}


def input_fields(values: Any) -> dict[str, Any]:
    """Return the InputsConfig fields of ``INPUT_SETTINGS`` that ``values`` (by field) give."""
    return {field_name(setting): getattr(values, field_name(setting))
            for setting in INPUT_SETTINGS}


def input_default(field: str) -> Any:
    """Return the default of the setting that sets InputsConfig field ``field``."""
    return next(setting.default for setting in INPUT_SETTINGS if field_name(setting) == field)
