"""``grasp-monitor tactile-plot``: valid PNGs of the layout and of the forces at the grasp."""

import math

from grasp_monitor.cli import main
from grasp_monitor.core.errors import ConfigError, SimulationError
from grasp_monitor.sim.scenario_run import default_drive
from grasp_monitor.sim.scenes import build_scene
from grasp_monitor.sim.tactile_plot import snapshot_at_grasp, tactile_plots
import matplotlib.image
import numpy as np
import pytest

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'


def test_the_command_writes_a_layout_and_a_force_png_per_pad(tmp_path, capsys):
    assert main(['tactile-plot', '--output-dir', str(tmp_path), '--pad', 'finger_left']) == 0
    lines = capsys.readouterr().out.splitlines()
    grasp_s = float(lines[0].split()[4])
    # approach 1 s, then the fingers close; the dwell is 0.2 s
    assert lines[0].startswith('grasp at t = ') and 1.2 < grasp_s < 1.6, lines[0]
    assert lines[1:] == [str(tmp_path / 'finger_left_layout.png'),
                         str(tmp_path / 'finger_left_forces.png')]
    for name in ('finger_left_layout.png', 'finger_left_forces.png'):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == PNG_SIGNATURE
        width, height = int.from_bytes(data[16:20], 'big'), int.from_bytes(data[20:24], 'big')
        image = matplotlib.image.imread(tmp_path / name)
        assert image.shape == (height, width, 4) and width >= 700 and height >= 600
        # a drawing, not a blank page: many distinct colours
        assert len(np.unique(image.reshape(-1, 4), axis=0)) > 100


def test_the_snapshot_holds_the_grip_on_the_inner_faces():
    snapshot = snapshot_at_grasp('pick_lift', dwell_s=0.2)
    reading = snapshot.reading
    left, right = reading.total_force_in_pad
    # each finger pushes with the script's force at that time (still rising to 10 N at
    # the grasp); the pads' y axes face each other
    scene = build_scene('pick_lift')
    grip_n = default_drive(scene)(reading.time_s).feedforward_torque[1]
    assert 2.0 < grip_n < 10.0
    assert math.isclose(left[1], grip_n, rel_tol=0.02) and math.isclose(right[1], -grip_n,
                                                                        rel_tol=0.02)
    for values, total in zip(reading.values, reading.total_force_in_pad):
        np.testing.assert_allclose(values.sum(axis=0), total, atol=1e-9)  # spread conserves
    assert [len(pad.layout) for pad in snapshot.arrays.pads] == [320, 320]


def test_no_grasp_and_world_frame_touch_are_refused(tmp_path):
    with pytest.raises(SimulationError, match=r'^no grasp in the first 0.5 s of pick_lift: '):
        snapshot_at_grasp('pick_lift', duration_s=0.5)
    with pytest.raises(ConfigError, match='touch force_vector_global is in the world frame'):
        tactile_plots(tmp_path, touch='force_vector_global')
    assert main(['tactile-plot', '--output-dir', str(tmp_path), '--pad', 'thumb']) == 2
    assert not any(tmp_path.iterdir())
