"""What lockstep costs: the demo's pick_lift trial in lockstep and free-running, idle and loaded.

Runs ``grasp-monitor demo --headless`` on config/pick_lift.yaml with only the simulator's
``lockstep`` (and ``real_time_factor``) changed, and reads from the demo's own log the
wall time between "trial ... running" and "trial over"; the trial's simulated length is
its trial_end event. Real-time factor = simulated / wall. Each case also says whether the
trial equals the offline run (``grasp-monitor run pick_lift``: same events at the same
times, reward within 1e-6): lockstep is what buys that under load.

    python benchmarks/bench_lockstep.py [--repeats 2] [--rates 1,0]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, 'config', 'pick_lift.yaml')
STAMP = re.compile(r'^\[\s*([0-9.]+) s\] (.*)$')


def params_file(folder: str, lockstep: bool, rate: float) -> str:
    """Write pick_lift.yaml with the simulator's lockstep and real-time factor set."""
    with open(CONFIG) as source:
        document = yaml.safe_load(source)
    sim = document['mujoco_sim']['ros__parameters']
    sim['lockstep'] = lockstep
    sim['real_time_factor'] = rate
    path = os.path.join(folder, f'pick_lift_{lockstep}_{rate:g}.yaml')
    with open(path, 'w') as out:
        yaml.safe_dump(document, out)
    return path


def trial_wall_s(log: str) -> float:
    """Return the wall seconds from "trial ... running" to "trial over" in a demo's log."""
    start = end = None
    for line in log.splitlines():
        match = STAMP.match(line)
        if not match:
            continue
        if re.match(r'trial \S+ running', match.group(2)):
            start = float(match.group(1))
        elif match.group(2).startswith('trial over'):
            end = float(match.group(1))
    if start is None or end is None:
        raise RuntimeError('no trial timing in the demo log:\n' + log[-2000:])
    return end - start


def events(summary: dict) -> list[tuple[str, float]]:
    return [(e['type'], round(float(e['time_s']), 9)) for e in summary['events']]


def run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env=os.environ | {'PYTHONPATH': os.path.join(ROOT, 'src')})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeats', type=int, default=2)
    parser.add_argument('--rates', default='1,0',
                        help='real-time factors, comma separated (0 = as fast as possible)')
    args = parser.parse_args()
    cli = [sys.executable, '-m', 'grasp_monitor.cli']
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        offline = run(cli + ['run', 'pick_lift', '--output-dir', os.path.join(folder, 'run')])
        if offline.returncode:
            raise RuntimeError(offline.stdout + offline.stderr)
        with open(os.path.join(folder, 'run', 'latest', 'run.json')) as source:
            expected = json.load(source)
        for load in (0, 2):
            for rate in (float(r) for r in args.rates.split(',')):
                for lockstep in (True, False):
                    factors, agreed = [], 0
                    for repeat in range(args.repeats):
                        loops = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
                                 for _ in range(load)]
                        try:
                            out = os.path.join(folder, f'demo_{load}_{rate:g}_{lockstep}')
                            demo = run(cli + ['demo', '--headless', '--params-file',
                                              params_file(folder, lockstep, rate),
                                              '--output-dir', out])
                        finally:
                            for loop in loops:
                                loop.kill()
                                loop.wait()
                        with open(os.path.join(out, 'latest', 'summary.json')) as source:
                            summary = json.load(source)
                        end_s = max(t for kind, t in events(summary) if kind == 'trial_end')
                        start_s = min(t for kind, t in events(summary) if kind == 'trial_start')
                        factors.append((end_s - start_s) / trial_wall_s(demo.stdout))
                        same = events(summary) == events(expected) and \
                            summary['reward'] is not None and \
                            abs(summary['reward'] - expected['reward']) <= \
                            1e-6 * abs(expected['reward'])
                        agreed += same
                    rows.append((load, rate, lockstep, statistics.median(factors),
                                 min(factors), agreed))
    print('pick_lift demo (config/pick_lift.yaml: 200 Hz ticks, hosted controller, monitor '
          f'and metrics at 100 Hz); {args.repeats} trials per case; real-time factor of '
          'the trial = simulated / wall time from its start to the monitor ending it\n')
    print('| busy loops | real_time_factor set | lockstep | real-time factor reached '
          '(median, min) | trials equal to `grasp-monitor run` |')
    print('|---|---|---|---|---|')
    for load, rate, lockstep, median, low, agreed in rows:
        print(f'| {load} | {rate:g}{" (as fast as possible)" if rate == 0 else ""} | '
              f'{"yes" if lockstep else "no"} | {median:.2f} ({low:.2f}) | '
              f'{agreed} / {args.repeats} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
