"""Industrial arm grasping (physics-engine grasp benchmark, REFERENCE.md section 4).

A 6-DOF arm with the UR10's published Denavit-Hartenberg kinematics and the
link masses of REFERENCE.md carries a parallel gripper that holds a cube from
the start. The arm joints track ``q_des = A sin(w t)`` under the PD gains of
the benchmark, plus (by default; docs/deviations.md) the inverse-dynamics
torque along q_des; the fingers squeeze the cube with a constant force. The
base is fixed at the world origin; no ground plane; gravity -9.8 m/s² along z.
The keyframe ``start`` puts the arm at q_des(0) moving at dq_des(0), the cube
carried along.

Frames: the body of link i carries joint i and, at joint angle 0, coincides
with DH frame {i-1} (standard DH: ``T = Rz(theta) Tz(d) Tx(a) Rx(alpha)``), so
every joint turns about its body's z axis. The hand is fixed to the flange,
DH frame {6}; its fingers slide along the hand's y axis (left finger at +y),
each axis pointing at the cube, so a positive force closes the gripper.
Finger position 0 is the start, touching the cube, at mid-stroke.

Inertias: each arm link is a solid cylinder of radius ``link_radius_m`` laid
along its DH segment (joint i to joint i+1) with its centre of mass at the
segment's midpoint; the base, fixed, is a drum under the mounting plane.
The hand, the fingers and the cube are solid boxes.

``models``: the arm (UR10), its trajectory and the gripper; ``mjcf``: the scene's MJCF
from them; ``drive``: the scenario's command; ``scene``: ``make_industrial_arm``.
"""

from grasp_monitor.sim.scenes.industrial_arm.drive import ArmDrive, FEEDFORWARDS
from grasp_monitor.sim.scenes.industrial_arm.models import (
    ARM_BODIES, ARM_JOINTS, ArmModel, ArmTrajectory, BENCHMARK_TRAJECTORY, CUBE_BODY,
    DEFAULT_GRIPPER, FINGER_JOINTS, GripperModel, HAND_BODY, JOINTS, START_KEYFRAME, UR10,
    VELOCITY_TARGETS)
from grasp_monitor.sim.scenes.industrial_arm.scene import DEFAULT_SETTINGS, make_industrial_arm

__all__ = [
    'ARM_BODIES', 'ARM_JOINTS', 'ArmDrive', 'ArmModel', 'ArmTrajectory', 'BENCHMARK_TRAJECTORY',
    'CUBE_BODY', 'DEFAULT_GRIPPER', 'DEFAULT_SETTINGS', 'FEEDFORWARDS', 'FINGER_JOINTS',
    'GripperModel', 'HAND_BODY', 'JOINTS', 'make_industrial_arm', 'START_KEYFRAME', 'UR10',
    'VELOCITY_TARGETS',
]
