"""The industrial arm scene, generated from its models."""

from __future__ import annotations

import dataclasses

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.scene import Scene, SimSettings
from grasp_monitor.sim.scenes.industrial_arm.drive import ArmDrive, FEEDFORWARDS
from grasp_monitor.sim.scenes.industrial_arm.mjcf import cube_start, scene_mjcf
from grasp_monitor.sim.scenes.industrial_arm.models import (
    ARM_BODIES, ArmModel, ArmTrajectory, BENCHMARK_TRAJECTORY, CUBE_BODY, DEFAULT_GRIPPER,
    FINGER_JOINTS, GripperModel, HAND_BODY, JOINTS, UR10)
from grasp_monitor.sim.scenes.parameters import SCENARIO_SETTINGS
import mujoco


#: The benchmark's physics step; friction and solver as every scenario's defaults.
DEFAULT_SETTINGS = SimSettings()
#: How the cube's six degrees of freedom are expressed (``make_industrial_arm``).
CUBE_JOINTS = next(setting.choices for setting in SCENARIO_SETTINGS['industrial_arm']
                   if setting.name == 'cube_joint')


def make_industrial_arm(
    settings: SimSettings = DEFAULT_SETTINGS,
    arm: ArmModel = UR10,
    trajectory: ArmTrajectory = BENCHMARK_TRAJECTORY,
    gripper: GripperModel = DEFAULT_GRIPPER,
    cube_size_m: float = 0.05,
    cube_mass_kg: float = 0.1,
    feedforward: str = 'inverse_dynamics',
    cube_joint: str = 'free',
    velocity_target: str = 'derivative',
    duration_s: float = 100.0,
) -> Scene:
    """Generate the scene.

    Args:
        settings: physics settings; ``friction`` applies to the fingers and the cube.
        arm: kinematics, masses and torque limits of the arm.
        trajectory: the arm's sinusoidal targets and PD gains.
        gripper: hand, fingers and squeeze force.
        cube_size_m: cube edge, m.
        cube_mass_kg: cube mass, kg.
        feedforward: what the arm joints add to the PD law, one of FEEDFORWARDS.
        cube_joint: the cube's coordinates, one of CUBE_JOINTS: 'free' (a free
            joint in the world) or 'hand' (three slides and a ball joint in the
            hand's frame: the same six degrees of freedom, integrated relative to
            the hand, so the step's error on the hand's curved path does not add
            up to a slide across the fingers).
        velocity_target: the arm joints' velocity target, one of VELOCITY_TARGETS:
            'derivative' (A w cos(w t), the derivative of the position target) or
            'cosine' (A cos(w t), the benchmark code's); it replaces the
            trajectory's own.
        duration_s: trial length, s.

    Raises:
        ConfigError: an invalid parameter; the message says what is valid.
    """
    for name, value, kind in (('arm', arm, ArmModel), ('trajectory', trajectory, ArmTrajectory),
                              ('gripper', gripper, GripperModel)):
        if not isinstance(value, kind):
            raise ConfigError(
                f'{name} must be of type {kind.__name__}, got {type(value).__name__}')
    for name, value in (('cube_size_m', cube_size_m), ('cube_mass_kg', cube_mass_kg),
                        ('duration_s', duration_s)):
        if not value > 0:
            raise ConfigError(f'{name} must be > 0, got {value}')
    if feedforward not in FEEDFORWARDS:
        raise ConfigError(
            f'feedforward {feedforward!r} is not one of {", ".join(FEEDFORWARDS)}')
    if cube_joint not in CUBE_JOINTS:
        raise ConfigError(f'cube_joint {cube_joint!r} is not one of {", ".join(CUBE_JOINTS)}')
    trajectory = dataclasses.replace(trajectory, velocity_target=velocity_target)
    rigid_model = mujoco.MjModel.from_xml_string(
        scene_mjcf(settings, arm, gripper, cube_size_m, cube_mass_kg, start=None))
    # The welded fingers touch the welded cube; those contacts must not enter the torques.
    rigid_model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    # The arm starts on its trajectory, moving, so tracking begins without a jolt.
    q0, dq0 = trajectory.position_rad(0.0), trajectory.velocity_rad_s(0.0)
    start = (q0, dq0, cube_start(rigid_model, q0, dq0))
    drive = ArmDrive(trajectory, arm, gripper, feedforward, rigid_model)
    return Scene(
        name='industrial_arm',
        mjcf=scene_mjcf(settings, arm, gripper, cube_size_m, cube_mass_kg, start, cube_joint),
        settings=settings,
        joints=JOINTS,
        kp=trajectory.kp_nm_per_rad + (gripper.finger_kp_n_per_m,) * 2,
        kd=trajectory.kd_nm_s_per_rad + (gripper.finger_kd_n_s_per_m,) * 2,
        maximum_torque=arm.maximum_torque_nm + (gripper.grip_force_n,) * 2,
        pads=FINGER_JOINTS,
        objects=(CUBE_BODY,),
        base_body=ARM_BODIES[0],
        palm_body=HAND_BODY,
        robot_bodies=ARM_BODIES + (HAND_BODY,) + FINGER_JOINTS,
        duration_s=duration_s,
        drive=drive,
        metadata={'arm': 'UR10' if arm == UR10 else 'custom', 'feedforward': feedforward,
                  'cube_joint': cube_joint, 'velocity_target': velocity_target,
                  'cube_size_m': cube_size_m,
                  'cube_mass_kg': cube_mass_kg,
                  'grip_force_n': gripper.grip_force_n,
                  'settings': dataclasses.asdict(settings)},
    )
