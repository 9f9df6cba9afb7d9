"""Sweep candidate settings of the grasp benchmark; the stable preset was chosen from it.

    python benchmarks/sweep_benchmark.py [--duration 100] [--cubes 1-11]
        [--friction 100 1e8] [--arm] [--candidates NAME ...] [--keep-going]
        [--output results/sweep.csv]

Runs every candidate (``CANDIDATES``: physics settings on top of MuJoCo's defaults at the
benchmark's 1 ms step, and the arm's ``cube_joint``) on every cube count and friction, and
on the arm with ``--arm``, one run after the other in this process (the real-time factors
are CPU time, so run it under ``nice`` beside other work). A candidate stops at its first
failed run unless ``--keep-going``: screens with short durations prune the field, and the
finalists are run for 100 s. Writes one CSV row per run and prints a Markdown summary per
candidate: runs held, the worst final and peak energy, the lowest real-time factor.
"""

import argparse
import csv
import dataclasses
from pathlib import Path
import sys

try:
    import grasp_monitor  # noqa: F401
except ImportError:  # a checkout that is not installed: use its src/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

# As the benchmark's worker processes: one BLAS thread, set before numpy loads it.
from grasp_monitor.core.threads import limit_to_one_thread  # noqa: E402, I100
limit_to_one_thread()

from grasp_monitor.app.verb.benchmark import cube_counts  # noqa: E402, I100
from grasp_monitor.sim.grasp_benchmark import (  # noqa: E402
    BenchmarkCase, CSV_COLUMNS, MUJOCO_DEFAULTS, run_case)

from grasp_monitor.sim.grasp_benchmark import PRESETS  # noqa: E402, I100

ELLIPTIC = {'cone': 'elliptic'}
STIFF = {'solref': (0.002, 1.0)}  # two steps: the stiffest MuJoCo resolves at 1 ms
HARD = {'solimp': (0.99, 0.9999, 0.001, 0.5, 2.0)}
HARDEST = {'solimp': (0.9999, 0.9999, 0.001, 0.5, 2.0)}  # MuJoCo's highest impedance
HAND = {'cube_joint': 'hand'}
STABLE = {**ELLIPTIC, 'impratio': 10.0, **STIFF, **HARDEST}
assert dataclasses.replace(MUJOCO_DEFAULTS, **STABLE) == PRESETS['stable'].settings
assert PRESETS['stable'].params['industrial_arm'] == HAND
#: name -> (settings on top of MuJoCo's defaults at 1 ms, the arm's generator parameters).
CANDIDATES = {
    'elliptic, noslip 10 (the best before)': ({**ELLIPTIC, 'noslip_iterations': 10}, {}),
    'elliptic, noslip 10, solref 2 ms': ({**ELLIPTIC, 'noslip_iterations': 10, **STIFF}, {}),
    'elliptic, noslip 3, solref 2 ms, hand': (
        {**ELLIPTIC, 'noslip_iterations': 3, **STIFF}, HAND),
    'elliptic, solref 2 ms': ({**ELLIPTIC, **STIFF}, {}),
    'elliptic, solref 5 ms': ({**ELLIPTIC, 'solref': (0.005, 1.0)}, {}),
    'elliptic, solref 2 ms, impratio 10': ({**ELLIPTIC, 'impratio': 10.0, **STIFF}, {}),
    'elliptic, solref 2 ms, impratio 10, hand': (
        {**ELLIPTIC, 'impratio': 10.0, **STIFF}, HAND),
    'elliptic, solref 2 ms, solimp 0.99-0.9999': ({**ELLIPTIC, **STIFF, **HARD}, {}),
    'elliptic, solref 2 ms, solimp 0.99-0.9999, impratio 10': (
        {**ELLIPTIC, 'impratio': 10.0, **STIFF, **HARD}, {}),
    'elliptic, solref 2 ms, solimp 0.99-0.9999, impratio 10, hand': (
        {**ELLIPTIC, 'impratio': 10.0, **STIFF, **HARD}, HAND),
    'stable, free cube': (STABLE, {}),
    'stable': (STABLE, HAND),
    'stable, impratio 1': ({**STABLE, 'impratio': 1.0}, HAND),
    'stable, impratio 100': ({**STABLE, 'impratio': 100.0}, HAND),
    'stable, implicitfast': ({**STABLE, 'integrator': 'implicitfast'}, HAND),
    'stable, pyramidal': ({**STABLE, 'cone': 'pyramidal'}, HAND),
    'stable, CG': ({**STABLE, 'solver': 'CG'}, HAND),
    'stable, PGS': ({**STABLE, 'solver': 'PGS'}, HAND),
}


def cases(name: str, cubes: list[int], frictions: list[float], duration_s: float,
          arm: bool) -> list[BenchmarkCase]:
    """Return the runs of one candidate: the arm first (the slowest to fail), then the rows."""
    settings, arm_params = CANDIDATES[name]
    base = dataclasses.replace(MUJOCO_DEFAULTS, **settings)
    runs = [BenchmarkCase('industrial_arm', base, duration_s=duration_s,
                          params=tuple(arm_params.items()))] if arm else []
    return runs + [BenchmarkCase('multi_block', dataclasses.replace(base, friction=mu),
                                 n_cubes=n, duration_s=duration_s)
                   for mu in frictions for n in sorted(cubes, reverse=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--duration', type=float, default=100.0, help='s per run')
    parser.add_argument('--cubes', type=cube_counts, default=list(range(1, 12)),
                        help='cube counts: 3, 1-11 or 1,3,5 (default 1-11)')
    parser.add_argument('--friction', type=float, nargs='+', default=[100.0, 1e8])
    parser.add_argument('--arm', action='store_true', help='run the industrial arm too')
    parser.add_argument('--candidates', nargs='+', default=list(CANDIDATES),
                        choices=list(CANDIDATES), metavar='NAME')
    parser.add_argument('--keep-going', action='store_true',
                        help='run every case of a candidate after a failure')
    parser.add_argument('--output', type=Path, default=Path('results/sweep.csv'))
    args = parser.parse_args()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    summary = ['| candidate | held | worst final energy (J) | worst peak energy (J) '
               '| lowest real-time factor | first failure |', '|---|---|---|---|---|---|']
    with args.output.open('w', newline='') as stream:
        writer = csv.DictWriter(stream, fieldnames=('candidate',) + CSV_COLUMNS)
        writer.writeheader()
        for name in args.candidates:
            runs = []
            for case in cases(name, args.cubes, args.friction, args.duration, args.arm):
                run = run_case(case)
                runs.append(run)
                writer.writerow({'candidate': name, **run.row()})
                stream.flush()
                print(f'{name}: {case.label} {run.result} at {run.termination_time_s:.3f} s, '
                      f'final {run.final_energy_j:.3g} J, real-time factor '
                      f'{run.real_time_factor:.1f}', file=sys.stderr, flush=True)
                if run.failed and not args.keep_going:
                    break
            held = [r for r in runs if not r.failed]
            failures = ', '.join(f'{r.case.label} at {r.termination_time_s:.2f} s'
                                 for r in runs if r.failed)
            summary.append(
                f'| {name} | {len(held)} of {len(runs)} '
                f'| {max((r.final_energy_j for r in held), default=float("nan")):.3g} '
                f'| {max((r.peak_energy_j for r in held), default=float("nan")):.3g} '
                f'| {min(r.real_time_factor for r in runs):.1f} | {failures or "–"} |')
    print('\n'.join(summary))


if __name__ == '__main__':
    main()
