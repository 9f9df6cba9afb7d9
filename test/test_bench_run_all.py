"""The one-command benchmark run: every script listed, every block marked, text kept."""

import importlib.util
import os
import sys

import pytest

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          'benchmarks')


def load_run_all():
    spec = importlib.util.spec_from_file_location(
        'run_all', os.path.join(BENCHMARKS, 'run_all.py'))
    module = importlib.util.module_from_spec(spec)
    sys.modules['run_all'] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


run_all = load_run_all()


def test_every_benchmark_script_is_run():
    scripts = sorted(name for name in os.listdir(BENCHMARKS)
                     if name.startswith('bench_') and name.endswith('.py'))
    assert scripts, 'no benchmark scripts found'
    assert sorted({b.script for b in run_all.BENCHMARKS}) == scripts
    names = [b.name for b in run_all.BENCHMARKS]
    assert len(names) == len(set(names))


def test_results_has_one_marker_pair_per_benchmark_in_order():
    with open(os.path.join(BENCHMARKS, 'RESULTS.md'), encoding='utf-8') as f:
        text = f.read()
    for benchmark in run_all.BENCHMARKS:
        begin, end = run_all.markers(benchmark.name)
        assert text.count(begin) == 1, begin
        assert text.count(end) == 1, end
        assert text.index(begin) < text.index(end)
        # blocks do not nest or overlap: nothing marked between a pair
        inside = run_all.block(text, benchmark.name)
        assert '<!-- bench:' not in inside, benchmark.name


TEXT = ('# Results\n\nHand-written reading, 1.5 µs  \n\ttrailing tabs\t\r\n'
        '<!-- bench:a begin -->\nold a\n<!-- bench:a end -->\n'
        'between, no newline before the next marker'
        '<!-- bench:b begin -->\n| old | b |\n<!-- bench:b end -->')


def outside(text, name):
    start, stop = run_all.find_block(text, name)
    return text[:start], text[stop:]


def test_replace_block_keeps_text_outside_the_markers_byte_for_byte():
    for name, content in (('a', 'new a\n\n| x |\n'), ('b', 'new b without newline'),
                          ('a', '')):
        replaced = run_all.replace_block(TEXT, name, content)
        assert outside(replaced, name) == outside(TEXT, name)
        assert run_all.block(replaced, name).rstrip('\n') == content.rstrip('\n')
    assert run_all.block(run_all.replace_block(TEXT, 'b', 'new b'), 'a') == 'old a\n'
    twice = run_all.replace_block(run_all.replace_block(TEXT, 'a', 'x\n'), 'a', 'old a\n')
    assert twice == TEXT


def test_a_failed_benchmark_keeps_its_block_under_one_stale_note():
    once = run_all.mark_stale(TEXT, 'b', 'the run failed:\nexit code 1')
    twice = run_all.mark_stale(once, 'b', 'failed again')
    assert outside(twice, 'b') == outside(TEXT, 'b')
    assert run_all.block(once, 'b') == (
        f'{run_all.STALE} the run failed: exit code 1\n\n| old | b |\n')
    assert run_all.block(twice, 'b') == f'{run_all.STALE} failed again\n\n| old | b |\n'
    assert run_all.block(twice, 'a') == 'old a\n'


@pytest.mark.parametrize('text', [
    'no markers at all',
    '<!-- bench:a end -->\n<!-- bench:a begin -->\n',
    '<!-- bench:a begin -->\n<!-- bench:a end -->\n<!-- bench:a end -->\n',
])
def test_missing_or_misplaced_markers_are_refused(text):
    with pytest.raises(ValueError, match='bench:a'):
        run_all.replace_block(text, 'a', 'x')


def test_the_recorded_command_is_the_one_run():
    sim = next(b for b in run_all.BENCHMARKS if b.name == 'sim_1khz')
    assert run_all.command_line(sim, quick=False) == (
        'PYTHONPATH=src .venv/bin/python benchmarks/bench_sim.py '
        '--control-rate 1000 --seconds 10')
    assert run_all.command_line(sim, quick=True).endswith(' '.join(sim.quick))


def test_a_run_renews_good_blocks_marks_failed_ones_and_exits_non_zero(tmp_path, monkeypatch):
    (tmp_path / 'bench_good.py').write_text(
        'import sys\nprint("| figure |\\n|---|\\n|", " ".join(sys.argv[1:]), "|")\n')
    (tmp_path / 'bench_bad.py').write_text('raise SystemExit("no scene here")\n')
    monkeypatch.setattr(run_all, 'HERE', str(tmp_path))
    monkeypatch.setattr(run_all, 'BENCHMARKS', (
        run_all.Benchmark('a', 'bench_good.py', ('--full',), ('--small',)),
        run_all.Benchmark('b', 'bench_bad.py', (), ())))
    results = tmp_path / 'RESULTS.md'
    results.write_bytes(TEXT.encode())
    code = run_all.main(['--output', str(results), '--python', sys.executable])
    text = results.read_bytes().decode()
    assert code == 1

    def skeleton(text):
        return run_all.replace_block(run_all.replace_block(text, 'a', ''), 'b', '')

    assert skeleton(text) == skeleton(TEXT)
    a = run_all.block(text, 'a')
    assert a.startswith('`PYTHONPATH=src .venv/bin/python benchmarks/bench_good.py --full`\n')
    assert 'Load average (1, 5, 15 min) before' in a and a.endswith('| --full |\n')
    b = run_all.block(text, 'b')
    assert b.startswith(f'{run_all.STALE} the run of ') and 'no scene here' in b
    assert b.endswith('\n\n| old | b |\n')
    # a quick run of the good one alone succeeds and leaves b's stale note
    assert run_all.main(['--output', str(results), '--python', sys.executable,
                         '--quick', '--only', 'a']) == 0
    again = results.read_bytes().decode()
    assert run_all.block(again, 'a').endswith('| --small |\n')
    assert run_all.block(again, 'b') == b
