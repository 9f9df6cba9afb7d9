"""The tactile_adapter node over real rclpy and DDS: driver arrays in, tactile clouds out."""

from common import NAMESPACE, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.tactile_adapter import TactileAdapterNode
import numpy as np
import pytest
from rclpy.parameter import Parameter
from sensor_msgs.msg import PointCloud2
from std_msgs.msg import Float32MultiArray

# 2 rows x 3 columns at 10 mm, row-major: columns along x, rows along y, centred.
GRID = {'grid.rows': 2, 'grid.cols': 3, 'grid.pitch_m': 0.01}
GRID_POSITIONS = [[-0.01, -0.005, 0.0], [0.0, -0.005, 0.0], [0.01, -0.005, 0.0],
                  [-0.01, 0.005, 0.0], [0.0, 0.005, 0.0], [0.01, 0.005, 0.0]]
PROBE = [0.5] * 6


def start_adapter(ros, **overrides):
    params = {'pad': 'finger_left', 'input_topic': 'driver/taxels'} | GRID | overrides
    return ros.add(TactileAdapterNode(
        context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()]))


class Driver:
    """A scripted tactile driver and a client of the pad's cloud and the diagnostics."""

    def __init__(self, ros, pad='finger_left'):
        self.node = ros.client()
        self.clouds, self.diagnostics = [], []
        self.node.create_subscription(PointCloud2, f'tactile/{pad}', self.clouds.append, 10)
        self.node.create_subscription(DiagnosticArray, '/diagnostics', self.diagnostics.append,
                                      10)
        self.values = self.node.create_publisher(Float32MultiArray, 'driver/taxels', 10)

    def send(self, values):
        self.values.publish(Float32MultiArray(data=[float(v) for v in values]))

    def matched(self, probe=PROBE):
        """Send ``probe`` until a cloud comes back (both ends matched); return the latest."""
        count = len(self.clouds)
        return wait_for(lambda: (self.send(probe), len(self.clouds) > count)[1]) and \
            self.clouds[-1]

    def status(self, predicate, timeout_s=10.0):
        def find():
            for array in reversed(self.diagnostics):
                for status in array.status:
                    if status.name == f'{NAMESPACE}/tactile_adapter: finger_left' \
                            and predicate(status):
                        return status
            return None
        return wait_for(find, timeout_s)


def values(status):
    return {kv.key: kv.value for kv in status.values}


def fz(cloud):
    return conversions.tactile_cloud_from_msg(cloud)[1][:, 2].tolist()


def test_a_scripted_stream_becomes_clouds_on_the_grid(ros):
    start_adapter(ros)
    driver = Driver(ros)
    probe = driver.matched()
    assert probe
    assert [f.name for f in probe.fields] == ['x', 'y', 'z', 'fx', 'fy', 'fz']
    assert probe.header.frame_id == 'finger_left' and probe.width == 6
    # A stream of distinct samples (exact in float32) arrives whole and in order.
    script = [[k + 0.25 * i for i in range(6)] for k in range(1, 6)]
    start = len(driver.clouds)
    for sample in script:
        driver.send(sample)
    assert wait_for(lambda: sum(fz(c) != [0.5] * 6 for c in driver.clouds[start:]) == 5)
    received = [c for c in driver.clouds[start:] if fz(c) != [0.5] * 6]
    assert [fz(c) for c in received] == script
    for cloud in received:
        positions, forces, stamp_s = conversions.tactile_cloud_from_msg(cloud)
        np.testing.assert_allclose(positions, GRID_POSITIONS, atol=1e-9)
        assert forces[:, :2].tolist() == [[0.0, 0.0]] * 6 and stamp_s > 0


def test_arrays_of_the_wrong_size_are_refused_counted_and_good_traffic_flows(ros):
    node = start_adapter(ros)
    driver = Driver(ros)
    assert driver.matched()
    start = len(driver.clouds)
    for sample in ([1.0] * 5, [2.0] * 6, [3.0] * 7, [4.0] * 6, [float('nan')] + [5.0] * 5,
                   [6.0] * 6):
        driver.send(sample)
    assert wait_for(lambda: sum(node.refused.values()) == 3), node.refused
    assert node.refused == {'wrong_length': 2, 'not_finite': 1}
    assert wait_for(lambda: len([c for c in driver.clouds[start:] if fz(c) != PROBE]) == 3)
    assert [fz(c)[0] for c in driver.clouds[start:] if fz(c) != PROBE] == [2.0, 4.0, 6.0]
    # Counted in the diagnostics, which are OK again once a good array follows.
    status = driver.status(lambda s: values(s)['refused_arrays'] == '3'
                           and s.level == DiagnosticStatus.OK)
    assert status is not None and status.message == 'publishing'
    assert values(status)['refused.wrong_length'] == '2'
    assert values(status)['refused.not_finite'] == '1'
    assert values(status)['expected_array_size'] == '6'
    # The latest array refused: the status says why.
    driver.send([1.0] * 4)
    status = driver.status(lambda s: values(s)['refused_arrays'] == '4')
    assert status.level == DiagnosticStatus.WARN
    assert status.message == ('latest array refused: tactile array has 4 values, the layout '
                              'expects 6 (6 taxels x 1)')
    assert driver.matched([7.0] * 6) and fz(driver.clouds[-1]) == [7.0] * 6


def test_explicit_positions_and_force_vectors(ros):
    start_adapter(ros, layout='positions', positions=[0.0, 0.0, 0.0, 0.01, 0.02, 0.003],
                  values_per_taxel=3, scale=0.5, frame_id='left_pad_link')
    driver = Driver(ros)
    cloud = driver.matched([2.0, 4.0, 6.0, -2.0, 0.0, 8.0])
    assert cloud and cloud.header.frame_id == 'left_pad_link' and cloud.width == 2
    positions, forces, _ = conversions.tactile_cloud_from_msg(cloud)
    np.testing.assert_allclose(positions, [[0, 0, 0], [0.01, 0.02, 0.003]], rtol=1e-6)
    assert forces.tolist() == [[1.0, 2.0, 3.0], [-1.0, 0.0, 4.0]]


@pytest.mark.parametrize('overrides, message', [
    ({'values_per_taxel': 2}, 'values_per_taxel must be 1 (normal force) or 3 (fx fy fz), '
     'got 2'),
    ({'layout': 'positions', 'positions': [0.0, 0.0, 0.0, 0.01]},
     'taxel positions must hold x, y, z of each taxel: a multiple of 3 values, got 4'),
    ({'layout': 'hexagonal'}, "parameter 'layout' of node 'tactile_adapter' must be a string: "
     "one of grid, positions, got 'hexagonal'"),
])
def test_a_bad_layout_fails_at_construction_with_what_is_valid(ros, overrides, message):
    with pytest.raises(ConfigError) as error:
        start_adapter(ros, **overrides)
    assert str(error.value) == message
