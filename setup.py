"""Build and install grasp_monitor (ament_python, src layout)."""

import glob
import re

from setuptools import find_packages, setup

PACKAGE = 'grasp_monitor'
# One version string: package.xml's.
VERSION = re.search(r'<version>(.+?)</version>', open('package.xml').read()).group(1)

setup(
    name=PACKAGE,
    version=VERSION,
    package_dir={'': 'src'},
    packages=find_packages('src'),
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml']),
        (f'share/{PACKAGE}/launch', glob.glob('launch/*.launch.py')),
        (f'share/{PACKAGE}/config', glob.glob('config/*.yaml')),
        (f'share/{PACKAGE}/config/rviz', glob.glob('config/rviz/*.rviz')),
        (f'share/{PACKAGE}/config/foxglove', glob.glob('config/foxglove/*.json')),
        (f'share/{PACKAGE}/config/plotjuggler', glob.glob('config/plotjuggler/*.xml')),
    ],
    install_requires=['setuptools', 'numpy', 'numba>=0.60', 'scipy', 'mujoco>=4.0', 'trimesh',
                      'transforms3d', 'moteus>=1.1', 'matplotlib', 'mcap>=1.2', 'PyYAML'],
    extras_require={'test': ['pytest']},
    zip_safe=True,
    maintainer='grasp_monitor maintainers',
    maintainer_email='maintainers@grasp-monitor.dev',
    description='Grasp monitoring for ROS 2 with MuJoCo and moteus backends.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'grasp-monitor = grasp_monitor.cli:main',
            'mujoco_sim = grasp_monitor.nodes.sim_process:main',
            'tactile_sensor = grasp_monitor.nodes.sim_process:main_tactile',
            'grasp_controller = grasp_monitor.nodes.grasp_controller:main',
            'gripper_action = grasp_monitor.nodes.gripper_action:main',
            'grasp_monitor = grasp_monitor.nodes.grasp_monitor:main',
            'grasp_metrics = grasp_monitor.nodes.grasp_metrics:main',
            'monitor_metrics = grasp_monitor.nodes.monitor_process:main',
            'moteus_servos = grasp_monitor.nodes.moteus_servos:main',
            'tactile_adapter = grasp_monitor.nodes.tactile_adapter:main',
            'recorder = grasp_monitor.nodes.recorder:main',
            'replay = grasp_monitor.nodes.replay:main',
        ],
    },
)
