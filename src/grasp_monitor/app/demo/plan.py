"""What a scenario's parameter file makes of the demo's graph: nodes, pads, joints, topics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grasp_monitor.app.scenario_config import check_energy_step, ScenarioConfig
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes.mujoco_sim_parameters import scenario_params, scene_settings
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.paced_loop import RunConfig
from grasp_monitor.sim.scenes import build_scene


#: Nodes the demo can start, each as ``python -m grasp_monitor.nodes.<name>``.
GRAPH_NODES = ('mujoco_sim', 'grasp_monitor', 'grasp_metrics', 'grasp_controller')


@dataclass(frozen=True)
class GraphPlan:
    """What the parameter file makes of the graph: nodes, pads, joints, topics.

    Attributes:
        params_file: the parameter file every process gets.
        scenario: the simulator's scenario.
        nodes: the graph's node processes to start, in order.
        pads: tactile pads.
        finger_joints: joints drawn as finger positions.
        tracked_bodies: bodies with ``ground_truth/<body>``.
        tactile_every: simulator ticks per tactile cloud.
        hosted_controller: the simulator hosts the grasp controller (in lockstep).
        monitor_verdicts: the simulator takes the monitor's verdicts.
    """

    params_file: Path
    scenario: str
    nodes: tuple[str, ...]
    pads: tuple[str, ...]
    finger_joints: tuple[str, ...]
    tracked_bodies: tuple[str, ...]
    tactile_every: int
    hosted_controller: bool = False
    monitor_verdicts: bool = False

    @property
    def has_controller(self) -> bool:
        """Whether a grasp controller drives the trial."""
        return self.hosted_controller or 'grasp_controller' in self.nodes

    @classmethod
    def from_file(cls, params_file: Path) -> GraphPlan:
        """Read the plan from a parameter file keyed by node name.

        Raises:
            ConfigError: the file does not parse or lacks a needed node.
        """
        config = ScenarioConfig.from_file(params_file)
        given = config.given
        for node in ('mujoco_sim', 'grasp_monitor', 'grasp_metrics'):
            if node not in given:
                raise ConfigError(f'{params_file} has no {node} parameters')
        sim = config.node('mujoco_sim')
        scene = build_scene(sim['scenario'], scene_settings(sim), **scenario_params(sim))
        simulator = Simulator(scene)  # its tracked bodies and step, exactly as the node has them
        check_energy_step(config, simulator.timestep_s)
        tick_s = RunConfig(sim['publish_rate']).steps_per_tick(simulator.timestep_s) \
            * simulator.timestep_s
        tactile = config.node('tactile_sensor') | {'pads': list(scene.pads)} \
            | dict(given.get('tactile_sensor', {}))
        every = max(1, round(1.0 / tick_s / tactile['publish_rate']))  # as tactile_sensor does
        monitor = config.node('grasp_monitor')
        hosted = bool(sim['controller'])
        return cls(
            Path(params_file), sim['scenario'],
            tuple(n for n in GRAPH_NODES if n in given
                  and not (hosted and n == 'grasp_controller')),
            tuple(tactile['pads']) if sim['tactile'] else (), tuple(monitor['finger_joints']),
            tuple(simulator.tracked_bodies), every, hosted, bool(sim['monitor']))

    def published_per_tick(self) -> dict[str, int]:
        """Return each simulator topic with the ticks per message."""
        topics = {'/clock': 1, '/joint_states': 1}
        topics.update({f'/ground_truth/{body}': 1 for body in self.tracked_bodies})
        topics.update({f'/tactile/{pad}': self.tactile_every for pad in self.pads})
        return topics
