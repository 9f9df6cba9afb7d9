"""The external force test: its profiles and their validation."""

import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.force_test import ExternalForceTest
import numpy as np
import pytest


def test_sine_force_test_profile():
    test = ExternalForceTest()
    mass_kg = 0.2
    # ω = 0.5 rad/s: sin(0.5 π) = 1 at τ = π s; amplitude 100 N/kg × 0.2 kg = 20 N; offset 1 N.
    np.testing.assert_allclose(test.force_in_world(math.pi, mass_kg), [0, 0, 21.0])
    np.testing.assert_allclose(test.force_in_world(0.0, mass_kg), [0, 0, 1.0])
    np.testing.assert_allclose(test.force_in_world(3 * math.pi, mass_kg), [0, 0, -19.0])
    np.testing.assert_array_equal(test.force_in_world(-0.1, mass_kg), np.zeros(3))
    sideways = ExternalForceTest(direction_in_world=(2.0, 0.0, 0.0), offset_n=0.0)
    np.testing.assert_allclose(sideways.force_in_world(math.pi, 1.0), [100.0, 0, 0])


def test_random_force_test_profile_is_seeded_and_redrawn_every_n_steps():
    test = ExternalForceTest(profile='random', redraw_steps=10, seed=7)
    forces = np.array([test.force_in_world(0.0, 0.5, step) for step in range(25)])
    np.testing.assert_allclose(np.linalg.norm(forces, axis=1), 50.0)
    np.testing.assert_array_equal(forces[:10], np.repeat(forces[:1], 10, axis=0))
    assert not np.allclose(forces[9], forces[10]) and not np.allclose(forces[19], forces[20])
    again = ExternalForceTest(profile='random', redraw_steps=10, seed=7)
    np.testing.assert_array_equal(again.force_in_world(0.0, 0.5, 13), forces[13])
    other = ExternalForceTest(profile='random', redraw_steps=10, seed=8)
    assert not np.allclose(other.force_in_world(0.0, 0.5, 0), forces[0])


def test_force_test_configuration_is_validated():
    with pytest.raises(ConfigError) as error:
        ExternalForceTest(profile='square')
    assert str(error.value) == "profile 'square' is not one of sine, random"
    with pytest.raises(ConfigError) as error:
        ExternalForceTest(direction_in_world=(0.0, 0.0, 0.0))
    assert str(error.value) == (
        'direction_in_world must be a finite non-zero 3-vector, got [0.0, 0.0, 0.0]')
    with pytest.raises(ConfigError) as error:
        ExternalForceTest().force_in_world(1.0, 0.0)
    assert str(error.value) == 'object_mass_kg must be finite and > 0, got 0.0'
