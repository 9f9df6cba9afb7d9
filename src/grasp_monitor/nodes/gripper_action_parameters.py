"""Declared parameters of the ``gripper_action`` node, and the gripper limits they make."""

from typing import Any, Mapping

from grasp_monitor.core.servo.gripper_goal import GripperLimits
from grasp_monitor.core.settings import Setting
from grasp_monitor.nodes.params import COMMON

PARAMETERS = COMMON + (
    Setting('joints', ['finger_left', 'finger_right'], 'Finger joints a goal drives, each to '
            "the goal's position (m, closing positive), by servo_commands.", read_only=True),
    Setting('stroke_min', -0.01, 'Most open finger position a goal may ask, m.', -1.0, 1.0,
            read_only=True),
    Setting('stroke_max', 0.054, 'Most closed finger position a goal may ask, m.', -1.0, 1.0,
            read_only=True),
    Setting('max_effort', 20.0, "The largest max_effort a goal may ask (the finger servos' "
            'force limit), N.', 1e-3, 1e4, read_only=True),
    Setting('default_effort', 10.0, 'Effort of a goal whose max_effort is 0 (MoveIt sends 0 '
            'unless told), N.', 1e-3, 1e4, read_only=True),
    Setting('stiffness', 300.0, "The finger servos' position gain, N/m: the target leads a "
            'finger by at most max_effort / stiffness, so a blocked finger pushes with '
            'max_effort.', 1e-3, 1e9, read_only=True),
    Setting('speed', 0.05, 'Speed of the fingers towards the goal, m/s.', 1e-4, 10.0,
            read_only=True),
    Setting('tolerance', 0.001, 'A finger this close to the goal position has reached it, m.',
            1e-6, 0.1, read_only=True),
    Setting('timeout', 5.0, 'A goal neither stalled nor reached after this long is aborted, '
            's.', 0.01, 600.0, read_only=True),
    Setting('rate', 100.0, 'Command and feedback rate, Hz.', 1.0, 1000.0, read_only=True),
    Setting('monitor', 'grasp_monitor', 'The grasp monitor whose `grasp` event says a goal '
            'stalled on the object (<monitor>/events).', read_only=True),
    Setting('trials', True, "A closing goal starts the monitor's trial (<monitor>/start), an "
            'opening goal ends it (<monitor>/stop): each pick one trial.', read_only=True),
)


def gripper_limits(p: Mapping[str, Any]) -> GripperLimits:
    """Build the gripper limits from the declared parameters' values."""
    return GripperLimits(
        stroke_min_m=p['stroke_min'], stroke_max_m=p['stroke_max'],
        max_effort_n=p['max_effort'], default_effort_n=p['default_effort'],
        stiffness_n_per_m=p['stiffness'], speed_m_per_s=p['speed'],
        tolerance_m=p['tolerance'], timeout_s=p['timeout'])
