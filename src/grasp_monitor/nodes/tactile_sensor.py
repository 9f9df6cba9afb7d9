"""The ``tactile_sensor`` node: tactile arrays of the simulator's pads, in its process."""

from __future__ import annotations

import dataclasses
import math

from grasp_monitor.core.errors import GraspMonitorError
from grasp_monitor.core.realism import realism_configs, tactile_models
from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.conversions.serialized import TactileBytes
from grasp_monitor.nodes.interfaces import publishes
from grasp_monitor.nodes.params import declare
from grasp_monitor.nodes.qos import sensor_qos
from grasp_monitor.nodes.tactile_sensor_parameters import PARAMETERS, PER_PAD
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import SimRunner
from grasp_monitor.sim.sensors import pad_specs, SimTactileArrays
from rclpy.node import Node
from sensor_msgs.msg import PointCloud2
from visualization_msgs.msg import MarkerArray


INTERFACES = (
    publishes('tactile/<pad>', 'sensor_msgs/msg/PointCloud2', 'sensor',
              'float32 x y z fx fy fz per taxel in the pad frame, N, at `publish_rate`; '
              'a pad with `slip` on adds vx vy vz, its slip, m/s'),
    publishes('tactile/markers', 'visualization_msgs/msg/MarkerArray', 'default',
              'taxels as spheres sized and coloured by force, at `markers_rate`'),
)


class TactileSensorNode(Node):
    """Publish the tactile arrays of a simulator's pads, computed on its ticks.

    Hosted in the simulator's process and sharing its MuJoCo data: constructed
    with the running ``SimRunner`` (keyword ``runner``), it computes every pad
    from one extraction of the contacts inside every k-th runner tick, on the
    runner's thread with its lock held, so all pads see the same physics state.

    Clouds are stamped with simulated time; a ``normal`` pad reports fz only. Each pad's
    cloud is as a real array reports it (``realism.*``, ``core.realism``: a dropped frame
    is not published; ideal by default).
    Parameters: ``tactile_sensor_parameters.PARAMETERS``; topics: ``INTERFACES``.
    """

    def __init__(self, *, runner: SimRunner, **kwargs) -> None:
        super().__init__('tactile_sensor', **kwargs)
        scene_pads = list(runner.sim.scene.pads)
        specs = tuple(dataclasses.replace(s, default=scene_pads)
                      if s.name == 'pads' and scene_pads else s for s in PARAMETERS)
        p = declare(self, specs)
        pads = pad_specs(p.pads, p.bodies, PAD_FRAME_TOUCH_FUNCTIONS,
                         **{key: getattr(p, key) for key in PER_PAD})
        with runner.lock:
            self.arrays = SimTactileArrays(runner.sim, pads)
        tick_rate_hz = 1.0 / (runner.steps_per_tick * runner.sim.timestep_s)
        self.every = max(1, round(tick_rate_hz / p.publish_rate))
        # what a real array reports (None: ideal, the forces as they are)
        self.realism = tactile_models(
            realism_configs(p.by_name())[0],
            [(s.name, pad.positions_in_pad) for s, pad in zip(pads, self.arrays.pads)],
            self.every / tick_rate_hz, p.realism_seed)
        self.realism_s = -math.inf  # the last frame's time: a reset starts the models over
        self.markers_full_scale = p.markers_full_scale
        self.runner = runner
        self.latest = None
        self.failures = 0
        qos = sensor_qos(p.qos_best_effort, p.qos_depth)
        self.cloud_pubs = [self.create_publisher(PointCloud2, f'tactile/{pad.name}', qos)
                           for pad in pads]
        self.cloud_bytes = [TactileBytes(spec.body) for spec in self.arrays.specs]
        self.marker_pub = self.create_publisher(MarkerArray, 'tactile/markers', 10)
        if p.markers_rate > 0:
            self.create_timer(1.0 / p.markers_rate, self._publish_markers)
        taxels = ', '.join(f'{spec.name} {len(pad.layout)}'
                           for spec, pad in zip(pads, self.arrays.pads))
        self.get_logger().info(f'taxels: {taxels}; at {tick_rate_hz / self.every:g} Hz, '
                               f'every {self.every} simulator ticks')
        runner.add_tick_callback(self._on_tick)

    def _on_tick(self, sim: Simulator) -> None:
        if not self.runner.on_grid(self.every):
            return
        try:
            reading = self.arrays.compute()
        except GraspMonitorError as error:  # a diverged state: skip it, live on
            self.failures += 1
            self.get_logger().error(f'tactile sample skipped: {error}',
                                    throttle_duration_sec=1.0)
            return
        slip = reading.slip or (None,) * len(reading.values)
        values, kept = self._realistic(reading)
        for publisher, cloud, pad, pad_values, pad_slip, sent in zip(
                self.cloud_pubs, self.cloud_bytes, self.arrays.pads, values, slip, kept):
            if sent:
                publisher.publish(cloud(pad.positions_in_pad, pad_values, reading.time_s,
                                        pad_slip))
        self.latest = reading

    def _realistic(self, reading) -> tuple[list, list]:
        """Return each pad's values as its array reports them, and whether its frame goes."""
        if self.realism is None:
            return reading.values, [True] * len(reading.values)
        if reading.time_s < self.realism_s:  # a reset: the same sensors from time 0
            for model in self.realism:
                model.reset()
        self.realism_s = reading.time_s
        frames = [model.apply(values[None]) for model, values in zip(self.realism,
                                                                     reading.values)]
        return [values[0] for values, _ in frames], [bool(kept[0]) for _, kept in frames]

    def _publish_markers(self) -> None:
        reading = self.latest
        if reading is None:
            return
        self.marker_pub.publish(conversions.tactile_markers_to_msg(
            [(spec.name, spec.body, pad.positions_in_pad, values, pad.layout.resolution_m)
             for spec, pad, values in zip(self.arrays.specs, self.arrays.pads, reading.values)],
            reading.time_s, self.markers_full_scale))

    def destroy_node(self) -> None:
        """Leave the simulator's ticks before the node goes."""
        self.runner.remove_tick_callback(self._on_tick)
        super().destroy_node()
