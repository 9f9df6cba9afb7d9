"""Taxel layouts of a generic tactile driver: positions, the size check, forces."""

import math

from grasp_monitor.core.errors import CommandError, ConfigError
from grasp_monitor.core.tactile.taxel_grid import grid_positions, TaxelLayout
import numpy as np
import pytest


def test_a_grid_is_centred_row_major_in_the_pad_plane():
    # 2 rows x 3 columns at 10 mm: columns along x at -10, 0, 10 mm; rows along y at -5, 5.
    positions = grid_positions(2, 3, 0.01)
    expected = [[-0.01, -0.005, 0.0], [0.0, -0.005, 0.0], [0.01, -0.005, 0.0],
                [-0.01, 0.005, 0.0], [0.0, 0.005, 0.0], [0.01, 0.005, 0.0]]
    np.testing.assert_allclose(positions, expected, atol=1e-15)


def test_a_one_by_one_grid_is_one_taxel_at_the_origin():
    assert grid_positions(1, 1, 0.004).tolist() == [[0.0, 0.0, 0.0]]


def test_scalar_values_become_normal_forces_one_per_taxel():
    layout = TaxelLayout.grid(2, 2, 0.005)
    assert layout.taxels == 4 and layout.array_size == 4
    forces = layout.forces(np.array([0.5, 0.0, 1.25, 2.0], np.float32))
    assert forces.shape == (4, 1) and forces[:, 0].tolist() == [0.5, 0.0, 1.25, 2.0]


def test_three_values_per_taxel_are_force_vectors_and_scale_applies():
    layout = TaxelLayout.from_flat([0, 0, 0, 0.01, 0, 0], values_per_taxel=3, scale_n=0.5)
    assert layout.taxels == 2 and layout.array_size == 6
    np.testing.assert_array_equal(layout.positions_in_pad, [[0, 0, 0], [0.01, 0, 0]])
    forces = layout.forces([1, 2, 3, 4, 5, 6])
    assert forces.tolist() == [[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]]


def test_an_array_of_the_wrong_size_is_refused_with_the_expected_size():
    layout = TaxelLayout.grid(2, 3, 0.01, values_per_taxel=3)
    with pytest.raises(CommandError) as error:
        layout.forces(np.zeros(17))
    assert str(error.value) == ('tactile array has 17 values, the layout expects 18 '
                                '(6 taxels x 3)')
    assert error.value.kind == 'wrong_length'


def test_a_non_finite_value_is_refused():
    layout = TaxelLayout.grid(1, 3, 0.01)
    with pytest.raises(CommandError) as error:
        layout.forces([0.0, math.inf, math.nan])
    assert str(error.value) == 'tactile array has 2 non-finite values (first at index 1)'
    assert error.value.kind == 'not_finite'


def test_the_layout_is_frozen_and_its_positions_read_only():
    layout = TaxelLayout.grid(1, 2, 0.01)
    with pytest.raises(AttributeError):
        layout.values_per_taxel = 3
    with pytest.raises(ValueError):
        layout.positions_in_pad[0, 0] = 1.0


@pytest.mark.parametrize('make, message', [
    (lambda: grid_positions(0, 3, 0.01), 'rows must be an integer >= 1, got 0'),
    (lambda: grid_positions(2, 2.5, 0.01), 'cols must be an integer >= 1, got 2.5'),
    (lambda: grid_positions(2, 2, 0.0), 'pitch_m must be a finite number > 0, got 0.0'),
    (lambda: grid_positions(2, 2, math.nan), 'pitch_m must be a finite number > 0, got nan'),
    (lambda: TaxelLayout.from_flat([0.0, 0.0]),
     'taxel positions must hold x, y, z of each taxel: a multiple of 3 values, got 2'),
    (lambda: TaxelLayout.from_flat([]),
     'taxel positions must hold x, y, z of each taxel: a multiple of 3 values, got 0'),
    (lambda: TaxelLayout.from_flat([0.0, math.inf, 0.0]), 'taxel positions must be finite'),
    (lambda: TaxelLayout(np.zeros((0, 3))), 'a taxel layout needs at least one taxel'),
    (lambda: TaxelLayout(np.zeros((2, 2))),
     'positions_in_pad must have shape (-1, 3), got (2, 2)'),
    (lambda: TaxelLayout.grid(2, 2, 0.01, values_per_taxel=2),
     'values_per_taxel must be 1 (normal force) or 3 (fx fy fz), got 2'),
    (lambda: TaxelLayout.grid(2, 2, 0.01, values_per_taxel=True),
     'values_per_taxel must be 1 (normal force) or 3 (fx fy fz), got True'),
    (lambda: TaxelLayout.grid(2, 2, 0.01, scale_n=-1.0),
     'scale_n must be a finite number > 0, got -1.0'),
])
def test_a_bad_layout_is_refused_with_what_is_valid(make, message):
    with pytest.raises(ConfigError) as error:
        make()
    assert str(error.value) == message
