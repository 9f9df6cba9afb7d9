"""The ``tactile_adapter`` node: a generic tactile driver's arrays as tactile clouds."""

from __future__ import annotations

from collections import Counter
import sys

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.errors import CommandError
from grasp_monitor.core.settings import Setting
from grasp_monitor.core.tactile.taxel_grid import TaxelLayout
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics import diagnostics_timer
from grasp_monitor.nodes.interfaces import diagnostics, publishes, subscribes
from grasp_monitor.nodes.params import COMMON, declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import sensor_qos
from rclpy.node import Node
from sensor_msgs.msg import PointCloud2
from std_msgs.msg import Float32MultiArray

PARAMETERS = COMMON + (
    Setting('pad', 'finger_left', 'Pad name: the cloud is published on tactile/<pad>.',
            read_only=True),
    Setting('frame_id', '', 'Frame of the cloud ("" = the pad name).', read_only=True),
    Setting('input_topic', 'taxels', "Driver's std_msgs/Float32MultiArray of taxel values.",
            read_only=True),
    Setting('layout', 'grid', 'Taxel positions from grid.* or from positions.',
            choices=('grid', 'positions'), read_only=True),
    Setting('grid.rows', 4, 'Grid rows (along the pad y axis).', 1, 100000, read_only=True),
    Setting('grid.cols', 4, 'Grid columns (along the pad x axis); values are row-major.',
            1, 100000, read_only=True),
    Setting('grid.pitch_m', 0.004, 'Grid spacing, m.', 1e-6, 1.0, read_only=True),
    Setting('positions', [0.0, 0.0, 0.0], 'layout "positions": x y z of each taxel in the '
            'pad frame, flat, m.', read_only=True),
    Setting('values_per_taxel', 1, '1: normal force along the pad +z (published as fz); '
            '3: fx fy fz in the pad frame.', 1, 3, read_only=True),
    Setting('scale', 1.0, 'Newtons per driver unit.', 1e-12, 1e12, read_only=True),
)

INTERFACES = (
    publishes('tactile/<pad>', 'sensor_msgs/msg/PointCloud2', 'sensor',
              'float32 x y z fx fy fz per taxel in the pad frame, N, stamped on arrival'),
    diagnostics('clouds published, arrays refused by kind'),
    subscribes('<input_topic>', 'std_msgs/msg/Float32MultiArray', 'sensor',
               "the driver's taxel values, layout order"),
)


class TactileAdapterNode(Node):
    """Publish a tactile driver's flat taxel arrays as a pad's tactile cloud.

    Parameters: ``PARAMETERS`` (pad, frame_id, input_topic, layout, grid.rows, grid.cols,
    grid.pitch_m, positions, values_per_taxel, scale, qos.*).
    Subscribes: ``input_topic`` (Float32MultiArray: one value, or fx fy fz, per taxel in
    layout order).
    Publishes: ``tactile/<pad>`` (PointCloud2: float32 x y z fx fy fz in the pad frame,
    stamped on arrival), ``/diagnostics`` (1 Hz: clouds published, arrays refused by
    kind). An array whose size disagrees with the layout, or holding NaN or inf, is
    refused with a throttled warning and counted.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('tactile_adapter', **kwargs)
        p = declare(self, PARAMETERS)
        if p.layout == 'grid':
            self.layout = TaxelLayout.grid(p.grid_rows, p.grid_cols, p.grid_pitch_m,
                                           p.values_per_taxel, p.scale)
        else:
            self.layout = TaxelLayout.from_flat(p.positions, p.values_per_taxel,
                                                p.scale)
        self.pad, self.frame_id = p.pad, p.frame_id or p.pad
        self.published = 0
        self.refused: Counter[str] = Counter()
        self.last_refusal = ''
        qos = sensor_qos(p.qos_best_effort, p.qos_depth)
        self.cloud_pub = self.create_publisher(PointCloud2, f'tactile/{self.pad}', qos)
        self.diag_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_subscription(Float32MultiArray, p.input_topic, self._on_values, qos)
        diagnostics_timer(self, self._publish_diagnostics)

    def _on_values(self, msg: Float32MultiArray) -> None:
        try:
            forces = self.layout.forces(msg.data)
        except CommandError as error:
            self.refused[error.kind] += 1
            self.last_refusal = str(error)
            self.get_logger().warning(f'refused tactile array: {error}',
                                      throttle_duration_sec=1.0)
            return
        self.last_refusal = ''
        self.cloud_pub.publish(conversions.tactile_cloud_to_msg(
            self.layout.positions_in_pad, forces, self.frame_id,
            self.get_clock().now().nanoseconds * 1e-9))
        self.published += 1

    def _publish_diagnostics(self) -> None:
        if self.last_refusal:
            level, message = 'WARN', f'latest array refused: {self.last_refusal}'
        elif self.published:
            level, message = 'OK', 'publishing'
        else:
            level, message = 'STALE', 'no array yet'
        values = {'taxels': self.layout.taxels, 'values_per_taxel': self.layout.values_per_taxel,
                  'expected_array_size': self.layout.array_size, 'clouds': self.published,
                  'refused_arrays': sum(self.refused.values())}
        values.update({f'refused.{kind}': count for kind, count in self.refused.items()})
        msg = DiagnosticArray()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.status = [conversions.diagnostic_status(
            f'{self.get_fully_qualified_name()}: {self.pad}', level, message, values,
            self.frame_id)]
        self.diag_pub.publish(msg)


def main(args: list[str] | None = None) -> int:
    """Run the node."""
    return run_node(TactileAdapterNode, args)


if __name__ == '__main__':
    sys.exit(main())
