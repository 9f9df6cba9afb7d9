"""The block stepper's check that every recorded value is finite."""

from grasp_monitor.sim.offline.block_stepper import _NON_FINITE
import numpy as np
import pytest


@pytest.mark.parametrize('value', [np.inf, -np.inf, np.nan, -np.nan, 1.7976931348623157e308,
                                   -1.7976931348623157e308, 5e-324, -0.0, 0.0, 1.0])
@pytest.mark.parametrize('row, column', [(0, 0), (3, 17), (4, 900)])
def test_rows_count_inf_and_nan_as_np_isfinite_finds_them(value, row, column):
    record = np.random.default_rng(row).normal(size=(5, 901)) * 1e300
    record[row, column] = value
    non_finite = _NON_FINITE(record[:row + 1].view(np.uint64))
    assert non_finite == np.count_nonzero(~np.isfinite(record[:row + 1]))
    assert (non_finite == 0) == np.isfinite(record[:row + 1]).all()
