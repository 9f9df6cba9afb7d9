"""``grasp-monitor urdf`` as users run it: the scene of a parameter file, to a file or stdout."""

import io
import subprocess
import sys

from grasp_monitor.app.scenario_config import default_params_file
import yaml
import yourdfpy


def urdf_cli(*args):
    """Run ``grasp-monitor urdf`` with ``args``; return the finished process."""
    return subprocess.run([sys.executable, '-m', 'grasp_monitor.cli', 'urdf', *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_writes_the_scene_of_the_parameter_file(tmp_path):
    # the scenario's own file, with a sphere for the box: the URDF follows the file
    params = yaml.safe_load(default_params_file('pick_lift').read_text())
    params['mujoco_sim']['ros__parameters']['object_kind'] = 'sphere'
    params_file = tmp_path / 'sphere.yaml'
    params_file.write_text(yaml.safe_dump(params))
    output = tmp_path / 'out' / 'pick_lift.urdf'
    done = urdf_cli('pick_lift', '--params-file', params_file, '--output', output)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == f'wrote {output}'
    urdf = yourdfpy.URDF.load(str(output), build_scene_graph=False, load_meshes=False)
    assert urdf.validate(), urdf.errors
    assert urdf.link_map['object'].visuals[0].geometry.sphere.radius > 0
    assert not (tmp_path / 'out' / 'pick_lift_meshes').exists()  # no mesh: no folder


def test_prints_to_standard_output_and_the_gripper_alone_on_request():
    done = urdf_cli('industrial_arm', '--gripper-only')
    assert done.returncode == 0, done.stderr
    urdf = yourdfpy.URDF.load(io.StringIO(done.stdout), build_scene_graph=False,
                              load_meshes=False)
    assert 'cube' not in urdf.link_map and 'hand' in urdf.link_map


def test_a_file_of_another_scenario_is_refused():
    done = urdf_cli('multi_block', '--params-file', default_params_file('pick_lift'))
    assert done.returncode == 2
    assert "simulates 'pick_lift', not 'multi_block'" in done.stderr
