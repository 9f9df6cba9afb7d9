"""Sensor noise statistics and the plugin registry (parameters, entry points, listing)."""

import math
import sys
import textwrap

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.noise import NoiseConfig, NoiseModel
from grasp_monitor.core.plugins import describe_plugins, PluginRegistry, PluginType, REGISTRY
from grasp_monitor.core.settings import Setting
import numpy as np
import pytest

SAMPLES = 200_000


def test_gaussian_noise_has_zero_mean_and_the_range_as_standard_deviation():
    model = NoiseModel(NoiseConfig('gaussian', 0.5, seed=11))
    noisy = model.apply(np.full(SAMPLES, 3.0))
    # Standard errors: mean 0.5/sqrt(N) = 1.1e-3, std 0.5/sqrt(2N) = 7.9e-4; allow 5 of them.
    assert abs(noisy.mean() - 3.0) < 5 * 0.5 / math.sqrt(SAMPLES)
    assert abs(noisy.std() - 0.5) < 5 * 0.5 / math.sqrt(2 * SAMPLES)
    # Normal tails: 4.55 % beyond 2 sigma (binomial standard error 4.7e-4).
    assert abs(np.mean(np.abs(noisy - 3.0) > 1.0) - 0.0455) < 5 * 4.7e-4


def test_uniform_noise_stays_within_plus_minus_range():
    model = NoiseModel(NoiseConfig('uniform', 0.3, seed=5))
    noise = model.apply(np.zeros((SAMPLES // 4, 4)))
    assert noise.shape == (SAMPLES // 4, 4)
    assert noise.min() >= -0.3 and noise.max() <= 0.3
    assert noise.min() < -0.299 and noise.max() > 0.299
    # Uniform on [-a, a]: std a/sqrt(3) = 0.1732. Standard errors: mean a/sqrt(3N) = 3.9e-4;
    # std sqrt(Var(X^2) / N) / (2 sigma) = 0.258 a/sqrt(N) = 1.7e-4 (Var(X^2) = 4a^4/45).
    assert abs(noise.mean()) < 5 * 0.1732 / math.sqrt(SAMPLES)
    assert abs(noise.std() - 0.3 / math.sqrt(3)) < 5 * 0.258 * 0.3 / math.sqrt(SAMPLES)


def test_noise_is_clamped_to_the_declared_output_range():
    model = NoiseModel(NoiseConfig('gaussian', 1.0, seed=2), minimum=0.0, maximum=1.5)
    noisy = model.apply(np.zeros(SAMPLES))
    assert noisy.min() == 0.0 and noisy.max() == 1.5
    # Half the draws fall below 0 and are clamped to it; 6.68 % exceed 1.5.
    assert abs(np.mean(noisy == 0.0) - 0.5) < 5 * 0.5 / math.sqrt(SAMPLES)
    assert abs(np.mean(noisy == 1.5) - 0.0668) < 5 * 0.25 / math.sqrt(SAMPLES)
    quiet = NoiseModel(NoiseConfig(), minimum=-1.0, maximum=1.0)
    np.testing.assert_array_equal(quiet.apply([-3.0, 0.25, 2.0]), [-1.0, 0.25, 1.0])


def test_seeded_noise_repeats_and_writes_into_a_buffer():
    first = NoiseModel(NoiseConfig('uniform', 1.0, seed=9)).apply(np.zeros(5))
    buffer = np.ones(5)
    again = NoiseModel(NoiseConfig('uniform', 1.0, seed=9)).apply(np.zeros(5), out=buffer)
    assert again is buffer
    np.testing.assert_array_equal(first, buffer)
    other = NoiseModel(NoiseConfig('uniform', 1.0, seed=10)).apply(np.zeros(5))
    assert not np.array_equal(first, other)


def test_bad_noise_configuration_lists_what_is_valid():
    with pytest.raises(ConfigError) as error:
        NoiseConfig('pink')
    assert str(error.value) == "noise_type 'pink' is not one of none, gaussian, uniform"
    with pytest.raises(ConfigError, match=r'^noise_range must be a finite number >= 0, got -1'):
        NoiseConfig('gaussian', -1.0)
    with pytest.raises(ConfigError, match=r'^noise_range must be a finite number >= 0, got inf'):
        NoiseConfig('uniform', math.inf)
    with pytest.raises(ConfigError, match=r'^seed must be None or an int in \[0, \d+\], got -3'):
        NoiseConfig(seed=-3)
    with pytest.raises(ConfigError, match=r'^output range needs minimum <= maximum, got \[1.0'):
        NoiseModel(NoiseConfig(), 1.0, 0.0)


# -- registry ------------------------------------------------------------------------------

def gripper_registry():
    """Return a registry with one sensor and one motor type, no entry points."""
    registry = PluginRegistry(group='')

    @registry.register('sensor', 'thermometer', (
        Setting('rate_hz', 100.0, 'Sampling rate, Hz.', 1.0, 1000.0),
        Setting('channels', 1, 'Probes read.', 1, 8),
        Setting('units', 'celsius', 'Output unit.', choices=('celsius', 'kelvin')),
        Setting('enabled', True, 'Publish at all.'),
    ), description='A temperature probe.')
    def make_thermometer(parameters, offset=0.0):
        return dict(parameters, offset=offset)

    registry.register('motor', 'servo', (), 'A position servo.')(lambda parameters: 'servo')
    assert make_thermometer({'x': 1}) == {'x': 1, 'offset': 0.0}  # the decorator returns it
    return registry


def test_create_checks_parameters_and_fills_defaults():
    registry = gripper_registry()
    made = registry.create('sensor', {'type': 'thermometer', 'rate_hz': 50, 'units': 'kelvin'},
                           offset=2.5)
    assert made == {'rate_hz': 50.0, 'channels': 1, 'units': 'kelvin', 'enabled': True,
                    'offset': 2.5}
    assert isinstance(made['rate_hz'], float)
    assert registry.create('motor', {'type': 'servo'}) == 'servo'


@pytest.mark.parametrize('config, message', [
    ({'type': 'barometer'},
     "unknown sensor type 'barometer'; valid sensor types: thermometer"),
    ({'rate_hz': 5.0},
     "a sensor configuration needs a 'type'; valid: thermometer"),
    ({'type': 'thermometer', 'rate': 5.0},
     "unknown parameter 'rate' for sensor 'thermometer'; valid parameters: rate_hz, channels, "
     'units, enabled'),
    ({'type': 'thermometer', 'rate_hz': '5'},
     "parameter 'rate_hz' of sensor 'thermometer' must be a float, got str '5'"),
    ({'type': 'thermometer', 'rate_hz': True},
     "parameter 'rate_hz' of sensor 'thermometer' must be a float, got bool True"),
    ({'type': 'thermometer', 'rate_hz': 5000.0},
     "parameter 'rate_hz' of sensor 'thermometer' must be in [1.0, 1000.0], got 5000.0"),
    ({'type': 'thermometer', 'rate_hz': math.nan},
     "parameter 'rate_hz' of sensor 'thermometer' must be a number, got nan"),
    ({'type': 'thermometer', 'channels': 2.0},
     "parameter 'channels' of sensor 'thermometer' must be an int, got float 2.0"),
    ({'type': 'thermometer', 'channels': 9},
     "parameter 'channels' of sensor 'thermometer' must be in [1, 8], got 9"),
    ({'type': 'thermometer', 'units': 'fahrenheit'},
     "parameter 'units' of sensor 'thermometer' must be one of celsius, kelvin, "
     "got 'fahrenheit'"),
    ({'type': 'thermometer', 'enabled': 1},
     "parameter 'enabled' of sensor 'thermometer' must be a bool, got int 1"),
])
def test_bad_configurations_fail_with_the_valid_choices(config, message):
    with pytest.raises(ConfigError) as error:
        gripper_registry().create('sensor', config)
    assert str(error.value) == message


def test_bad_kinds_specs_and_duplicates_are_refused():
    registry = gripper_registry()
    with pytest.raises(ConfigError) as error:
        registry.get('actuator', 'servo')
    assert str(error.value) == "plugin kind 'actuator' is not one of sensor, motor"
    with pytest.raises(ConfigError, match=r"^sensor 'thermometer' is registered already$"):
        registry.register('sensor', 'thermometer')(lambda parameters: None)
    with pytest.raises(ConfigError) as error:
        Setting('gain', [])
    assert str(error.value) == ("parameter 'gain' has default []; its type must be one of bool, "
                                'int, float, str (or a non-empty list of one)')
    with pytest.raises(ConfigError, match=r"^bad default: parameter 'gain' must be in \[0, 1\]"):
        Setting('gain', 2.0, '', 0, 1)
    with pytest.raises(ConfigError, match=r"^parameter 'type' of sensor 'x': a plugin parameter "
                       r"is a scalar named by an identifier other than 'type'$"):
        PluginType('sensor', 'x', print, (Setting('type', 'x'),))
    with pytest.raises(ConfigError, match=r"^range of numeric parameter 'gain' must be \(low, "):
        Setting('gain', 0.0, '', 1, 0)
    with pytest.raises(ConfigError, match=r"^parameter names of sensor 'x' repeat: \['a', 'a'\]"):
        PluginType('sensor', 'x', print, (Setting('a', 0), Setting('a', 0)))


def test_describe_lists_every_type_with_its_parameters():
    assert gripper_registry().describe() == textwrap.dedent("""\
        motor servo: A position servo.
          (no parameters)
        sensor thermometer: A temperature probe.
          rate_hz: float = 100.0, in [1.0, 1000.0]. Sampling rate, Hz.
          channels: int = 1, in [1, 8]. Probes read.
          units: str = 'celsius', one of celsius, kelvin. Output unit.
          enabled: bool = True. Publish at all.""")


def test_package_registry_holds_the_tactile_array():
    text = describe_plugins()
    assert text.startswith('sensor tactile_array: ') or '\nsensor tactile_array: ' in text
    assert "  touch: str = 'force_vector', one of normal, normal_force, force_vector, " \
           'force_vector_global.' in text
    assert ('sensor', 'tactile_array') in {(p.kind, p.name) for p in REGISTRY.types()}


def test_entry_points_load_lazily_and_a_broken_one_is_reported(tmp_path, monkeypatch):
    group = 'grasp_monitor_test.plugins'
    (tmp_path / 'gm_test_plugins.py').write_text(textwrap.dedent("""\
        from grasp_monitor.core.plugins import PluginType
        from grasp_monitor.core.settings import Setting

        LOADED = []
        GRIP = PluginType('motor', 'gripper', lambda parameters: ('gripper', parameters),
                          (Setting('force_n', 10.0, 'Grip.', 0.0, 100.0),))


        def register(registry):
            LOADED.append(registry)
            registry.register('sensor', 'camera')(lambda parameters: 'camera')
        """))
    dist_info = tmp_path / 'gm_test_plugins-1.0.dist-info'
    dist_info.mkdir()
    (dist_info / 'METADATA').write_text('Metadata-Version: 2.1\nName: gm-test-plugins\n'
                                        'Version: 1.0\n')
    (dist_info / 'entry_points.txt').write_text(
        f'[{group}]\n'
        'gripper = gm_test_plugins:GRIP\n'
        'camera = gm_test_plugins:register\n'
        'broken = gm_test_missing_module:register\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = PluginRegistry(group=group)
    assert 'gm_test_plugins' not in sys.modules  # nothing loaded before the first look-up
    assert registry.create('motor', {'type': 'gripper', 'force_n': 20}) == (
        'gripper', {'force_n': 20.0})
    assert sys.modules['gm_test_plugins'].LOADED == [registry]
    assert registry.create('sensor', {'type': 'camera'}) == 'camera'
    assert registry.load_errors == (
        'broken = gm_test_missing_module:register: ModuleNotFoundError: No module named '
        "'gm_test_missing_module'",)
    assert registry.describe().endswith(
        'broken entry points (skipped):\n  broken = gm_test_missing_module:register: '
        "ModuleNotFoundError: No module named 'gm_test_missing_module'")
    monkeypatch.delitem(sys.modules, 'gm_test_plugins')
