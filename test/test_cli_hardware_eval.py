"""``grasp-monitor hardware-eval`` as users run it: the quick family end to end, refusals."""

import json
import subprocess
import sys

import pytest


def hardware_eval(*args):
    return subprocess.run([sys.executable, '-m', 'grasp_monitor.cli', 'hardware-eval',
                           *map(str, args)], capture_output=True, text=True, timeout=600)


def test_quick_scores_every_event_per_preset(tmp_path):
    done = hardware_eval('--quick', '--preset', 'ideal', '--preset', 'typical',
                         '--output-dir', tmp_path)
    assert done.returncode == 0, done.stderr
    table = (tmp_path / 'hardware_eval.md').read_text()
    assert table in done.stdout
    assert '## ideal' in table and '## typical' in table and '## harsh' not in table
    summary = json.loads((tmp_path / 'hardware_eval.json').read_text())
    trials = summary['trials']
    assert len(trials) == 10 and {t['kind'] for t in trials} == {
        'hold', 'slip', 'drop', 'slow_close', 'no_close'}
    assert not any(t['diverged'] for t in trials)
    # the referee: a close that never comes times out, every other trial touches
    for trial in trials:
        assert ('contact_timeout' in trial['truth']) == (trial['kind'] == 'no_close')
        assert ('contact' in trial['truth']) == (trial['kind'] != 'no_close')
    # exact signals through the hardware path: the taxels see contact on the referee's
    # sample, the drops lose it on the referee's sample, the empty closes time out with it
    for trial in trials:
        ideal = trial['seen']['ideal']
        for event in ('contact', 'contact_timeout'):
            assert ideal.get(event) == pytest.approx(trial['truth'].get(event)), (trial, event)
        if trial['kind'] == 'drop':
            assert ideal['slip_out'] == pytest.approx(trial['truth']['slip_out'])
    both = summary['scores']['held_out'], summary['scores']['tuning']
    for scores in both:
        assert set(scores) == {'ideal', 'typical'}
        events = scores['typical']['events']
        assert set(events) == {'contact', 'contact_timeout', 'slip_out', 'grasp',
                               'incipient_slip'}
        assert all(e['tp'] + e['fn'] == e['truth'] for e in events.values())


@pytest.mark.parametrize('args, message', [
    (('--preset', 'wet'), "argument --preset: invalid choice: 'wet'"),
    (('--per-kind', '0'), '--per-kind must be at least 1, got 0'),
    (('--set', 'contact_forse=0.1'), "grasp_monitor has no parameter 'contact_forse' "
                                     "(did you mean 'contact_force'?)"),
    (('--set', 'contact_force=-1.0'), 'grasp_monitor.contact_force: -1.0 is outside'),
])
def test_bad_input_is_refused_naming_it(tmp_path, args, message):
    done = hardware_eval(*args, '--output-dir', tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (tmp_path / 'hardware_eval.md').exists()
