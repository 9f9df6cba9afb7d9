"""The command's verbs: one module each, one scenario convention, errors named as written."""

import argparse

from grasp_monitor.app.verb.arguments import as_written, key_value
from grasp_monitor.cli import build_parser, main, VERBS
import pytest

#: Verbs that simulate a scenario, and whether they have a default one.
SCENARIO_VERBS = {'run': True, 'demo': True, 'tactile-plot': True,
                  'rviz': False, 'snapshot': False, 'urdf': False}


def _subparsers(parser):
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


def test_every_verb_module_has_the_verb_contract():
    for name, verb in VERBS.items():
        assert isinstance(verb.HELP, str) and verb.HELP, name
        assert callable(verb.add_arguments) and callable(verb.run), name
    assert list(_subparsers(build_parser())) == list(VERBS)


@pytest.mark.parametrize('verb, optional', SCENARIO_VERBS.items())
def test_the_scenario_is_positional_in_every_verb(verb, optional):
    parser = _subparsers(build_parser())[verb]
    [scenario] = [a for a in parser._actions if a.dest == 'scenario']
    assert scenario.option_strings == []  # positional, never --scenario
    assert scenario.choices == ('pick_lift', 'multi_block', 'industrial_arm')
    assert (scenario.nargs == '?') == optional


@pytest.mark.parametrize('verb', ['demo', 'tactile-plot'])
def test_the_old_scenario_option_is_refused(verb, capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([verb, '--scenario', 'multi_block'])
    assert exit_.value.code == 2
    assert 'unrecognized arguments: --scenario' in capsys.readouterr().err


def test_an_optional_scenario_is_parsed_where_written_and_defaults_as_said():
    parse = build_parser().parse_args
    assert parse(['tactile-plot']).scenario == 'pick_lift'
    assert parse(['tactile-plot', '--duration', '1', 'multi_block']).scenario == 'multi_block'
    assert parse(['demo', '--headless']).scenario is None  # the file's, else pick_lift
    assert parse(['demo', '--headless', 'industrial_arm']).scenario == 'industrial_arm'


@pytest.mark.parametrize('verb, extra', [
    ('run', []), ('demo', ['--headless']), ('rviz', []), ('snapshot', ['--output', 'x.png']),
    ('urdf', [])])
def test_a_file_of_another_scenario_is_refused_by_every_verb(verb, extra, tmp_path, capsys):
    from grasp_monitor.app.scenario_config import default_params_file
    params = default_params_file('pick_lift')
    argv = [verb, 'multi_block', '--params-file', str(params), *extra]
    if verb in ('run', 'demo'):
        argv += ['--output-dir', str(tmp_path)]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"grasp-monitor: error: {params} simulates 'pick_lift', not 'multi_block'; name "
        "'pick_lift' or pick another file\n")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize('option, text, expected', [
    ('--set', 'solref=[0.001, 1]', '--set solref=[0.001, 1]'),
    ('--set', 'cone=round', '--set cone=round'),
    ('--set', 'iterations=2.5', '--set iterations=2.5'),
    ('--param', 'n_cubes=3', '--param n_cubes=3'),
])
def test_a_key_value_is_named_as_written(option, text, expected):
    key, value = key_value(text)
    assert as_written(f'{option} {key}=', value) == expected


@pytest.mark.parametrize('value, expected', [
    (-1.0, '--tolerance -1'), (0.0005, '--tolerance 0.0005'), ([0.001, 1.0], '--solref 0.001 1'),
    ('elliptic', '--cone elliptic'), (50, '--iterations 50'),
])
def test_an_option_is_named_as_written(value, expected):
    assert as_written(expected.split()[0], value) == expected


def test_a_value_without_a_key_is_refused():
    for text in ('friction', '=1', 'friction='):
        with pytest.raises(argparse.ArgumentTypeError, match='expected KEY=VALUE, got'):
            key_value(text)
