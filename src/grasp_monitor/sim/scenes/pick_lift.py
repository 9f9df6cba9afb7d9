"""Pick and lift: a parallel gripper on a lifting axis closes on an object on a table.

Exercises every event: contact, contact timeout (when the fingers never close),
grasp, the external force test, and slip-out (when the grip is too weak).
The carriage starts ``approach_height_m`` above the grasp height (keyframe
``home``); lift position 0 puts the finger pads level with the object's centre.
"""

from __future__ import annotations

import dataclasses

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.sim.mjcf import servo_actuator, vec
from grasp_monitor.sim.scene import Scene, SimSettings

DEFAULT_SETTINGS = SimSettings(timestep_s=0.001, friction=1.0, cone='elliptic', impratio=10.0)
OBJECT_KINDS = ('box', 'cylinder', 'sphere')


def make_pick_lift(
    settings: SimSettings = DEFAULT_SETTINGS,
    object_kind: str = 'box',
    object_size_m: float = 0.05,
    object_mass_kg: float = 0.2,
    table_height_m: float = 0.4,
    finger_gap_m: float = 0.03,
    pad_size_m: tuple[float, float, float] = (0.03, 0.01, 0.03),
    approach_height_m: float = 0.1,
    carriage_mass_kg: float = 0.5,
    finger_mass_kg: float = 0.1,
    duration_s: float = 20.0,
) -> Scene:
    """Generate the scene.

    Args:
        settings: physics settings.
        object_kind: 'box', 'cylinder' (axis vertical) or 'sphere'.
        object_size_m: object width along y (edge or diameter), m.
        object_mass_kg: object mass.
        table_height_m: height of the table top, m.
        finger_gap_m: clearance between each open pad and the object, m.
        pad_size_m: finger pad extents (x, y, z), m.
        approach_height_m: start height of the pads above the grasp height, m.
        carriage_mass_kg: mass of the carriage (the palm).
        finger_mass_kg: mass of each finger.
        duration_s: trial length, s.
    """
    if object_kind not in OBJECT_KINDS:
        raise ConfigError(
            f'object_kind {object_kind!r} is not one of {", ".join(OBJECT_KINDS)}')
    for name, value in (('object_size_m', object_size_m), ('object_mass_kg', object_mass_kg),
                        ('finger_gap_m', finger_gap_m), ('duration_s', duration_s),
                        ('carriage_mass_kg', carriage_mass_kg),
                        ('finger_mass_kg', finger_mass_kg)):
        if not value > 0:
            raise ConfigError(f'{name} must be > 0, got {value}')
    if approach_height_m < 0:
        raise ConfigError(f'approach_height_m must be >= 0, got {approach_height_m}')
    half = object_size_m / 2
    pad_half = [s / 2 for s in pad_size_m]
    grasp_z_m = table_height_m + half
    open_y_m = half + finger_gap_m + pad_half[1]
    # Closed fingers stop with their pads 2 mm apart: touching pads would read as a grasp.
    # A stiff limit keeps them apart under the full grip force (the default, soft one let
    # 5 N push the pads into each other).
    close_limit_m = open_y_m - pad_half[1] - 0.001
    # The scene's own softness is MuJoCo's default.
    contact = f'friction="{vec((settings.friction, 0.005, 0.0001))}"{settings.contact_xml()}'
    object_geom = {
        'box': f'type="box" size="{vec((half, half, half))}"',
        'cylinder': f'type="cylinder" size="{vec((half, half))}"',
        'sphere': f'type="sphere" size="{half!r}"',
    }[object_kind]
    fingers = ''.join(
        f'<body name="finger_{side}" pos="{vec((0, sign * open_y_m, 0))}">'
        f'<joint name="finger_{side}" type="slide" axis="{vec((0, -sign, 0))}" limited="true"'
        f' range="{vec((-0.01, close_limit_m))}" solreflimit="0.002 1" damping="0.5"/>'
        f'<geom name="finger_{side}_link" type="box" pos="{vec((0, 0, pad_half[2] + 0.02))}"'
        f' size="{vec((pad_half[0], pad_half[1], 0.02))}" mass="{finger_mass_kg / 2!r}"'
        ' contype="0" conaffinity="0" rgba="0.5 0.5 0.55 1"/>'
        f'<geom name="finger_{side}_pad" type="box" size="{vec(pad_half)}"'
        f' mass="{finger_mass_kg / 2!r}" {contact} rgba="0.2 0.6 0.3 1"/>'
        '</body>'
        for side, sign in (('left', 1.0), ('right', -1.0)))
    palm_z_m = pad_half[2] + 0.04
    mjcf = (
        f'<mujoco model="pick_lift">{settings.option_xml()}'
        '<worldbody><light pos="0 0 3" dir="0 0 -1"/>'
        f'<body name="table" pos="{vec((0, 0, table_height_m - 0.02))}">'
        f'<geom name="table" type="box" size="0.3 0.3 0.02" {contact}'
        ' rgba="0.6 0.5 0.4 1"/></body>'
        f'<body name="base" pos="{vec((0, 0, grasp_z_m))}">'
        '<body name="palm" pos="0 0 0">'
        '<joint name="lift" type="slide" axis="0 0 1" limited="true" range="-0.05 0.5"'
        ' damping="1"/>'
        f'<geom name="palm" type="box" pos="{vec((0, 0, palm_z_m))}"'
        f' size="{vec((pad_half[0], open_y_m + pad_half[1], 0.01))}"'
        f' mass="{carriage_mass_kg!r}" rgba="0.3 0.4 0.8 1"/>'
        + fingers +
        '</body></body>'
        f'<body name="object" pos="{vec((0, 0, grasp_z_m))}"><freejoint/>'
        f'<geom name="object" {object_geom} mass="{object_mass_kg!r}" {contact}'
        ' rgba="0.85 0.55 0.2 1"/></body>'
        '</worldbody><actuator>'
        + ''.join(servo_actuator(j) for j in ('lift', 'finger_left', 'finger_right')) +
        '</actuator>'
        '<keyframe><key name="home" qpos="'
        + vec((approach_height_m, 0, 0, 0, 0, grasp_z_m, 1, 0, 0, 0)) + '"/></keyframe>'
        '</mujoco>')
    return Scene(
        name='pick_lift', mjcf=mjcf, settings=settings,
        joints=('lift', 'finger_left', 'finger_right'),
        kp=(2000.0, 300.0, 300.0), kd=(150.0, 10.0, 10.0),
        maximum_torque=(60.0, 20.0, 20.0),
        pads=('finger_left', 'finger_right'), objects=('object',),
        base_body='base', palm_body='palm',
        robot_bodies=('palm', 'finger_left', 'finger_right'),
        duration_s=duration_s, drive=None,
        metadata={'object_kind': object_kind, 'object_mass_kg': object_mass_kg,
                  'object_size_m': object_size_m, 'approach_height_m': approach_height_m,
                  'open_position_m': 0.0, 'settings': dataclasses.asdict(settings)})
