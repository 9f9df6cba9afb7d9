"""The realism model's settings: a preset, a seed, and an override per field.

An override left at -1 (for ``differentiate``, at ``preset``) takes the
preset's value; ``realism_configs`` resolves them into the two configurations,
``tactile_models`` and ``joint_model`` make the models the nodes and the
offline run feed (each pad and the joints on their own stream of the seed).
"""

from __future__ import annotations

from dataclasses import fields, replace
import difflib
import math
from typing import Any, Mapping, Sequence

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.realism.checks import MAX_SEED
from grasp_monitor.core.realism.joints import JointRealism, JointRealismConfig
from grasp_monitor.core.realism.presets import PRESET_NAMES, PRESETS
from grasp_monitor.core.realism.tactile import TactileRealism, TactileRealismConfig
from grasp_monitor.core.settings import Setting
import numpy as np
import numpy.typing as npt

PREFIX = 'realism.'
#: The value of an override that keeps the preset's (a number's; a bool's is ``preset``).
FROM_PRESET = -1
BOOL_CHOICES = ('preset', 'true', 'false')

_TACTILE = {
    'noise_n': ('Per-taxel white Gaussian noise, std per force component, N.', math.inf),
    'offset_n': ('Per-taxel constant offset, std of its draw, N.', math.inf),
    'drift_n_per_s': ('Per-taxel drift rate (linear in time), std of its draw, N/s.',
                      math.inf),
    'gain_error': ('Per-taxel relative gain error, std (gain 1 + e drawn once).', 0.5),
    'hysteresis': ('Hysteresis loop width as a share of full_scale_n.', 1.0),
    'full_scale_n': ('Saturation: each force component clamped to +-this, N.', math.inf),
    'bits': ('ADC resolution over [-full_scale_n, full_scale_n]; 0: none.', 32),
    'dead_fraction': ('Share of taxels that read 0.', 1.0),
    'stuck_fraction': ('Share of taxels stuck at a value drawn within the range.', 1.0),
    'crosstalk': ("Share of each neighbour's force added to a taxel.", 1.0),
    'drop_rate': ('Probability a tactile frame is not delivered.', 1.0),
    'latency_s': ('A tactile frame carries the reading of this long before, s.', math.inf),
}
_JOINTS = {
    'resolution': ('Encoder quantum, joint units (m or rad); 0: exact.', math.inf),
    'velocity_noise': ('Gaussian std added to the reported velocity, units/s.', math.inf),
    'backlash': ('Play width between motor and finger, joint units.', math.inf),
    'differentiate': ('Velocity from differenced reported positions, not the true one.',
                      None),
    'latency_s': ('A joint state carries the reading of this long before, s.', math.inf),
    'drop_rate': ('Probability a joint state frame is not delivered.', 1.0),
}


def _override(group: str, name: str, text: str, high: float | None) -> Setting:
    full = f'{PREFIX}{group}.{name}'
    if high is None:
        return Setting(full, 'preset', f"{text} 'preset': the preset's.", choices=BOOL_CHOICES,
                       read_only=True)
    if name == 'bits':
        return Setting(full, FROM_PRESET, f"{text} -1: the preset's.", FROM_PRESET, int(high),
                       read_only=True)
    return Setting(full, float(FROM_PRESET), f"{text} -1: the preset's.", float(FROM_PRESET),
                   high, read_only=True)


#: Every realism setting: the preset, the seed, then one override per field.
REALISM_SETTINGS: tuple[Setting, ...] = (
    Setting(f'{PREFIX}preset', 'ideal', 'Sensor imperfections (docs/realism.md): ideal is '
            'exact.', choices=PRESET_NAMES, read_only=True),
    Setting(f'{PREFIX}seed', 0, 'Seed of the realism draws; each pad and the joints get '
            'their own from it (stream_seed).', 0, MAX_SEED, read_only=True),
) + tuple(_override('tactile', name, *spec) for name, spec in _TACTILE.items()) \
  + tuple(_override('joints', name, *spec) for name, spec in _JOINTS.items())
#: Each realism setting by name.
BY_NAME = {setting.name: setting for setting in REALISM_SETTINGS}
#: What a tactile array's node declares: the preset, the seed and the ``tactile`` overrides.
TACTILE_REALISM_SETTINGS = tuple(s for s in REALISM_SETTINGS
                                 if not s.name.startswith(f'{PREFIX}joints.'))
#: What a joint states' node declares: the preset, the seed and the ``joints`` overrides.
JOINT_REALISM_SETTINGS = tuple(s for s in REALISM_SETTINGS
                               if not s.name.startswith(f'{PREFIX}tactile.'))


def _resolve(config: Any, group: str, values: Mapping[str, Any]) -> Any:
    changes = {}
    for field in fields(config):
        name = f'{PREFIX}{group}.{field.name}'
        value = values[name]
        if value == 'preset' or (not isinstance(value, str) and value == FROM_PRESET):
            continue
        changes[field.name] = value == 'true' if isinstance(value, str) else value
    return replace(config, **changes)


def realism_configs(
        values: Mapping[str, Any]) -> tuple[TactileRealismConfig, JointRealismConfig]:
    """Resolve a preset and overrides into the tactile and joint configurations.

    Args:
        values: setting name -> value; names not starting ``realism.`` are
            ignored, a missing realism setting takes its default.

    Raises:
        ConfigError: an unknown realism name (with the closest), a value a
            setting refuses, or a configuration the overrides make invalid.
    """
    checked = {name: setting.default for name, setting in BY_NAME.items()}
    for name, value in values.items():
        if not name.startswith(PREFIX):
            continue
        if name not in BY_NAME:
            close = difflib.get_close_matches(name, list(BY_NAME), n=1)
            hint = f'; did you mean {close[0]!r}?' if close else ''
            raise ConfigError(f'unknown realism setting {name!r}{hint}')
        checked[name] = BY_NAME[name].check(value)
    tactile, joints = PRESETS[checked[f'{PREFIX}preset']]
    return _resolve(tactile, 'tactile', checked), _resolve(joints, 'joints', checked)


def stream_seed(seed: int, stream: str) -> int:
    """Return the seed of one stream (a pad's name, ``joints``) derived from ``seed``.

    Different streams get independent draws; the same seed and stream, the same.
    """
    key = [int(byte) for byte in stream.encode()]
    state = np.random.SeedSequence([seed, len(key), *key]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def tactile_models(config: TactileRealismConfig,
                   pads: Sequence[tuple[str, npt.ArrayLike]], sample_period_s: float,
                   seed: int) -> list[TactileRealism] | None:
    """Return a model per pad, each on its own stream of ``seed``; None when ideal.

    Args:
        config: the arrays' imperfections.
        pads: per pad, its name (its stream) and its (N, 3) taxel positions, m.
        sample_period_s: time between two frames of a pad, s.
        seed: the ``realism.seed`` setting.
    """
    if config.is_ideal:  # exact: nothing to run, the readings go out as they are
        return None
    return [TactileRealism(config, positions, sample_period_s, stream_seed(seed, name))
            for name, positions in pads]


def joint_model(config: JointRealismConfig, joints: int, sample_period_s: float,
                seed: int) -> JointRealism | None:
    """Return the encoders' model of ``joints`` joints (stream ``joints``); None when ideal."""
    if config.is_ideal:
        return None
    return JointRealism(config, joints, sample_period_s, stream_seed(seed, 'joints'))
