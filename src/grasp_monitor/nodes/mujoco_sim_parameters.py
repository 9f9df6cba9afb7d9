"""Declared parameters of the ``mujoco_sim`` node, and what the node makes of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.realism import JOINT_REALISM_SETTINGS, realism_configs
from grasp_monitor.core.servo.settings import (
    COMMAND_TIMEOUT, MOTOR_NOISE_SETTINGS, WATCHDOG_ACTION)
from grasp_monitor.core.settings import Setting
from grasp_monitor.nodes.params import COMMON
from grasp_monitor.nodes.qos import sensor_qos
from grasp_monitor.sim.backend import Simulator
from grasp_monitor.sim.live import LiveConfig
from grasp_monitor.sim.paced_loop import RunConfig
from grasp_monitor.sim.scene import CONES, SOLVERS
from grasp_monitor.sim.scenes import build_scene, SCENARIOS
from grasp_monitor.sim.scenes.parameters import SCENARIO_PARAMETERS, SCENARIO_SETTINGS
from grasp_monitor.sim.sensors import motor_noise
from rclpy.qos import QoSProfile

PARAMETERS = COMMON + (
    Setting('scenario', 'pick_lift', 'Scenario to simulate.', choices=SCENARIOS,
            read_only=True),
    *SCENARIO_SETTINGS['multi_block'], *SCENARIO_SETTINGS['pick_lift'],
    *SCENARIO_SETTINGS['industrial_arm'],
    Setting('physics.timestep', 0.0, 'Physics step, s (0 = scenario default).', 0.0, 0.1,
            read_only=True),
    Setting('physics.friction', 0.0, 'Grasp friction coefficient (0 = scenario default).',
            0.0, 1e9, read_only=True),
    Setting('physics.cone', '', 'Friction cone ("" = scenario default).',
            choices=('',) + CONES, read_only=True),
    Setting('physics.solver', '', 'Constraint solver ("" = scenario default).',
            choices=('',) + SOLVERS, read_only=True),
    Setting('physics.iterations', 0, 'Solver iterations (0 = scenario default).', 0, 10000,
            read_only=True),
    Setting('physics.noslip_iterations', 0, 'Noslip iterations.', 0, 10000, read_only=True),
    Setting('physics.impratio', 0.0, 'Frictional/normal impedance ratio (0 = default).',
            0.0, 1000.0, read_only=True),
    Setting('physics.solref', '', 'Softness of the grasp contacts, as MJCF solref: "time '
            'constant damping ratio", e.g. "0.002 1" ("" = scenario default).',
            read_only=True),
    Setting('physics.solimp', '', 'Impedance of the grasp contacts, as MJCF solimp: "dmin '
            'dmax width midpoint power" ("" = scenario default).', read_only=True),
    Setting('physics.tolerance', 0.0, "Solver's early-termination tolerance (0 = MuJoCo's).",
            0.0, 1.0, read_only=True),
    Setting('physics.noslip_tolerance', 0.0, "Noslip solver's tolerance (0 = MuJoCo's).",
            0.0, 1.0, read_only=True),
    Setting('force_test.profile', 'sine', 'External force test: +z sine or random direction.',
            choices=('sine', 'random'), read_only=True),
    Setting('force_test.amplitude_per_kg', 100.0, 'Force amplitude per kg of object, N/kg.',
            0.0, 1e4, read_only=True),
    Setting('force_test.angular_frequency', 0.5, 'Sine angular frequency, rad/s.', 0.0,
            1e3, read_only=True),
    Setting('force_test.offset', 1.0, 'Constant part of the sine force, N.', -1e4, 1e4,
            read_only=True),
    Setting('force_test.redraw_steps', 100, 'Random profile: steps between directions.',
            1, 1000000, read_only=True),
    Setting('force_test.seed', 0, 'Random profile: seed.', 0, 2**31 - 1, read_only=True),
    Setting('monitor', 'grasp_monitor', 'The grasp monitor whose verdict on each sample '
            '(<monitor>/verdicts) starts and stops the force test at that sample; in '
            'lockstep a tick waits for the verdict it is due ("" = none).', read_only=True),
    Setting('force_test.start_time', 0.0, 'Also start the force test by itself at this '
            'simulated time after every reset, s (0 = only on ~/external_force/start).',
            0.0, 3600.0, read_only=True),
    Setting('force_test.body', '', 'Body pulled by the test ("" = first object).',
            read_only=True),
    Setting('publish_rate', 500.0, 'joint_states, ground truth and /clock rate, Hz.',
            1.0, 2000.0, read_only=True),
    Setting('clock_rate', 0.0, '/clock rate, Hz (0 = every tick); each /clock costs every '
            'use_sim_time node a callback.', 0.0, 2000.0, read_only=True),
    Setting('real_time_factor', 1.0, 'Simulated s per wall s; 0 = as fast as possible.',
            0.0, 1000.0, read_only=True),
    Setting('pause_at', 0.0, 'Pause by itself once simulated time reaches this, after '
            'every ~/reset (not before the first), s (0 = never; resume with ~/pause '
            'false): a trial of a set length ends on the same tick however busy the '
            'machine.', 0.0, 1e6,
            read_only=True),
    COMMAND_TIMEOUT,
    WATCHDOG_ACTION,
    *MOTOR_NOISE_SETTINGS,
    Setting('lockstep', True, 'Step a tick only once its inputs are in: the hosted '
            "controller's command, and the servo_commands of a peer that stamps each with "
            'the /clock it answers; false: free-running, as hardware runs.',
            read_only=True),
    Setting('controller', False, 'Host the grasp_controller node in this process, in '
            'lockstep with the ticks (its parameters come from the grasp_controller '
            'section).', read_only=True),
    Setting('markers_rate', 10.0, 'contacts/markers rate, Hz (0 = none): rviz arrows of the '
            "pads' contacts, from the latest tick.", 0.0, 100.0, read_only=True),
    Setting('markers_scale', 0.01, 'contacts/markers: arrow length per newton of contact '
            'force, m/N.', 1e-6, 10.0, read_only=True),
    Setting('tactile', True, 'Host the tactile_sensor node (tactile/<pad>) in this process '
            'when the scene has pads.', read_only=True),
) + JOINT_REALISM_SETTINGS

#: ROS parameter -> SimSettings field (0 or "" keeps the scenario default).
SETTINGS = {'physics.timestep': 'timestep_s', 'physics.friction': 'friction',
            'physics.cone': 'cone', 'physics.solver': 'solver',
            'physics.iterations': 'iterations', 'physics.impratio': 'impratio',
            'physics.noslip_iterations': 'noslip_iterations', 'physics.solref': 'solref',
            'physics.solimp': 'solimp', 'physics.tolerance': 'tolerance',
            'physics.noslip_tolerance': 'noslip_tolerance'}


def scene_settings(p: Mapping[str, Any]) -> dict[str, Any]:
    """Return the SimSettings overrides of parameter values ``p`` (0 or "" left out)."""
    return {key: p[name] for name, key in SETTINGS.items() if p[name]}


def scenario_params(p: Mapping[str, Any]) -> dict[str, Any]:
    """Return the generator parameters of ``p``'s scenario."""
    return {key: p[key] for key in SCENARIO_PARAMETERS[p['scenario']]}


def force_test(p: Mapping[str, Any]) -> ExternalForceTest:
    """Return the external force test of parameter values ``p``."""
    return ExternalForceTest(
        profile=p['force_test.profile'], amplitude_per_kg_n=p['force_test.amplitude_per_kg'],
        angular_frequency_rad_per_s=p['force_test.angular_frequency'],
        offset_n=p['force_test.offset'], redraw_steps=p['force_test.redraw_steps'],
        seed=p['force_test.seed'])


def servo_options(p: Mapping[str, Any]) -> dict[str, Any]:
    """Return the ``Simulator`` keyword arguments of the servos in parameter values ``p``."""
    return {'command_timeout_s': p['command_timeout'], 'watchdog_action': p['watchdog_action'],
            'motor_noise': motor_noise(p)}


@dataclass(frozen=True)
class MujocoSimSettings:
    """The ``mujoco_sim`` node's parameters as it uses them.

    Attributes:
        sim: the scenario's simulator, its servos configured.
        live: how it runs (pacing, lockstep, force test, encoders).
        qos: of the sensor streams and the servo commands.
        monitor: the monitor whose verdicts start and stop the force test ('' = none).
        controller: host the grasp controller.
        tactile: host the tactile sensor (the scene has pads).
        markers_rate_hz: contacts/markers rate, Hz (0 = none).
        markers_scale_m_per_n: arrow length per newton, m/N.
    """

    sim: Simulator
    live: LiveConfig
    qos: QoSProfile
    monitor: str
    controller: bool
    tactile: bool
    markers_rate_hz: float
    markers_scale_m_per_n: float


def node_settings(p: Mapping[str, Any]) -> MujocoSimSettings:
    """Return what the node makes of its parameter values ``p``: they are read here only."""
    scene = build_scene(p['scenario'], scene_settings(p), **scenario_params(p))
    run = RunConfig(publish_rate_hz=p['publish_rate'], real_time_factor=p['real_time_factor'],
                    pause_at_s=p['pause_at'])
    live = LiveConfig(
        run=run, force_test=force_test(p), force_test_body=p['force_test.body'],
        force_test_start_time_s=p['force_test.start_time'], lockstep=p['lockstep'],
        clock_rate_hz=p['clock_rate'], joint_realism=realism_configs(p)[1],
        realism_seed=p['realism.seed'])
    return MujocoSimSettings(
        sim=Simulator(scene, **servo_options(p)), live=live,
        qos=sensor_qos(p['qos.best_effort'], p['qos.depth']), monitor=p['monitor'],
        controller=p['controller'], tactile=p['tactile'] and bool(scene.pads),
        markers_rate_hz=p['markers_rate'], markers_scale_m_per_n=p['markers_scale'])
