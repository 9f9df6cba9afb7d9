"""Fuzzed parameter files given to every node's process: exit 2 with the reason, no traceback.

Each file sets one parameter a node declares to a value of the wrong type, out of its
range, outside its choices or empty, or is garbled YAML. The node's process must stop
with status 2 and a one-line reason that names the parameter and the node (or the file),
as a user sees it. The processes of one example (three different nodes) run side by side.
"""

import importlib
import math
import os
import subprocess

from common import fuzz_settings, NAMESPACE
from grasp_monitor.app.reference import NODES
from grasp_monitor.nodes import node_command
from hypothesis import given, strategies as st

FUZZ = fuzz_settings(max_examples=3)
SPECS = [(executable, spec) for executable, module in NODES
         for spec in importlib.import_module(module).PARAMETERS]
GARBLES = ('[1, 2', '{a: b', '"unclosed', '- : -\n  -', '&anchor *other', '}')


def yaml_value(value):
    """Return ``value`` as YAML flow text."""
    if isinstance(value, (list, tuple)):
        return '[' + ', '.join(yaml_value(v) for v in value) + ']'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return '"' + value + '"'
    return repr(value)


def wrong_type(spec):
    """Return a strategy of values of another type than ``spec``'s default."""
    default = spec.default
    if isinstance(default, (list, tuple)):
        first = default[0]
        return st.sampled_from(['not a list', 7]) | st.just(
            ['text'] if not isinstance(first, str) else [1, 2])
    if isinstance(default, bool):
        return st.sampled_from([3, 'text', [True]])
    if isinstance(default, int):
        return st.sampled_from([2.5, 'text', True, [1]])
    if isinstance(default, float):
        return st.sampled_from(['text', True, [1.0]])
    return st.sampled_from([42, 2.5, True, ['a']])


@st.composite
def bad_files(draw):
    """Return (executable, YAML text, text the reason must hold)."""
    executable, spec = draw(st.sampled_from(SPECS))
    defects = ['wrong_type', 'garbled']
    if spec.low is not None:
        defects.append('out_of_range')
    if spec.choices:
        defects.append('choice')
    if isinstance(spec.default, (list, tuple)):
        defects.append('empty')
    defect = draw(st.sampled_from(defects))
    reason = f"parameter '{spec.name}' of node '"
    if defect == 'wrong_type':
        value = yaml_value(draw(wrong_type(spec)))
    elif defect == 'out_of_range':
        # past a bound, where a parameter can hold it (not past inf or an int64 bound)
        beyond = draw(st.sampled_from([value for value in (
            spec.high + max(1, abs(spec.high)), spec.low - max(1, abs(spec.low)))
            if math.isfinite(value) and -2**63 <= value < 2**63]))
        array = isinstance(spec.default, (list, tuple))
        item = type(spec.default[0] if array else spec.default)(beyond)
        value = yaml_value([item] if array else item)
        if array:  # its items are checked by the pads they configure, which name them
            reason = f"parameter '{spec.name}' of tactile pad '"
    elif defect == 'choice':
        value = '"not_a_choice"'
    elif defect == 'empty':
        value = '[]'
    else:
        value, reason = draw(st.sampled_from(GARBLES)), "Couldn't parse params file"
    return executable, f'/**:\n  ros__parameters:\n    {spec.name}: {value}\n', reason


@FUZZ
@given(cases=st.lists(bad_files(), min_size=3, max_size=3, unique_by=lambda case: case[0]))
def test_bad_parameter_files_stop_every_node_with_status_2_and_the_reason(tmp_path_factory,
                                                                          cases):
    folder = tmp_path_factory.mktemp('params')
    processes = []
    for i, (executable, text, reason) in enumerate(cases):
        path = folder / f'{i}.yaml'
        path.write_text(text)
        processes.append(subprocess.Popen(
            node_command(executable, namespace=NAMESPACE, params_file=path),
            env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for process, (executable, text, reason) in zip(processes, cases):
        try:
            # bounds a hang; a loaded machine can take tens of seconds to start one
            out, err = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        assert process.returncode == 2, (executable, text, err)
        assert 'Traceback' not in err + out, (executable, text, err)
        assert reason in err, (executable, text, err)
