"""Declared parameters of the ``grasp_monitor`` node, and the monitor and inputs they make."""

from typing import Any, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.monitor import InputsConfig, MonitorConfig
from grasp_monitor.core.monitor.settings import config_fields, input_fields, MONITOR_SETTINGS
from grasp_monitor.core.setting_values import SettingValues, values_of
from grasp_monitor.core.settings import Setting
from grasp_monitor.nodes.params import COMMON

PARAMETERS = COMMON + (
    Setting('pads', ['finger_left', 'finger_right'],
            'Tactile pads (tactile/<pad>), one robot body each.', read_only=True),
    Setting('object', 'object', 'Object with ground truth (ground_truth/<object>); "" on '
            'hardware: stillness then comes from finger_joints.', read_only=True),
    Setting('contacts', 'contacts', "The simulator's contacts of the pads (PointCloud2; "
            'body names on <contacts>/bodies): a pad is in contact when it touches '
            '`object` with at least contact_force, as rostok counts contacts; "" = from '
            'the taxels, whatever the pad touches (an estimate, as on hardware).',
            read_only=True),
    Setting('finger_joints', ['finger_left', 'finger_right'],
            'Joints whose speeds show a still grasp without ground truth.', read_only=True),
    Setting('rate', 100.0, 'Samples at the input stamps k / rate, Hz.', 1.0, 2000.0,
            read_only=True),
    Setting('contact_force', 1e-3, 'A pad touches at this force, N: of one contact with '
            'the object (contacts), or the total of its taxels.', 1e-6, 1e3,
            read_only=True),
    Setting('max_sample_age', 0.1, 'A sample of older input, or that the clock passed by '
            'this before every input came, is stale, s.', 1e-3, 60.0, read_only=True),
    Setting('base_frame', '', "Frame on /tf the pads' distances are measured from, for "
            "flying_apart (each pad's frame is named as the pad; the simulator's: "
            'base); "" = none: no /tf, flying_apart never fires (hardware).',
            read_only=True),
    Setting('simulator', 'mujoco_sim', 'Node offering ~/external_force/start and stop '
            '("" = none, as on hardware).', read_only=True),
    Setting('event_log', 'grasp_monitor_events.jsonl', 'JSON-lines log of every event.',
            read_only=True),
) + MONITOR_SETTINGS


def monitor_config(p: Mapping[str, Any] | SettingValues,
                   auto_start: bool = False) -> MonitorConfig:
    """Return the monitor of parameter values ``p`` (the node's, or a parameter file's).

    Args:
        p: the values of ``PARAMETERS`` (``declare``), or a parameter file's by name.
        auto_start: open a trial on the first sample (offline) instead of on
            the start service (the node).

    Raises:
        ConfigError: incipient_slip with ``contacts`` (it reads the tactile clouds).
    """
    p = values_of(PARAMETERS, p)
    if 'incipient_slip' in p.events and p.contacts:
        raise ConfigError("incipient_slip reads the pads' tactile clouds: set contacts to "
                          f'"" (taxels), not {p.contacts!r}, or leave it out of events')
    return MonitorConfig(sensor_period_s=1.0 / p.rate, robot_bodies=tuple(p.pads),
                         auto_start=auto_start, **config_fields(p))


def inputs_config(p: Mapping[str, Any] | SettingValues) -> InputsConfig:
    """Return what the monitor of parameter values ``p`` listens to (the node, offline)."""
    p = values_of(PARAMETERS, p)
    return InputsConfig(
        tuple(p.pads), tuple(p.finger_joints), bool(p.object), p.contact_force,
        p.max_sample_age, 1.0 / p.rate, use_distances=bool(p.base_frame),
        contacts=bool(p.contacts), palm=p.palm,
        slip_signals='incipient_slip' in p.events,
        incipient_slip_normal_axis=p.incipient_slip_normal_axis, **input_fields(p))
