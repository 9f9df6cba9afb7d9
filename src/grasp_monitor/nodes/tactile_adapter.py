"""The ``tactile_adapter`` node: a generic tactile driver's arrays as tactile clouds."""

from __future__ import annotations

from collections import Counter
import sys

from diagnostic_msgs.msg import DiagnosticArray
from grasp_monitor.core.errors import CommandError
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.diagnostics_timer import diagnostics_timer
from grasp_monitor.nodes.interfaces import diagnostics, publishes, subscribes
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.process import run_node
from grasp_monitor.nodes.qos import sensor_qos
from grasp_monitor.nodes.tactile_adapter_parameters import PARAMETERS, taxel_layout
from rclpy.node import Node
from sensor_msgs.msg import PointCloud2
from std_msgs.msg import Float32MultiArray

INTERFACES = (
    publishes('tactile/<pad>', 'sensor_msgs/msg/PointCloud2', 'sensor',
              'float32 x y z fx fy fz per taxel in the pad frame, N, stamped on arrival'),
    diagnostics('clouds published, arrays refused by kind'),
    subscribes('<input_topic>', 'std_msgs/msg/Float32MultiArray', 'sensor',
               "the driver's taxel values, layout order"),
)


class TactileAdapterNode(Node):
    """Publish a tactile driver's flat taxel arrays as a pad's tactile cloud.

    An array whose size disagrees with the layout, or holding NaN or inf, is refused
    with a throttled warning and counted.
    Parameters: ``tactile_adapter_parameters.PARAMETERS``; topics: ``INTERFACES``.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__('tactile_adapter', **kwargs)
        p = declare(self, PARAMETERS)
        self.layout = taxel_layout(p)
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
