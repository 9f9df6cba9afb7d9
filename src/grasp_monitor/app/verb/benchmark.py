"""``grasp-monitor benchmark``: the physics-engine grasp benchmark (energy metric) on MuJoCo."""

from __future__ import annotations

import argparse
from pathlib import Path
import sys

from grasp_monitor.app.verb.arguments import as_written
from grasp_monitor.sim.scene import CONES, INTEGRATORS, SOLVERS

HELP = 'run the physics-engine grasp benchmark (energy metric) on MuJoCo'
DESCRIPTION = (
    'Simulate the benchmark scenarios, score every step with the energy metric, stop a run '
    'when it fails (above 1e7 J), and write a CSV, a Markdown table and a PNG plot. Physics '
    "settings come from --preset (default benchmark: the benchmark's 1 ms step, MuJoCo's "
    "defaults for what it leaves open); an option given overrides the preset's value "
    '(docs/benchmark.md).')

#: The physics options: option, SimSettings field, argparse keywords.
OPTIONS = (
    ('--timestep', 'timestep_s', {'type': float, 'help': 'physics step, s'}),
    ('--cone', 'cone', {'choices': CONES, 'help': 'friction cone'}),
    ('--solver', 'solver', {'choices': SOLVERS, 'help': 'constraint solver'}),
    ('--iterations', 'iterations', {'type': int, 'help': 'solver iterations'}),
    ('--tolerance', 'tolerance', {'type': float, 'help': "the solver's tolerance"}),
    ('--noslip-iterations', 'noslip_iterations', {'type': int,
                                                  'help': 'noslip iterations (0 = off)'}),
    ('--noslip-tolerance', 'noslip_tolerance', {'type': float,
                                                'help': "the noslip solver's tolerance"}),
    ('--impratio', 'impratio', {'type': float,
                                'help': 'frictional to normal impedance ratio, >= 1'}),
    ('--integrator', 'integrator', {'choices': INTEGRATORS, 'help': 'integrator'}),
    ('--solref', 'solref', {'type': float, 'nargs': 2, 'metavar': ('TIMECONST', 'DAMPRATIO'),
                            'help': "the grasp contacts' softness, as MJCF's solref"}),
    ('--solimp', 'solimp', {'type': float, 'nargs': '+', 'metavar': 'X',
                            'help': "the grasp contacts' impedance, as MJCF's solimp: dmin "
                            'dmax width [midpoint power]'}),
)


def cube_counts(text: str) -> list[int]:
    """Parse ``3``, ``1-11`` or ``1,3,5`` into cube counts."""
    counts: list[int] = []
    try:
        for part in text.split(','):
            first, _, last = part.partition('-')
            counts.extend(range(int(first), int(last or first) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'expected a count, a range like 1-11 or a list like 1,3,5, got {text!r}') from None
    return counts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the benchmark's scenarios as sub-verbs, each with the preset and its options."""
    from grasp_monitor.sim.grasp_benchmark.presets import DEFAULT_PRESET, PRESETS
    from grasp_monitor.sim.scenes.parameters import SCENARIO_SETTINGS
    scenarios = parser.add_subparsers(dest='scenario', required=True)
    preset_help = '; '.join(f'{p.name}: {p.summary}' for p in PRESETS.values())
    for scenario, frictions, text in (
            ('multi-block', [100.0, 1e8], 'n cubes squeezed in a row between two blocks'),
            ('industrial-arm', [1.0], 'a UR10-like arm swinging a cube in its gripper')):
        sub = scenarios.add_parser(scenario, help=text)
        if scenario == 'multi-block':
            sub.add_argument('--cubes', type=cube_counts, nargs='+',
                             default=[list(range(1, 12))], metavar='N',
                             help='cube counts: 3, 1-11 or 1,3,5 (default 1-11)')
        sub.add_argument('--friction', type=float, nargs='+', default=frictions, metavar='MU',
                         help='friction coefficients, one run set each (default: '
                         f'{" ".join(f"{f:g}" for f in frictions)})')
        sub.add_argument('--duration', type=float, default=100.0,
                         help='simulated seconds per run (default 100)')
        sub.add_argument('--jobs', type=int, default=0,
                         help='worker processes (default: the available cores)')
        sub.add_argument('--preset', default=DEFAULT_PRESET, choices=tuple(PRESETS),
                         help=f'physics settings (default {DEFAULT_PRESET}): {preset_help}')
        for flag, field, keywords in OPTIONS:
            keywords = dict(keywords)
            keywords['help'] = (keywords.get('help', '') + " (default: the preset's)").strip()
            sub.add_argument(flag, dest=field, **keywords)
        if scenario == 'industrial-arm':
            [joint] = [s for s in SCENARIO_SETTINGS['industrial_arm'] if s.name == 'cube_joint']
            sub.add_argument('--cube-joint', choices=joint.choices,
                             help=f"{joint.description} (default: the preset's)")
        sub.add_argument('--output-dir', default='results/benchmark',
                         help='where the CSV, Markdown and PNG go (default results/benchmark)')
        sub.add_argument('--quiet', action='store_true', help='no progress on standard error')


def run(args: argparse.Namespace) -> int:
    """Run every case of the scenario; write the CSV, Markdown and PNG; print the table."""
    import shlex
    import time

    from grasp_monitor.sim import grasp_benchmark as benchmark
    given = {field: (as_written(flag, getattr(args, field)), getattr(args, field))
             for flag, field, _ in OPTIONS if getattr(args, field) is not None}
    settings = benchmark.preset_settings(args.preset, given)
    name = benchmark.SCENARIOS[args.scenario]
    params = dict(benchmark.PRESETS[args.preset].scene_params(name))
    if getattr(args, 'cube_joint', None) is not None:
        params['cube_joint'] = args.cube_joint
    case = {'duration_s': args.duration, 'params': tuple(params.items())}
    if args.scenario == 'multi-block':
        cubes = list(dict.fromkeys(n for group in args.cubes for n in group))
        cases = benchmark.multi_block_cases(cubes, args.friction, settings, **case)
    else:
        cases = benchmark.industrial_arm_cases(args.friction, settings, **case)
    jobs = args.jobs or benchmark.available_cores()
    text = benchmark.settings_text(settings, case['params'])
    print(f'{len(cases)} runs of {args.duration:g} s on {min(jobs, len(cases))} processes; '
          f'preset {args.preset}: {text}', file=sys.stderr)
    start = time.perf_counter()
    runs = benchmark.run_benchmark(cases, jobs, progress=not args.quiet)
    wall_s = time.perf_counter() - start
    output = Path(args.output_dir)
    command = shlex.join(['grasp-monitor', 'benchmark', *args.argv])
    files = [
        benchmark.write_csv(runs, output / f'{name}.csv'),
        benchmark.write_markdown(runs, output / f'{name}.md', command, wall_s),
        benchmark.plot_energy(runs, output / f'{name}.png',
                              title=f'{name}, preset {args.preset}: {text}'),
    ]
    print(benchmark.markdown_table(runs))
    print(f'wall time {wall_s:.1f} s; wrote {", ".join(str(f) for f in files)}')
    return 0
