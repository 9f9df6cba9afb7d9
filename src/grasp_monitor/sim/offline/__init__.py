"""The offline pipeline: physics, tactile on every step, monitors and energy, in blocks.

Per physics step only MuJoCo runs plus one copy of ``sensordata`` (sensors the
pipeline appends to the scene, ``sensor_layout``) into a block buffer; every block
of steps, the tactile arrays, the energy metric, the monitor's and the metrics'
samples are computed at once, vectorised (``block_evaluation``). A monitor's
command acts at its own sample, as in the lockstep graph: the block is stepped
again up to it (``block_stepper``). ``pipeline`` ties the pieces together.
"""

from grasp_monitor.sim.offline.pipeline import OfflinePipeline
from grasp_monitor.sim.offline.sensor_layout import (
    object_sensor, SensorLayout, truth_sensor, TRUTH_SENSORS, with_pipeline_sensors)
from grasp_monitor.sim.offline.values import CONTACT_FORCE_N, PipelineConfig, PipelineResult

__all__ = [
    'CONTACT_FORCE_N',
    'OfflinePipeline',
    'PipelineConfig',
    'PipelineResult',
    'SensorLayout',
    'TRUTH_SENSORS',
    'object_sensor',
    'truth_sensor',
    'with_pipeline_sensors',
]
