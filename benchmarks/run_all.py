"""Run every benchmark and write its Markdown output into ``benchmarks/RESULTS.md``.

Usage (from the repository, after ``./run.sh setup``; ``./run.sh bench`` does both)::

    .venv/bin/python benchmarks/run_all.py [--quick] [--only NAME ...] [--output PATH]

Each benchmark runs as a subprocess of the venv's interpreter with ``PYTHONPATH=src`` and
the arguments that made its published figures. Its output replaces what stands between
``<!-- bench:NAME begin -->`` and ``<!-- bench:NAME end -->`` in the results file, under a
header with the command, the date, the machine and the load average before and after;
everything outside the markers is kept byte for byte. A benchmark that fails keeps its old
block, marked stale with the error, and the command exits non-zero after running the rest.

``--quick`` runs every benchmark with small arguments as a smoke test (a couple of
minutes); its figures mean nothing, so unless ``--output`` says otherwise it writes into a
copy of the results in the temporary directory, never over the published figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, 'benchmarks')
RESULTS = os.path.join(HERE, 'RESULTS.md')
STALE = '> **Stale:**'


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """One block of RESULTS.md: a script and the arguments of its figures."""

    name: str
    script: str
    args: tuple[str, ...]
    quick: tuple[str, ...]


BENCHMARKS = (
    Benchmark('sim_1khz', 'bench_sim.py', ('--control-rate', '1000', '--seconds', '10'),
              ('--control-rate', '1000', '--seconds', '0.5')),
    Benchmark('sim_100hz', 'bench_sim.py', ('--control-rate', '100', '--seconds', '20'),
              ('--control-rate', '100', '--seconds', '1')),
    Benchmark('pipeline', 'bench_pipeline.py', ('--steps', '2000', '--rates', '100', '1000'),
              ('--steps', '500', '--rates', '100', '1000')),
    Benchmark('realism', 'bench_realism.py', ('--steps', '2000', '--repeats', '3'),
              ('--steps', '500', '--repeats', '1')),
    Benchmark('scaling', 'bench_scaling.py', ('--repeats', '2', '--seconds', '0.3'),
              ('--repeats', '1', '--seconds', '0.05', '--only', 'contacts')),
    Benchmark('tactile', 'bench_tactile.py', (), ('--samples', '10')),
    Benchmark('tactile_builtin', 'bench_tactile_builtin.py', (),
              ('--steps', '100', '--repeats', '1')),
    Benchmark('energy', 'bench_energy.py', (), ('--samples', '100000', '--repeats', '1')),
    Benchmark('epsilon', 'bench_epsilon.py', (),
              ('--contacts', '4', '8', '--grasps', '20', '--timed', '5')),
    Benchmark('benchmark_wall', 'bench_benchmark.py', ('--repeats', '7', '--clock', 'wall'),
              ('--repeats', '1', '--seconds', '0.1', '--clock', 'wall')),
    Benchmark('benchmark', 'bench_benchmark.py', ('--repeats', '5'),
              ('--repeats', '1', '--seconds', '0.1')),
    Benchmark('graph', 'bench_graph.py',
              ('--seconds', '60', '--configs', 'floor,before,base,composed,clock'),
              ('--seconds', '2', '--warmup', '1', '--configs', 'floor,base')),
    Benchmark('graph_500hz', 'bench_graph.py',
              ('--rate', '500', '--tactile-rate', '250', '--configs', 'floor,before,base',
               '--seconds', '20'),
              ('--rate', '500', '--tactile-rate', '250', '--configs', 'base',
               '--seconds', '2', '--warmup', '1')),
    Benchmark('slip_latency', 'bench_slip_latency.py',
              ('--trials', '100', '--rate', '200', '--tactile-rate', '100'),
              ('--trials', '2', '--rate', '200', '--tactile-rate', '100')),
    Benchmark('slip_latency_1khz', 'bench_slip_latency.py', ('--trials', '40'),
              ('--trials', '1')),
    Benchmark('lockstep', 'bench_lockstep.py', ('--repeats', '2'),
              ('--repeats', '1', '--rates', '1')),
    Benchmark('batch', 'bench_batch.py', ('--trials', '128', '--duration', '6'),
              ('--trials', '2', '--duration', '0.5')),
    Benchmark('sweep', 'bench_sweep.py', ('--plot', 'docs/images/sweep_pick_lift_1000.png'),
              ('--limit', '4')),
)


def markers(name: str) -> tuple[str, str]:
    """Return the begin and end marker lines of benchmark ``name``."""
    return f'<!-- bench:{name} begin -->', f'<!-- bench:{name} end -->'


def find_block(text: str, name: str) -> tuple[int, int]:
    """Return the span of the text between ``name``'s markers (after begin's line end).

    Raises:
        ValueError: if the markers are missing, repeated or out of order.
    """
    begin, end = markers(name)
    if text.count(begin) != 1 or text.count(end) != 1:
        raise ValueError(f'{name}: expected one {begin!r} and one {end!r} in the results')
    start = text.index(begin) + len(begin)
    stop = text.index(end)
    if stop < start:
        raise ValueError(f'{name}: {end!r} comes before {begin!r}')
    if text.startswith('\n', start):
        start += 1
    return start, stop


def block(text: str, name: str) -> str:
    """Return what stands between ``name``'s markers."""
    start, stop = find_block(text, name)
    return text[start:stop]


def replace_block(text: str, name: str, content: str) -> str:
    """Return ``text`` with ``content`` between ``name``'s markers, the rest unchanged."""
    start, stop = find_block(text, name)
    if content and not content.endswith('\n'):
        content += '\n'
    return text[:start] + content + text[stop:]


def mark_stale(text: str, name: str, note: str) -> str:
    """Keep ``name``'s old block, with one stale note on top saying why it was not renewed."""
    old = block(text, name)
    kept = ''.join(line for line in old.splitlines(keepends=True)
                   if not line.startswith(STALE))
    # one line, so that the next failure or success finds and replaces it
    note = ' '.join(note.split())
    return replace_block(text, name, f'{STALE} {note}\n\n' + kept.lstrip('\n'))


def command_line(benchmark: Benchmark, quick: bool) -> str:
    """Return the command as a user types it from the repository root."""
    args = benchmark.quick if quick else benchmark.args
    return ' '.join(['PYTHONPATH=src', '.venv/bin/python', f'benchmarks/{benchmark.script}',
                     *args])


def load_average() -> str:
    """Return the 1, 5 and 15 minute load averages, as ``uptime`` shows them."""
    return ' '.join(f'{x:.2f}' for x in os.getloadavg())


def machine(python: str) -> str:
    """Describe this machine and the versions ``python`` imports."""
    model = platform.processor() or platform.machine()
    memory = ''
    try:
        with open('/proc/cpuinfo') as f:
            model = next((line.split(':', 1)[1].strip() for line in f
                          if line.startswith('model name')), model)
        with open('/proc/meminfo') as f:
            kib = next(int(line.split()[1]) for line in f if line.startswith('MemTotal'))
        memory = f', {kib / 2**20:.1f} GiB'
    except (OSError, StopIteration, ValueError):
        pass
    probe = ('import importlib.metadata as m, platform\n'
             'def v(p):\n'
             '    try:\n'
             '        return m.version(p)\n'
             '    except m.PackageNotFoundError:\n'
             '        return "not installed"\n'
             'print(f"Python {platform.python_version()}, numpy {v(\'numpy\')}, '
             'numba {v(\'numba\')}, MuJoCo {v(\'mujoco\')}, rclpy {v(\'rclpy\')}")')
    versions = subprocess.run([python, '-c', probe], capture_output=True, text=True,
                              check=True).stdout.strip()
    return f'{model} ({platform.machine()}), {os.cpu_count()} cores{memory}; {versions}'


def run(benchmark: Benchmark, quick: bool, python: str, about: str) -> tuple[bool, str]:
    """Run one benchmark; return whether it succeeded and its block (or the error)."""
    args = benchmark.quick if quick else benchmark.args
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, 'src'))
    before = load_average()
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    done = subprocess.run([python, os.path.join(HERE, benchmark.script), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.monotonic() - t0
    after = load_average()
    when = started.strftime('%Y-%m-%d %H:%M UTC')
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ['no output'])[-1]
        return False, (f'the run of {when} (`{command_line(benchmark, quick)}`) failed '
                       f'with exit code {done.returncode}: {tail}')
    kind = ' **Quick smoke run: these figures are not comparable.**' if quick else ''
    header = (f'`{command_line(benchmark, quick)}`\n\n'
              f'*Generated by `benchmarks/run_all.py` on {when} in {took:.0f} s.{kind} '
              f'Machine: {about}. Load average (1, 5, 15 min) before {before}, '
              f'after {after}.*\n\n')
    return True, header + done.stdout.strip() + '\n'


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks; return non-zero if any failed."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--quick', action='store_true',
                        help='small arguments, a smoke run; writes to a temporary copy')
    parser.add_argument('--only', nargs='+', metavar='NAME',
                        choices=[b.name for b in BENCHMARKS], help='run these only')
    parser.add_argument('--output', help='results file to update (default: RESULTS.md, '
                        'or a temporary copy of it with --quick)')
    parser.add_argument('--python', default=os.path.join(ROOT, '.venv', 'bin', 'python'),
                        help='interpreter of the benchmarks (default: the venv)')
    args = parser.parse_args(argv)
    output = args.output
    if output is None:
        output = RESULTS
        if args.quick:
            output = os.path.join(tempfile.mkdtemp(prefix='grasp_monitor_bench_'),
                                  'RESULTS.md')
            shutil.copyfile(RESULTS, output)
    chosen = [b for b in BENCHMARKS if not args.only or b.name in args.only]
    # newline='': line ends stay as they are, so text outside the markers is kept byte for byte
    with open(output, encoding='utf-8', newline='') as f:
        text = f.read()
    for benchmark in chosen:  # refuse a file without markers before running anything
        find_block(text, benchmark.name)
    about = machine(args.python)
    failed = []
    for benchmark in chosen:
        print(f'{benchmark.name}: {command_line(benchmark, args.quick)}', flush=True)
        ok, result = run(benchmark, args.quick, args.python, about)
        with open(output, encoding='utf-8', newline='') as f:
            text = f.read()
        if ok:
            text = replace_block(text, benchmark.name, result)
        else:
            failed.append(benchmark.name)
            text = mark_stale(text, benchmark.name, result)
            print(f'  failed: {result}', file=sys.stderr, flush=True)
        with open(output, 'w', encoding='utf-8', newline='') as f:
            f.write(text)
    print(f'wrote {output}' + (f'; failed: {" ".join(failed)}' if failed else ''))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
