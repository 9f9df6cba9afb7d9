"""Multiple block grasping (physics-engine grasp benchmark, REFERENCE.md section 4).

Two gripper blocks on prismatic joints along y squeeze a row of ``n_cubes``
cubes; no ground plane, gravity -9.8 m/s² along z. Each gripper is pushed
inward with ``force_per_cube_n`` × ``n_cubes``.
"""

from __future__ import annotations

import dataclasses
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.servo import ServoCommand
from grasp_monitor.sim.mjcf import servo_actuator, vec
from grasp_monitor.sim.scene import Scene, SimSettings
import numpy as np

#: The benchmark's friction and step. MuJoCo's default pyramidal cone lets the
#: grippers pass through the cubes at this friction; the elliptic cone holds.
DEFAULT_SETTINGS = SimSettings(
    timestep_s=0.001, friction=100.0, cone='elliptic', solver='Newton',
    iterations=100, integrator='implicitfast')


def make_multi_block(
    settings: SimSettings = DEFAULT_SETTINGS,
    n_cubes: int = 3,
    cube_size_m: float = 0.1,
    cube_mass_kg: float = 1.0,
    gripper_size_m: tuple[float, float, float] = (0.2, 0.1, 0.2),
    gripper_mass_kg: float = 1.0,
    force_per_cube_n: float = 100.0,
    height_m: float = 0.5,
    duration_s: float = 100.0,
) -> Scene:
    """Generate the scene.

    Args:
        settings: physics settings.
        n_cubes: cubes in the row, 1 to 11.
        cube_size_m: cube edge, m; cubes touch each other and the grippers.
        cube_mass_kg: mass of each cube.
        gripper_size_m: gripper block extents (x, y, z), m.
        gripper_mass_kg: mass of each gripper block.
        force_per_cube_n: inward push on each gripper per cube, N.
        height_m: height of the row's centre, m.
        duration_s: trial length, s.
    """
    if not 1 <= n_cubes <= 11:
        raise ConfigError(f'n_cubes must be in 1..11, got {n_cubes}')
    for name, value in (('cube_size_m', cube_size_m), ('cube_mass_kg', cube_mass_kg),
                        ('gripper_mass_kg', gripper_mass_kg), ('duration_s', duration_s)):
        if not value > 0:
            raise ConfigError(f'{name} must be > 0, got {value}')
    if force_per_cube_n < 0:
        raise ConfigError(f'force_per_cube_n must be >= 0, got {force_per_cube_n}')
    half_row_m = 0.5 * n_cubes * cube_size_m
    gripper_half = 0.5 * np.asarray(gripper_size_m, float)
    gripper_y_m = half_row_m + gripper_half[1]
    travel_m = 0.5 * n_cubes * cube_size_m
    mu = settings.friction
    # The scene's own softness is MuJoCo's default.
    contact = f'friction="{vec((mu, 0.005, 0.0001))}"{settings.contact_xml()}'
    cubes = []
    for i in range(n_cubes):
        y = -half_row_m + (i + 0.5) * cube_size_m
        cubes.append(
            f'<body name="cube_{i}" pos="{vec((0, y, height_m))}"><freejoint/>'
            f'<geom name="cube_{i}" type="box" size="{vec([cube_size_m / 2] * 3)}"'
            f' mass="{cube_mass_kg!r}" {contact} rgba="0.85 0.55 0.2 1"/></body>')
    grippers = []
    # Each joint axis points inward, so a positive force squeezes.
    for side, sign in (('left', 1.0), ('right', -1.0)):
        grippers.append(
            f'<body name="gripper_{side}" pos="{vec((0, sign * gripper_y_m, height_m))}">'
            f'<joint name="gripper_{side}" type="slide" axis="{vec((0, -sign, 0))}"'
            f' limited="true" range="{vec((-travel_m, travel_m))}"/>'
            f'<geom name="gripper_{side}" type="box" size="{vec(gripper_half)}"'
            f' mass="{gripper_mass_kg!r}" {contact} rgba="0.3 0.4 0.8 1"/>'
            f'</body>')
    joints = ('gripper_left', 'gripper_right')
    mjcf = (
        f'<mujoco model="multi_block_{n_cubes}">{settings.option_xml()}'
        '<worldbody><light pos="0 0 3" dir="0 0 -1"/>'
        f'<body name="base" pos="{vec((0, 0, height_m))}"/>'
        + ''.join(grippers) + ''.join(cubes) +
        '</worldbody><actuator>' + ''.join(servo_actuator(j) for j in joints) +
        '</actuator></mujoco>')
    push_n = force_per_cube_n * n_cubes
    squeeze = ServoCommand(
        position=[np.nan, np.nan], velocity=[0, 0], feedforward_torque=[push_n, push_n],
        kp_scale=[0, 0], kd_scale=[0, 0], maximum_torque=[push_n, push_n])
    return Scene(
        name='multi_block', mjcf=mjcf, settings=settings, joints=joints,
        kp=0.0, kd=0.0, maximum_torque=push_n,
        pads=('gripper_left', 'gripper_right'),
        objects=tuple(f'cube_{i}' for i in range(n_cubes)),
        base_body='base', palm_body='', robot_bodies=('gripper_left', 'gripper_right'),
        duration_s=duration_s, drive=lambda t: squeeze, drive_hold_s=math.inf,
        metadata={'n_cubes': n_cubes, 'force_per_cube_n': force_per_cube_n,
                  'settings': dataclasses.asdict(settings)})
