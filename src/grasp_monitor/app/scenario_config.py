"""One scenario configuration: the ROS parameter file every way of running a trial reads.

``config/<scenario>.yaml`` holds the parameters of the graph's nodes, keyed by
node name. The demo and the launch files hand it to the nodes; ``grasp-monitor
run`` reads the same file here and maps each node's settings onto the offline
pipeline (``offline_run``) through the same functions the nodes build their
core objects with (``monitor_config``, ``metrics_config``, ``force_test``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
import difflib
import importlib
import math
from pathlib import Path
from typing import Any, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.nodes.params import check
import yaml

#: The graph's nodes and the module holding each one's ``PARAMETERS``.
PARAMETER_TABLES = {
    'mujoco_sim': 'grasp_monitor.nodes.mujoco_sim_parameters',
    'tactile_sensor': 'grasp_monitor.nodes.tactile_sensor_parameters',
    'grasp_monitor': 'grasp_monitor.nodes.grasp_monitor_parameters',
    'grasp_metrics': 'grasp_monitor.nodes.grasp_metrics_parameters',
    'grasp_controller': 'grasp_monitor.nodes.grasp_controller',
}
#: Declared by rclpy on every node.
IMPLICIT = ('use_sim_time',)
#: The Python type of a parameter of each ROS type (bool is no integer to ROS).
_TYPES = {'bool': bool, 'integer': int, 'double': float, 'string': str}


def default_params_file(scenario: str) -> Path:
    """Return ``config/<scenario>.yaml``: from the source tree, else the installed share.

    Raises:
        ConfigError: no such file in either place.
    """
    source = Path(__file__).resolve().parents[3] / 'config' / f'{scenario}.yaml'
    if source.is_file():
        return source
    try:
        from ament_index_python.packages import get_package_share_directory
        share = Path(get_package_share_directory('grasp_monitor')) / 'config'
    except (ImportError, LookupError, OSError):  # OSError: no AMENT_PREFIX_PATH
        share = None
    if share is not None and (share / f'{scenario}.yaml').is_file():
        return share / f'{scenario}.yaml'
    candidates = [source] + ([share / f'{scenario}.yaml'] if share else [])
    raise ConfigError(f'no parameter file for scenario {scenario!r}; looked at '
                      + ', '.join(str(p) for p in candidates))


def parameter_specs(node: str) -> dict[str, Any]:
    """Return the declared parameters (``Setting``) of a graph node, by name."""
    module = importlib.import_module(PARAMETER_TABLES[node])
    return {spec.name: spec for spec in module.PARAMETERS}


def _check(where: str, spec: Any, value: Any) -> None:
    """Refuse a value rclpy would refuse: wrong type, outside the choices or the range."""
    kind = spec.type_name.removesuffix('_array')
    array = spec.type_name.endswith('_array')
    values = value if isinstance(value, list) else [value]
    if array != isinstance(value, list) or not values or \
            any(type(v) is not _TYPES[kind] for v in values):
        raise ConfigError(f'{where}: {value!r} is not a {spec.type_name}'
                          + (' (write 1.0, not 1)' if kind == 'double' else ''))
    check(spec, value)
    if spec.low is not None and not array and not math.isnan(value) and \
            not spec.low <= value <= spec.high:
        raise ConfigError(f'{where}: {value!r} is outside [{spec.low}, {spec.high}]')


@dataclass(frozen=True)
class ScenarioConfig:
    """A scenario's parameter file, read and checked against the nodes' declarations.

    Attributes:
        params_file: the file.
        given: per graph node in the file, the values it sets.
    """

    params_file: Path
    given: Mapping[str, Mapping[str, Any]]

    @classmethod
    def from_file(cls, params_file: Path | str) -> ScenarioConfig:
        """Read ``params_file`` (keys ``<node>``, ``/<ns>/<node>`` or ``/**``).

        Raises:
            ConfigError: the file does not parse, or sets a parameter a node does
                not declare or a value it would refuse (naming what is valid).
        """
        from grasp_monitor.app.reference import parameter_file
        path = Path(params_file)
        try:
            sections = parameter_file(path)
        except (OSError, ValueError, yaml.YAMLError, AttributeError, TypeError) as error:
            raise ConfigError(f'{path}: not a ROS parameter file: {error}') from None
        given: dict[str, dict[str, Any]] = {}
        for key, values in sections.items():
            every = key == '/**'
            nodes = list(PARAMETER_TABLES) if every else [key.rstrip('/').rsplit('/', 1)[-1]]
            for node in nodes:
                if node not in PARAMETER_TABLES:
                    continue  # another node's section (recorder, hardware)
                specs = parameter_specs(node)
                for name, value in values.items():
                    if name in IMPLICIT or (every and name not in specs):
                        continue  # a '/**' key sets the nodes that declare it
                    if name not in specs:
                        match = difflib.get_close_matches(name, specs, n=1)
                        raise ConfigError(
                            f'{path}: {node} has no parameter {name!r}'
                            + (f' (did you mean {match[0]!r}?)' if match else '')
                            + f'; valid: {", ".join(specs)}')
                    _check(f'{path}: {node}.{name}', specs[name], value)
                    given.setdefault(node, {})[name] = value
        return cls(path, given)

    @classmethod
    def for_scenario(cls, scenario: str) -> ScenarioConfig:
        """Read the scenario's own file, ``config/<scenario>.yaml``."""
        return cls.from_file(default_params_file(scenario))

    def node(self, name: str) -> dict[str, Any]:
        """Return the values node ``name`` starts with: its defaults, then the file's."""
        defaults = {spec.name: spec.default for spec in parameter_specs(name).values()}
        return defaults | dict(self.given.get(name, {}))

    def with_values(self, values: Mapping[str, Any], where: str) -> ScenarioConfig:
        """Return this configuration with ``<node>.<parameter>`` values on top, each checked.

        Args:
            values: e.g. ``{'grasp_controller.grip_force': 10.0}``; an integer stands for
                a double.
            where: what the values came from, for the error message.

        Raises:
            ConfigError: an unknown node or parameter, or a value the node would refuse.
        """
        given = {node: dict(node_values) for node, node_values in self.given.items()}
        for name, value in values.items():
            node, _, parameter = name.partition('.')
            if node not in PARAMETER_TABLES:
                raise ConfigError(f'{where}: {name!r} names no node; nodes: '
                                  f'{", ".join(PARAMETER_TABLES)}')
            specs = parameter_specs(node)
            if parameter not in specs:
                match = difflib.get_close_matches(parameter, specs, n=1)
                raise ConfigError(f'{where}: {node} has no parameter {parameter!r}'
                                  + (f' (did you mean {match[0]!r}?)' if match else '')
                                  + f'; valid: {", ".join(specs)}')
            if specs[parameter].type_name == 'double' and type(value) is int:
                value = float(value)
            _check(f'{where}: {name}', specs[parameter], value)
            given.setdefault(node, {})[parameter] = value
        return ScenarioConfig(self.params_file, given)

    @property
    def scenario(self) -> str:
        """The simulator's scenario."""
        return str(self.node('mujoco_sim')['scenario'])


def check_energy_step(config: ScenarioConfig, timestep_s: float, given_only: bool = False
                      ) -> None:
    """Refuse a ``grasp_metrics`` ``energy.dt`` that is not the simulator's physics step.

    The energy's pose term scales as 1/dt: with another dt the metric is not the
    benchmark's, and the graph and the offline run would disagree.

    Args:
        config: the scenario configuration.
        timestep_s: the simulator's physics step, s.
        given_only: check only a value the file sets (the offline run takes the step
            otherwise); else the node's value, set or default (the graph's).

    Raises:
        ConfigError: naming the file, the parameter as written and the step.
    """
    if 'grasp_metrics' not in config.given or \
            (given_only and 'energy.dt' not in config.given['grasp_metrics']):
        return
    dt = config.node('grasp_metrics')['energy.dt']
    if abs(dt - timestep_s) > 1e-9 * timestep_s:
        raise ConfigError(f'{config.params_file}: grasp_metrics.energy.dt {dt!r} must be the '
                          f"simulator's physics step, {timestep_s!r} s (the energy metric's "
                          'dt); set it to that')


def offline_run(config: ScenarioConfig, settings: Mapping[str, Any] | None = None,
                params: Mapping[str, Any] | None = None
                ) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """Map a parameter file onto an offline run, as each node maps it onto its core objects.

    Args:
        config: the scenario configuration.
        settings: SimSettings overrides on top of the file's ``physics.*``.
        params: scenario parameters on top of the file's.

    Returns:
        The SimSettings overrides, the scenario parameters and the ``OfflineSetup``
        for ``run_scenario(config.scenario, ...)``.

    Raises:
        ConfigError: a setting the offline run cannot take (naming it).
    """
    from grasp_monitor.core.command_hold import CommandHold
    from grasp_monitor.nodes.grasp_controller_parameters import pick_lift_script
    from grasp_monitor.nodes.grasp_metrics_parameters import metrics_config
    from grasp_monitor.core.realism import realism_configs
    from grasp_monitor.nodes.grasp_monitor_parameters import inputs_config, monitor_config
    from grasp_monitor.nodes.mujoco_sim_parameters import (
        force_test, scenario_params, scene_settings, servo_options)
    from grasp_monitor.nodes.tactile_sensor_parameters import PER_PAD
    from grasp_monitor.sim.scenario_run import OfflineSetup
    from grasp_monitor.sim.offline import PipelineConfig
    from grasp_monitor.sim.scenes import build_scene
    from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
    from grasp_monitor.sim.sensors import pad_specs

    sim = config.node('mujoco_sim')
    settings = scene_settings(sim) | dict(settings or {})
    params = scenario_params(sim) | dict(params or {})
    scene = build_scene(config.scenario, settings, **params)
    # the energy's dt is the physics step, --set timestep_s included
    check_energy_step(config, scene.settings.timestep_s, given_only=True)
    # as the tactile node: its pads default to the scene's
    tactile = config.node('tactile_sensor') | {'pads': list(scene.pads)} \
        | dict(config.given.get('tactile_sensor', {}))
    pads = pad_specs(tactile['pads'], tactile['bodies'], PAD_FRAME_TOUCH_FUNCTIONS,
                     **{key: tactile[key] for key in PER_PAD})
    monitor = config.node('grasp_monitor')
    if list(monitor['pads']) != [pad.name for pad in pads]:
        raise ConfigError(f'{config.params_file}: grasp_monitor.pads {monitor["pads"]} must be '
                          f'the tactile pads {[pad.name for pad in pads]} in an offline run')
    if monitor['base_frame'] and monitor['base_frame'] != scene.base_body:
        raise ConfigError(f'{config.params_file}: grasp_monitor.base_frame '
                          f'{monitor["base_frame"]!r} must be the base body of {scene.name}, '
                          f'{scene.base_body!r}, in an offline run')
    metrics_node = config.node('grasp_metrics')
    if 'grasp_metrics' in config.given and \
            bool(metrics_node['contacts']) != bool(monitor['contacts']):
        raise ConfigError(f'{config.params_file}: grasp_monitor.contacts '
                          f'{monitor["contacts"]!r} and grasp_metrics.contacts '
                          f'{metrics_node["contacts"]!r} must both name the contacts or both '
                          'be "" (taxels) in an offline run')
    pipeline = PipelineConfig(
        # the simulator's ticks apply the commands and the force test
        control_rate_hz=sim['publish_rate'], sample_rate_hz=monitor['rate'],
        # the monitor asks its simulator for the test; none without one
        force_test=force_test(sim) if monitor['simulator'] or sim['force_test.start_time']
        else None,
        # the monitor asks for the test on a grasp only of a simulator it names
        force_on_grasp=bool(monitor['simulator']),
        force_test_body=sim['force_test.body'],
        force_test_start_time_s=sim['force_test.start_time'],
        contact_force_n=monitor['contact_force'],
        object_body=monitor['object'], contacts=bool(monitor['contacts']),
        motor_noise=servo_options(sim)['motor_noise'],
        # read from taxels: the node's inputs, hearing the nodes' realistic streams
        inputs=None if monitor['contacts'] else inputs_config(monitor),
        tactile_rate_hz=tactile['publish_rate'],
        tactile_realism=realism_configs(tactile)[0], joint_realism=realism_configs(sim)[1],
        tactile_seed=tactile['realism.seed'], joint_seed=sim['realism.seed'])
    drive = None
    if 'grasp_controller' in config.given:
        c = config.node('grasp_controller')
        # held between the controller's own ticks, as the hosted controller commands
        drive = CommandHold(pick_lift_script(c).command, c['rate'])
    metrics = metrics_config(metrics_node | {'energy.dt': scene.settings.timestep_s}) \
        if 'grasp_metrics' in config.given else None
    return settings, params, OfflineSetup(
        pipeline, pads, monitor_config(monitor, auto_start=True), metrics, drive,
        str(config.params_file))
