"""The physics-engine grasp benchmark on MuJoCo, behind ``grasp-monitor benchmark``.

Named so that it is not confused with the speed benchmarks in benchmarks/. ``cases``: the
runs; ``run``: one run, scored every step; ``history``: the frame sensors' samples;
``pool``: many runs in worker processes; ``progress``: their progress bar; ``report``:
CSV and Markdown; ``plots``: the metric over time; ``presets``: named settings.
"""

from grasp_monitor.sim.frame_sensors import split_frame_sensors, with_frame_sensors
from grasp_monitor.sim.grasp_benchmark.cases import (
    BenchmarkCase, DEFAULT_CUBES, DEFAULT_FRICTIONS, industrial_arm_cases, MUJOCO_DEFAULTS,
    multi_block_cases, SCENARIOS,
)
from grasp_monitor.sim.grasp_benchmark.history import FrameHistory
from grasp_monitor.sim.grasp_benchmark.plots import plot_energy
from grasp_monitor.sim.grasp_benchmark.pool import available_cores, run_benchmark
from grasp_monitor.sim.grasp_benchmark.presets import (
    DEFAULT_PRESET, Preset, preset, preset_settings, PRESETS)
from grasp_monitor.sim.grasp_benchmark.progress import TextProgress
from grasp_monitor.sim.grasp_benchmark.report import (
    markdown_table, settings_text, write_csv, write_markdown,
)
from grasp_monitor.sim.grasp_benchmark.run import (
    BenchmarkRun, CSV_COLUMNS, run_case, steps_per_call,
)

__all__ = [
    'available_cores', 'BenchmarkCase', 'BenchmarkRun', 'CSV_COLUMNS', 'DEFAULT_CUBES',
    'DEFAULT_FRICTIONS', 'DEFAULT_PRESET', 'FrameHistory', 'industrial_arm_cases',
    'markdown_table', 'multi_block_cases', 'MUJOCO_DEFAULTS', 'plot_energy', 'preset',
    'preset_settings', 'Preset', 'PRESETS', 'run_benchmark', 'run_case', 'SCENARIOS',
    'settings_text', 'split_frame_sensors', 'steps_per_call', 'TextProgress',
    'with_frame_sensors', 'write_csv', 'write_markdown',
]
