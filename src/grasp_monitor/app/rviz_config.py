"""rviz2 configs of the scenarios, generated from each scene: ``grasp-monitor rviz``.

``config/rviz/<scenario>.rviz`` is this module's output for ``config/<scenario>.yaml``
(a test keeps them equal). Fixed frame ``world``; a grid, /tf, the robot description,
each pad's tactile cloud coloured by the pressure on its taxels, the tactile markers,
the contact force arrows, the monitor's events as text above the object, the objects'
ground truth, and an orbit camera framing the robot and the objects. Topics are
relative, as the launch files run the nodes (``/robot_description`` is absolute, as
robot_state_publisher's).
"""

from __future__ import annotations

from typing import Any

from grasp_monitor.app.scene_view import SceneView
import yaml

#: The root frame every display is drawn in.
FIXED_FRAME = 'world'
#: Message type read by each display class; displays without a topic are left out.
DISPLAY_TYPES = {
    'rviz_default_plugins/PointCloud2': 'sensor_msgs/msg/PointCloud2',
    'rviz_default_plugins/MarkerArray': 'visualization_msgs/msg/MarkerArray',
    'rviz_default_plugins/Odometry': 'nav_msgs/msg/Odometry',
    'rviz_default_plugins/RobotModel': 'std_msgs/msg/String',
}
ROBOT_DESCRIPTION = '/robot_description'
CONTACT_MARKERS = 'contacts/markers'
EVENT_MARKERS = 'grasp_monitor/markers'
TACTILE_MARKERS = 'tactile/markers'

_BLUE, _RED = '0; 0; 255', '255; 0; 0'


def _topic(name: str, reliable: bool = False, latched: bool = False) -> dict[str, Any]:
    """Return a display's topic: best effort matches any publisher; latched needs more."""
    return {'Depth': 5, 'Durability Policy': 'Transient Local' if latched else 'Volatile',
            'Filter size': 10, 'History Policy': 'Keep Last',
            'Reliability Policy': 'Reliable' if reliable or latched else 'Best Effort',
            'Value': name}


def _pad_cloud(pad) -> dict[str, Any]:
    # The pressure runs along the pad's inward normal; a falling channel swaps the colours.
    bounds = (0.0, pad.full_scale_n) if pad.sign > 0 else (-pad.full_scale_n, 0.0)
    low, high = (_BLUE, _RED) if pad.sign > 0 else (_RED, _BLUE)
    return {
        'Alpha': 1, 'Autocompute Intensity Bounds': False,
        'Autocompute Value Bounds': {'Max Value': 10, 'Min Value': -10, 'Value': True},
        'Axis': 'Z', 'Channel Name': pad.channel, 'Class': 'rviz_default_plugins/PointCloud2',
        'Color': '255; 255; 255', 'Color Transformer': 'Intensity', 'Decay Time': 0,
        'Enabled': True, 'Invert Rainbow': False, 'Max Color': high,
        'Max Intensity': bounds[1], 'Min Color': low, 'Min Intensity': bounds[0],
        'Name': f'tactile/{pad.name}', 'Position Transformer': 'XYZ', 'Selectable': True,
        'Size (Pixels)': 3, 'Size (m)': round(0.8 * pad.spacing_m, 6), 'Style': 'Spheres',
        'Topic': _topic(f'tactile/{pad.name}'), 'Use Fixed Frame': True,
        'Use rainbow': False, 'Value': True}


def _markers(name: str, latched: bool = False) -> dict[str, Any]:
    return {'Class': 'rviz_default_plugins/MarkerArray', 'Enabled': True, 'Name': name,
            'Namespaces': {}, 'Topic': _topic(name, latched=latched), 'Value': True}


def _odometry(body: str, size_m: float) -> dict[str, Any]:
    return {
        'Angle Tolerance': 0, 'Class': 'rviz_default_plugins/Odometry',
        'Covariance': {'Value': False}, 'Enabled': True, 'Keep': 1,
        'Name': f'ground_truth/{body}', 'Position Tolerance': 0,
        'Shape': {'Alpha': 1, 'Axes Length': size_m, 'Axes Radius': round(size_m / 12, 4),
                  'Value': 'Axes'},
        'Topic': _topic(f'ground_truth/{body}'), 'Value': True}


def rviz_config(view: SceneView) -> dict[str, Any]:
    """Return the rviz2 config of a scene, as the YAML rviz2 reads."""
    camera = view.camera
    size = max(h - lo for lo, h in zip(view.low, view.high))
    cell = 0.1 if size < 1.0 else 0.25
    axes = round(min(0.1, size / 10), 3)
    displays = [
        {'Alpha': 0.5, 'Cell Size': cell, 'Class': 'rviz_default_plugins/Grid',
         'Color': '160; 160; 164', 'Enabled': True,
         'Line Style': {'Line Width': 0.03, 'Value': 'Lines'}, 'Name': 'Grid',
         'Normal Cell Count': 0, 'Offset': {'X': 0, 'Y': 0, 'Z': 0}, 'Plane': 'XY',
         'Plane Cell Count': int(4 * size / cell) + 2, 'Reference Frame': '<Fixed Frame>',
         'Value': True},
        {'Class': 'rviz_default_plugins/TF', 'Enabled': True, 'Frame Timeout': 15,
         'Marker Scale': axes, 'Name': 'TF', 'Show Arrows': False, 'Show Axes': True,
         'Show Names': False, 'Update Interval': 0, 'Value': True},
        {'Alpha': 0.6, 'Class': 'rviz_default_plugins/RobotModel', 'Collision Enabled': False,
         'Description File': '', 'Description Source': 'Topic',
         'Description Topic': _topic(ROBOT_DESCRIPTION, latched=True), 'Enabled': True,
         'Name': 'RobotModel', 'TF Prefix': '', 'Update Interval': 0, 'Value': True,
         'Visual Enabled': True},
        *(_pad_cloud(pad) for pad in view.pads),
        *([_markers(TACTILE_MARKERS)] if view.pads else []),
        _markers(CONTACT_MARKERS),
        _markers(EVENT_MARKERS, latched=True),
        *(_odometry(body, axes) for body in view.objects),
    ]
    return {
        'Panels': [
            {'Class': 'rviz_common/Displays', 'Help Height': 78, 'Name': 'Displays',
             'Property Tree Widget': {'Expanded': ['/Global Options1'], 'Splitter Ratio': 0.5},
             'Tree Height': 600},
            {'Class': 'rviz_common/Views', 'Expanded': ['/Current View1'], 'Name': 'Views',
             'Splitter Ratio': 0.5},
            {'Class': 'rviz_common/Time', 'Experimental': False, 'Name': 'Time',
             'SyncMode': 0, 'SyncSource': ''},
        ],
        'Visualization Manager': {
            'Class': '', 'Displays': displays, 'Enabled': True,
            'Global Options': {'Background Color': '48; 48; 48', 'Fixed Frame': FIXED_FRAME,
                               'Frame Rate': 30},
            'Name': 'root',
            'Tools': [{'Class': 'rviz_default_plugins/Interact', 'Hide Inactive Objects': True},
                      {'Class': 'rviz_default_plugins/MoveCamera'},
                      {'Class': 'rviz_default_plugins/Select'},
                      {'Class': 'rviz_default_plugins/FocusCamera'},
                      {'Class': 'rviz_default_plugins/Measure'}],
            'Transformation': {'Current': {'Class': 'rviz_default_plugins/TF'}},
            'Value': True,
            'Views': {'Current': {
                'Class': 'rviz_default_plugins/Orbit', 'Distance': camera.distance_m,
                'Focal Point': dict(zip('XYZ', camera.focal_point)),
                'Focal Shape Fixed Size': True, 'Focal Shape Size': 0.05,
                'Invert Z Axis': False, 'Name': 'Current View', 'Near Clip Distance': 0.01,
                'Pitch': camera.pitch_rad, 'Target Frame': '<Fixed Frame>',
                'Value': 'Orbit (rviz)', 'Yaw': camera.yaw_rad},
                'Saved': None},
        },
        'Window Geometry': {'Displays': {'collapsed': False}, 'Height': 900,
                            'Hide Left Dock': False, 'Hide Right Dock': False,
                            'Time': {'collapsed': False}, 'Views': {'collapsed': False},
                            'Width': 1400, 'X': 60, 'Y': 60},
    }


def rviz_text(view: SceneView) -> str:
    """Return the config file of a scene: a header saying where it comes from, then YAML."""
    header = (
        f'# rviz2 view of {view.scenario}, generated by `grasp-monitor rviz {view.scenario}`\n'
        f'# from config/{view.scenario}.yaml: do not edit, regenerate. Fixed frame world;\n'
        "# the pads' clouds are coloured by the force along their inward normal (N).\n")
    return header + yaml.safe_dump(rviz_config(view), sort_keys=False, width=99)


def displays(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the displays of an rviz config that read a topic: name, class, topic, QoS."""
    found = []
    for display in config['Visualization Manager']['Displays']:
        if display['Class'] not in DISPLAY_TYPES:
            continue
        topic = display.get('Topic') or display['Description Topic']
        found.append({'name': display['Name'], 'class': display['Class'],
                      'type': DISPLAY_TYPES[display['Class']], 'topic': topic['Value'],
                      'reliable': topic['Reliability Policy'] == 'Reliable',
                      'latched': topic['Durability Policy'] == 'Transient Local'})
    return found
