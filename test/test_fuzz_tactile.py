"""Fuzzed tactile input against the nodes that read it, over real DDS.

Clouds (sensor_msgs/PointCloud2) go to ``grasp_monitor`` and ``grasp_metrics`` at once,
driver arrays (std_msgs/Float32MultiArray) to ``tactile_adapter``. Every message is valid
or carries one defect of a known kind; a valid marker closes each batch, and once it is
read every refusal must have been counted, by kind, exactly. The counts reach
``/diagnostics``, a refusal reaches ``/rosout`` with its reason, and valid input keeps
being read.
"""

from collections import Counter
import math

from common import (
    fuzz_settings, NAMESPACE, Observer, publish_until, start_monitor_and_metrics, status_values,
    wait_for)
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.tactile_adapter import TactileAdapterNode
from hypothesis import example, given, strategies as st
import numpy as np
from rclpy.parameter import Parameter
from sensor_msgs.msg import PointCloud2, PointField
from std_msgs.msg import Float32MultiArray

DEPTH = 1000
FUZZ = fuzz_settings(max_examples=25)
force = st.floats(-100.0, 100.0, width=32)
bad_value = st.sampled_from([math.nan, math.inf, -math.inf])


@st.composite
def clouds(draw):
    """Return (PointCloud2 of tactile/finger_left, kind refused or None)."""
    n = draw(st.integers(0, 40))
    points = np.array(draw(st.lists(st.lists(force, min_size=6, max_size=6),
                                    min_size=n, max_size=n)), np.float32).reshape(n, 6)
    defect = draw(st.sampled_from([None, None, 'field_name', 'datatype', 'offset',
                                   'point_step', 'big_endian', 'truncated', 'not_finite']))
    if defect == 'not_finite' and n:
        points[draw(st.integers(0, n - 1)), draw(st.integers(0, 5))] = draw(bad_value)
    elif defect == 'not_finite':
        defect = None
    msg = conversions.tactile_cloud_to_msg(points[:, :3], points[:, 3:], 'finger_left', 0.0)
    field = msg.fields[draw(st.integers(0, 5))]
    if defect == 'field_name':
        field.name = draw(st.sampled_from(['rgb', 'intensity', 'X', '', 'fz ']))
    elif defect == 'datatype':
        field.datatype = draw(st.sampled_from([PointField.FLOAT64, PointField.INT32,
                                               PointField.UINT8]))
    elif defect == 'offset':
        field.offset += draw(st.sampled_from([1, 4, 100]))
    elif defect == 'point_step':
        msg.point_step = draw(st.sampled_from([0, 12, 23, 25, 32]))
    elif defect == 'big_endian':
        msg.is_bigendian = True
    elif defect == 'truncated':  # or padded: the bytes disagree with the points
        cut = draw(st.integers(1, 30))
        data = bytes(msg.data)
        msg.data = data[:-cut] if len(data) >= cut else data + bytes(cut)
    kinds = {'truncated': 'wrong_length', 'not_finite': 'not_finite', None: None}
    return msg, kinds.get(defect, 'wrong_layout')


def one_cloud_of_each_kind():
    """Return a batch of a cloud of each kind refused: the draws need not hold every kind."""
    forces = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, math.nan]])
    not_finite = conversions.tactile_cloud_to_msg(np.zeros((2, 3)), forces, 'finger_left', 0.0)
    truncated, big_endian = (marker_cloud(1.0) for _ in range(2))
    truncated.data = truncated.data[:-4]
    big_endian.is_bigendian = True
    return [(not_finite, 'not_finite'), (truncated, 'wrong_length'),
            (big_endian, 'wrong_layout')]


def marker_cloud(value):
    """Return a valid cloud of two taxels whose fz totals ``value``."""
    return conversions.tactile_cloud_to_msg(
        np.zeros((2, 3)), np.array([[0.0, 0.0, value / 2]] * 2), 'finger_left', 0.0)


def test_fuzzed_clouds_are_refused_by_kind_by_the_monitor_and_the_metrics(ros, tmp_path):
    # both read the taxels: the clouds are what is fuzzed
    monitor, metrics = start_monitor_and_metrics(ros, tmp_path, DEPTH, contacts='')
    observer = Observer(ros)
    client = ros.client()
    pad = client.create_publisher(PointCloud2, 'tactile/finger_left', DEPTH)
    expected = Counter()
    markers = iter(range(1, 10**6))

    def settle():
        value = 1.0 + 0.001 * next(markers)  # exact in float32 within a few ulps

        def read_by_both():
            seen = monitor.inputs.pad_forces_n()[0]
            cloud = metrics.latest('tactile/finger_left')
            return math.isclose(seen, value, rel_tol=1e-6) and cloud is not None and \
                math.isclose(cloud[1][:, 2].sum(), value, rel_tol=1e-6)

        marker = marker_cloud(value)
        return publish_until(lambda: pad.publish(marker), read_by_both)

    assert settle()

    @FUZZ
    @example(batch=one_cloud_of_each_kind())
    @given(batch=st.lists(clouds(), min_size=1, max_size=20))
    def send(batch):
        for msg, defect in batch:
            pad.publish(msg)
            if defect:
                expected[defect] += 1
        assert settle()
        assert wait_for(lambda: monitor.refused == expected == metrics.refused, 5.0), \
            (monitor.refused, metrics.refused, expected)

    send()
    assert set(expected) == {'wrong_layout', 'wrong_length', 'not_finite'}

    def counted(status):
        values = status_values(status)
        return values.get('refused_inputs') == str(sum(expected.values())) and all(
            values.get(f'refused.{kind}') == str(n) for kind, n in expected.items())

    assert observer.status(f'{NAMESPACE}/grasp_monitor: monitor', counted)
    assert observer.status(f'{NAMESPACE}/grasp_metrics: energy', counted)
    for name in ('grasp_monitor', 'grasp_metrics'):
        assert observer.logged(name, 'dropped tactile/finger_left: ')
    assert settle()  # still reading valid clouds


@st.composite
def driver_arrays(draw, size):
    """Return (Float32MultiArray for a layout of ``size`` values, kind refused or None)."""
    defect = draw(st.sampled_from([None, None, 'wrong_length', 'not_finite']))
    length = draw(st.integers(0, 3 * size).filter(lambda k: k != size)) \
        if defect == 'wrong_length' else size
    values = draw(st.lists(force, min_size=length, max_size=length))
    if defect == 'not_finite':
        values[draw(st.integers(0, size - 1))] = draw(bad_value)
    return Float32MultiArray(data=values), defect


def test_fuzzed_driver_arrays_are_refused_by_kind_by_the_tactile_adapter(ros):
    adapter = ros.add(TactileAdapterNode(context=ros.context, parameter_overrides=[
        Parameter('input_topic', value='driver/taxels'), Parameter('grid.rows', value=2),
        Parameter('grid.cols', value=3), Parameter('values_per_taxel', value=3),
        Parameter('qos.depth', value=DEPTH)]))
    observer = Observer(ros)
    client = ros.client()
    clouds_seen = []
    client.create_subscription(PointCloud2, 'tactile/finger_left', clouds_seen.append, DEPTH)
    driver = client.create_publisher(Float32MultiArray, 'driver/taxels', DEPTH)
    expected = Counter()
    markers = iter(range(1, 10**6))

    def settle():
        value = 1.0 + 0.001 * next(markers)
        marker = Float32MultiArray(data=[0.0] * 17 + [value])

        def echoed():
            return clouds_seen and math.isclose(
                conversions.tactile_cloud_from_msg(clouds_seen[-1])[1][5, 2], value,
                rel_tol=1e-6)

        return publish_until(lambda: driver.publish(marker), echoed)

    assert settle()

    @FUZZ
    # an array of each kind refused: the draws need not hold every kind
    @example(batch=[(Float32MultiArray(data=[1.0] * 17), 'wrong_length'),
                    (Float32MultiArray(data=[1.0] * 17 + [math.inf]), 'not_finite')])
    @given(batch=st.lists(driver_arrays(18), min_size=1, max_size=20))
    def send(batch):
        for msg, defect in batch:
            driver.publish(msg)
            if defect:
                expected[defect] += 1
        assert settle()
        assert wait_for(lambda: adapter.refused == expected, 5.0), (adapter.refused, expected)

    send()
    assert set(expected) == {'wrong_length', 'not_finite'}

    def counted(status):
        values = status_values(status)
        return values.get('refused_arrays') == str(sum(expected.values())) and all(
            values.get(f'refused.{kind}') == str(n) for kind, n in expected.items())

    assert observer.status(f'{NAMESPACE}/tactile_adapter: finger_left', counted)
    assert observer.logged('tactile_adapter', 'refused tactile array: ')
    assert settle()
