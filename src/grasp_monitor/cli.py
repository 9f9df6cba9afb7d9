"""The ``grasp-monitor`` command: grasp_monitor where no ROS workspace exists."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import sys
from typing import Any, Sequence

from grasp_monitor.core.errors import ConfigError, GraspMonitorError
from grasp_monitor.core.tactile.config import PAD_FRAME_TOUCH_FUNCTIONS
from grasp_monitor.core.tactile.settings import TACTILE_SETTINGS
from grasp_monitor.sim.scene import CONES, INTEGRATORS, SOLVERS
from grasp_monitor.sim.scenes import DEFAULT_SCENARIO, SCENARIOS


def _setting(text: str) -> tuple[str, Any]:
    key, _, value = text.partition('=')
    if not key or not value:
        raise argparse.ArgumentTypeError(f'expected KEY=VALUE, got {text!r}')
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _check_inputs(scenario: str, args: argparse.Namespace) -> None:
    """Refuse a bad --set or --param, naming it as the user wrote it."""
    from grasp_monitor.sim.scene import SimSettings
    from grasp_monitor.sim.scenes import apply_settings, check_params
    apply_settings(SimSettings(), {key: (f'--set {key}={_written(value)}', value)
                                   for key, value in args.set})
    for key, value in args.param:
        try:
            check_params(scenario, {key: value})
        except ConfigError as error:
            raise ConfigError(f'--param {key}={_written(value)}: {error}') from None


def _written(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _cmd_run(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone

    from grasp_monitor.app.results_dir import new_run_dir, point_latest
    from grasp_monitor.app.scenario_config import offline_run, ScenarioConfig
    from grasp_monitor.sim.scenario_run import run_scenario
    started = datetime.now(timezone.utc)
    config = ScenarioConfig.from_file(args.params_file) if args.params_file else \
        ScenarioConfig.for_scenario(args.scenario or DEFAULT_SCENARIO)
    if args.scenario and args.scenario != config.scenario:
        raise ConfigError(f'{config.params_file} simulates {config.scenario!r}, not '
                          f'{args.scenario!r}; leave the scenario out or pick another file')
    _check_inputs(config.scenario, args)
    settings, params, setup = offline_run(config, dict(args.set), dict(args.param))
    result = run_scenario(config.scenario, args.duration, settings,
                          real_time_factor=args.real_time_factor, setup=setup,
                          continue_after_end=args.continue_after_end, **params)
    print(f'scenario        {result.scenario} {params or ""}')
    print(f'parameters      {config.params_file}')
    print(f'steps           {result.steps}')
    print(f'simulated       {result.sim_time_s:.3f} s')
    print(f'wall            {result.wall_time_s:.3f} s')
    print(f'real-time factor {result.real_time_factor:.1f}')
    print(f'diverged        {result.diverged}')
    for body, pose in result.final_objects.items():
        print(f'{body:15s} position {pose["position_m"]} m,'
              f' quaternion {pose["quaternion_wxyz"]}')
    print('events          ' + (', '.join(
        f'{e["type"]} {float(e["time_s"]):.3f} s' for e in result.events
        if e['type'] not in ('trial_start',)) or 'none'))
    print('contact force   ' + ', '.join(
        f'{pad} {force:.2f} N' for pad, force in result.peak_contact_force_n.items()) + ' (peak)')
    print(f'energy peak     {result.peak_energy_j:.4g} J at {result.peak_energy_time_s:.3f} s')
    print('criteria        ' + (', '.join(
        f'{name} {value:.3f}' for name, value in result.criteria.items()) or 'none'))
    print('total reward    ' + ('none' if result.reward is None else f'{result.reward:.3f}'))
    print(f'basis           {result.basis}')
    if result.epsilon:
        eps = result.epsilon
        print(f'epsilon ({eps["variant"]})    at grasp {eps["at_grasp"]:.4g}, peak '
              f'{eps["peak"]:.4g}, mean from the grasp {eps["mean_after_grasp"]:.4g}')
    if args.output:  # a file named by the user is written as given
        output = Path(args.output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(result.to_json(), indent=2))
    else:
        run_dir = new_run_dir(args.output_dir, started)
        output = run_dir / 'run.json'
        output.write_text(json.dumps(result.to_json(), indent=2))
        point_latest(run_dir)
    print(f'result          {output}')
    return 1 if result.diverged else 0


def _cmd_batch(args: argparse.Namespace) -> int:
    from grasp_monitor.app.batch import run_batch, Sweep
    sweep = Sweep.from_file(args.sweep)
    result = run_batch(sweep, args.output_dir, args.backend, args.jobs, args.address,
                       progress=None if args.quiet else sys.stderr)
    rate = result.ran / result.wall_time_s if result.wall_time_s > 0 else 0.0
    print(f'{len(result.rows)} trials ({result.ran} run now, {rate:.2f} trials/s on '
          f'{args.backend}); wrote {", ".join(str(f) for f in result.files)}')
    return 0


def _cmd_slip_eval(args: argparse.Namespace) -> int:
    from grasp_monitor.app.slip_eval.run import (
        check_args, QUICK_HOLD_S, QUICK_LONG_HOLDS, QUICK_TRIALS, slip_eval)
    from grasp_monitor.app.slip_eval.family import LONG_HOLD_S
    trials = QUICK_TRIALS if args.quick else args.trials
    holds = QUICK_LONG_HOLDS if args.quick else args.long_holds
    check_args(trials, args.jobs, args.noslip_iterations, args.pull, holds=holds)
    slip_eval(args.output_dir, trials, args.seed, args.jobs, args.noslip_iterations, args.pull,
              holds=holds, hold_s=QUICK_HOLD_S if args.quick else LONG_HOLD_S,
              preset=args.preset)
    return 0


def _cmd_hardware_eval(args: argparse.Namespace) -> int:
    from grasp_monitor.app.hardware_eval.run import hardware_eval, PER_KIND, QUICK_PER_KIND
    per_kind = QUICK_PER_KIND if args.quick else \
        PER_KIND if args.per_kind is None else args.per_kind
    hardware_eval(args.output_dir, per_kind, args.seed, args.jobs,
                  args.preset or ('ideal', 'typical', 'harsh'), dict(args.set))
    return 0


def _cubes(text: str) -> list[int]:
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


#: The benchmark command's physics options: option, SimSettings field, argparse keywords.
_BENCHMARK_OPTIONS = (
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


def _cmd_benchmark(args: argparse.Namespace) -> int:
    import shlex
    import time

    from grasp_monitor.sim import grasp_benchmark as benchmark
    given = {field: (_as_written(flag, getattr(args, field)), getattr(args, field))
             for flag, field, _ in _BENCHMARK_OPTIONS if getattr(args, field) is not None}
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


def _as_written(flag: str, value: Any) -> str:
    return ' '.join([flag, *(f'{v:g}' if isinstance(v, float) else str(v) for v in (
        value if isinstance(value, list) else [value]))])


def _cmd_demo(args: argparse.Namespace) -> int:
    from grasp_monitor.app.demo import DemoOptions, run_demo
    return run_demo(DemoOptions(
        scenario=args.scenario, output_dir=Path(args.output_dir), headless=args.headless,
        duration_s=args.duration, timeout_s=args.timeout, params_file=args.params_file))


def _cmd_reference(args: argparse.Namespace) -> int:
    from grasp_monitor.app.reference import blocks, write
    if args.write is None:
        print('\n\n'.join(blocks()))
    elif write(args.write):
        print(f'updated {args.write}')
    return 0


def _cmd_rviz(args: argparse.Namespace) -> int:
    from grasp_monitor.app.rviz_config import rviz_text
    from grasp_monitor.app.scene_view import SceneView
    text = rviz_text(SceneView.for_scenario(args.scenario, args.params_file))
    if args.check:
        import rclpy
        import yaml

        from grasp_monitor.app.rviz_check import check_rviz_config, check_table
        rclpy.init()
        try:
            checks = check_rviz_config(yaml.safe_load(text), namespace=args.namespace,
                                       timeout_s=args.timeout)
        finally:
            rclpy.try_shutdown()
        print(check_table(checks))
        return 0 if all(check.ok for check in checks) else 1
    if args.output is None:
        print(text, end='')
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text)
        print(f'wrote {args.output}')
    return 0


def _cmd_snapshot(args: argparse.Namespace) -> int:
    from grasp_monitor.app.snapshot import write_snapshot
    snapshot = write_snapshot(args.scenario, args.output, args.params_file, args.at)
    what = 'grasp' if args.at is None else 'snapshot'
    print(f'{what} at t = {snapshot.reading.time_s:.3f} s in {args.scenario}; '
          f'wrote {args.output}')
    return 0


def _cmd_plugins(args: argparse.Namespace) -> int:
    from grasp_monitor.core.plugins import describe_plugins
    print(describe_plugins())
    return 0


def _cmd_tactile_plot(args: argparse.Namespace) -> int:
    from grasp_monitor.sim.tactile_plot import tactile_plots
    snapshot, written = tactile_plots(
        args.output_dir, args.scenario, args.pad, args.resolution, args.touch, args.response,
        args.duration, **({} if args.dwell is None else {'dwell_s': args.dwell}))
    print(f'grasp at t = {snapshot.reading.time_s:.3f} s in {snapshot.scenario}')
    for path in written:
        print(path)
    return 0


def _cmd_urdf(args: argparse.Namespace) -> int:
    from grasp_monitor.app.scenario_config import ScenarioConfig
    from grasp_monitor.nodes.mujoco_sim_parameters import scenario_params, scene_settings
    from grasp_monitor.sim.scenes import build_scene
    from grasp_monitor.sim.urdf import mesh_cache_dir, scene_urdf
    config = ScenarioConfig.from_file(args.params_file) if args.params_file else \
        ScenarioConfig.for_scenario(args.scenario)
    if config.scenario != args.scenario:
        raise ConfigError(f'{config.params_file} simulates {config.scenario!r}, not '
                          f'{args.scenario!r}')
    sim = config.node('mujoco_sim')  # the scene the simulator builds from the same file
    scene = build_scene(args.scenario, scene_settings(sim), **scenario_params(sim))
    if args.output is None:
        sys.stdout.write(scene_urdf(scene, mesh_cache_dir(), args.gripper_only))
        return 0
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(scene_urdf(scene, output.parent / f'{output.stem}_meshes',
                                 args.gripper_only))
    print(f'wrote {output}', file=sys.stderr)
    return 0


def _scenario_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the scenario and its parameter file, as the commands that build a scene take them."""
    parser.add_argument('scenario', choices=SCENARIOS)
    parser.add_argument('--params-file', type=Path,
                        help='ROS parameter file (default: config/<scenario>.yaml)')


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog='grasp-monitor', description=__doc__)
    commands = parser.add_subparsers(dest='command', required=True)
    run = commands.add_parser(
        'run', help='simulate a scenario offline and summarise it',
        description='Simulate one trial of a scenario without ROS, configured by the same '
        'parameter file as the demo and the launch files (config/<scenario>.yaml): physics, '
        'tactile pads, monitor, force test and metrics. Prints the events, criteria and '
        'reward and writes them to <output-dir>/<UTC time>/run.json, with '
        '<output-dir>/latest pointing at the newest run.')
    run.add_argument('scenario', nargs='?', choices=SCENARIOS,
                     help=f"scenario (default: the parameter file's, else {DEFAULT_SCENARIO})")
    run.add_argument('--params-file', type=Path,
                     help='ROS parameter file (default: config/<scenario>.yaml)')
    run.add_argument('--duration', type=float,
                     help='simulated seconds at most (default: scenario)')
    run.add_argument('--continue-after-end', action='store_true',
                     help="keep simulating after the monitor's verdict (trial_end) up to the "
                     'duration (default: stop at the verdict)')
    run.add_argument('--real-time-factor', type=float, default=0.0,
                     help='pace against the wall clock; 0 = as fast as possible')
    run.add_argument('--set', type=_setting, action='append', default=[], metavar='KEY=VALUE',
                     help='physics setting, e.g. --set friction=1e8 --set cone=elliptic')
    run.add_argument('--param', type=_setting, action='append', default=[],
                     metavar='KEY=VALUE', help='scenario parameter, e.g. --param n_cubes=5')
    where = run.add_mutually_exclusive_group()
    where.add_argument('--output-dir', default='results/run',
                       help='each run writes <output-dir>/<UTC time>/run.json and points '
                       '<output-dir>/latest at it (default results/run)')
    where.add_argument('--output', type=Path, help='write the JSON result to this file instead')
    run.set_defaults(handler=_cmd_run)
    from grasp_monitor.app.batch.backends import BACKENDS, DEFAULT_BACKEND
    batch = commands.add_parser(
        'batch', help='run a sweep of trials offline over every core or a Ray cluster',
        description='Run every trial of a sweep file (a scenario, a duration, and a grid, a '
        'list or random draws of scenario parameters, physics settings and '
        '<node>.<parameter> values; README "Batch trials") as `grasp-monitor run` runs one, '
        'and write <output-dir>/results.parquet and results.csv (a row per trial: its '
        'values, events, criteria, reward, energy, epsilon) and summary.png (criteria and '
        'reward against each swept name). Trials finished in <output-dir> before are not '
        'run again.')
    batch.add_argument('sweep', type=Path, help='the sweep file (YAML)')
    batch.add_argument('--output-dir', type=Path, required=True,
                       help='where the results go; run again on it to resume')
    batch.add_argument('--backend', choices=BACKENDS, default=DEFAULT_BACKEND,
                       help=f'where trials run (default {DEFAULT_BACKEND}: local processes)')
    batch.add_argument('--jobs', type=int,
                       help='processes, or CPUs of a local Ray (default: the available cores)')
    batch.add_argument('--address',
                       help="with --backend ray: join this cluster ('auto', "
                       "'ray://host:10001') instead of starting a local Ray")
    batch.add_argument('--quiet', action='store_true', help='no progress on standard error')
    batch.set_defaults(handler=_cmd_batch)
    from grasp_monitor.app.slip_eval.family import NOSLIP_ITERATIONS
    from grasp_monitor.core.realism import PRESET_NAMES
    slip = commands.add_parser(
        'slip-eval', help='score the incipient_slip detector against simulated ground truth',
        description='Run pick_lift trials offline, half pulled past the friction of the pads '
        '(a ramped force on the object), half held (grip force, mass, friction and pull drawn '
        'per seed); tune the incipient_slip thresholds on a tuning split and score the '
        'held-out trials against the simulator: tick and trial precision, recall, F1, lead '
        'time before gross slip (2 mm), false alarms per minute of holding. Writes '
        'slip_eval.md, slip_eval.json and pr_curve.png to --output-dir (docs/slip.md).')
    size = slip.add_mutually_exclusive_group()
    size.add_argument('--trials', type=int, default=240, help='trials (default 240)')
    size.add_argument('--quick', action='store_true',
                      help='a small set (8 trials), to check the command end to end')
    slip.add_argument('--seed', type=int, default=0, help="the family's seed (default 0)")
    slip.add_argument('--noslip-iterations', type=int, default=NOSLIP_ITERATIONS,
                      help="MuJoCo's noslip iterations (default "
                      f'{NOSLIP_ITERATIONS}: Coulomb stick and slide; 0: soft friction that '
                      'creeps inside the cone)')
    slip.add_argument('--pull', type=float, default=2.5,
                      help='simulated seconds of pull after the grasp (default 2.5)')
    slip.add_argument('--long-holds', type=int, default=10,
                      help='hold trials of 60 s after the grasp, for false alarms per minute '
                      'of stable grasp (default 10; --quick: 1 of 5 s)')
    slip.add_argument('--jobs', type=int, default=1, help='processes (default 1)')
    slip.add_argument('--preset', choices=PRESET_NAMES, default='ideal',
                      help="the detectors read the pads' clouds as the tactile arrays of this "
                      'realism preset report them (docs/realism.md; default ideal: the '
                      'simulated forces)')
    slip.add_argument('--output-dir', type=Path, default=Path('results/slip_eval'),
                      help='where the table, JSON and PNG go (default results/slip_eval)')
    slip.set_defaults(handler=_cmd_slip_eval)
    hardware = commands.add_parser(
        'hardware-eval', help='score every event on what hardware gives the monitor',
        description='Run pick_lift trials offline (grasps that hold, pulls that slip, drops, '
        "slow closes, closes that never come) and feed a monitor with config/hardware.yaml's "
        'settings only tactile clouds and finger joint states, through the realism model of '
        'each preset (no ground truth, no contacts, no slip channel, the friction unknown); '
        'score each event against the simulator: precision, recall, F1, latency, false '
        'alarms per minute of holding. Writes hardware_eval.md and hardware_eval.json to '
        '--output-dir (docs/realism.md).')
    size = hardware.add_mutually_exclusive_group()
    size.add_argument('--per-kind', type=int, help='trials of each of the 5 kinds (default 24)')
    size.add_argument('--quick', action='store_true',
                      help='2 trials of each kind, to check the command end to end')
    hardware.add_argument('--seed', type=int, default=0, help="the family's seed (default 0)")
    hardware.add_argument('--preset', action='append', choices=('ideal', 'typical', 'harsh'),
                          help='a realism preset to score (repeat; default all three)')
    hardware.add_argument('--set', type=_setting, action='append', default=[],
                          metavar='NAME=VALUE', help='a grasp_monitor parameter on top of '
                          'config/hardware.yaml (repeat)')
    hardware.add_argument('--jobs', type=int, default=1, help='processes (default 1)')
    hardware.add_argument('--output-dir', type=Path, default=Path('results/hardware_eval'),
                          help='where the tables go (default results/hardware_eval)')
    hardware.set_defaults(handler=_cmd_hardware_eval)
    benchmark = commands.add_parser(
        'benchmark', help='run the physics-engine grasp benchmark (energy metric) on MuJoCo',
        description='Simulate the benchmark scenarios, score every step with the energy '
        'metric, stop a run when it fails (above 1e7 J), and write a CSV, a Markdown table '
        'and a PNG plot. Physics settings come from --preset (default benchmark: the '
        "benchmark's 1 ms step, MuJoCo's defaults for what it leaves open); an option "
        "given overrides the preset's value (docs/benchmark.md).")
    scenarios = benchmark.add_subparsers(dest='scenario', required=True)
    from grasp_monitor.sim.grasp_benchmark.presets import DEFAULT_PRESET, PRESETS
    preset_help = '; '.join(f'{p.name}: {p.summary}' for p in PRESETS.values())
    for scenario, frictions, text in (
            ('multi-block', [100.0, 1e8], 'n cubes squeezed in a row between two blocks'),
            ('industrial-arm', [1.0], 'a UR10-like arm swinging a cube in its gripper')):
        sub = scenarios.add_parser(scenario, help=text)
        if scenario == 'multi-block':
            sub.add_argument('--cubes', type=_cubes, nargs='+', default=[list(range(1, 12))],
                             metavar='N', help='cube counts: 3, 1-11 or 1,3,5 (default 1-11)')
        sub.add_argument('--friction', type=float, nargs='+', default=frictions, metavar='MU',
                         help='friction coefficients, one run set each (default: '
                         f'{" ".join(f"{f:g}" for f in frictions)})')
        sub.add_argument('--duration', type=float, default=100.0,
                         help='simulated seconds per run (default 100)')
        sub.add_argument('--jobs', type=int, default=0,
                         help='worker processes (default: the available cores)')
        sub.add_argument('--preset', default=DEFAULT_PRESET, choices=tuple(PRESETS),
                         help=f'physics settings (default {DEFAULT_PRESET}): {preset_help}')
        for flag, field, keywords in _BENCHMARK_OPTIONS:
            keywords = dict(keywords)
            keywords['help'] = (keywords.get('help', '') + " (default: the preset's)").strip()
            sub.add_argument(flag, dest=field, **keywords)
        if scenario == 'industrial-arm':
            from grasp_monitor.sim.scenes.parameters import SCENARIO_SETTINGS
            [joint] = [s for s in SCENARIO_SETTINGS['industrial_arm'] if s.name == 'cube_joint']
            sub.add_argument('--cube-joint', choices=joint.choices,
                             help=f"{joint.description} (default: the preset's)")
        sub.add_argument('--output-dir', default='results/benchmark',
                         help='where the CSV, Markdown and PNG go (default results/benchmark)')
        sub.add_argument('--quiet', action='store_true', help='no progress on standard error')
        sub.set_defaults(handler=_cmd_benchmark)
    demo = commands.add_parser(
        'demo', help='the whole graph as processes: one grasp trial, live, then the results',
        description='Start mujoco_sim, grasp_monitor, grasp_metrics, grasp_controller and the '
        'recorder as separate processes with config/<scenario>.yaml, run one trial through '
        'their services, show it live, and end with a results table, a JSON summary, the '
        'MCAP and a PNG figure in <output-dir>/<UTC time>/, with <output-dir>/latest '
        'pointing at the newest run. Exits 1 if a node failed.')
    demo.add_argument('--scenario', default=DEFAULT_SCENARIO, choices=SCENARIOS)
    demo.add_argument('--headless', action='store_true',
                      help='plain lines instead of a redrawn view (so too without a TTY)')
    demo.add_argument('--duration', type=float,
                      help='end the trial after this many simulated seconds (default: '
                      'pick_lift until the monitor ends it, other scenarios 10)')
    demo.add_argument('--timeout', type=float, default=120.0,
                      help='wall-clock limit of the trial, s (default 120)')
    demo.add_argument('--params-file', type=Path,
                      help='ROS parameter file (default: config/<scenario>.yaml)')
    demo.add_argument('--output-dir', default='results/demo',
                      help='each run writes its logs, MCAP, JSON and PNG into '
                      '<output-dir>/<UTC time>/ and points <output-dir>/latest at it '
                      '(default results/demo)')
    demo.set_defaults(handler=_cmd_demo)
    reference = commands.add_parser(
        'reference',
        help="print the README's topic, service and parameter reference, from the code")
    reference.add_argument('--write', type=Path, metavar='README',
                           help='replace the generated blocks in this file instead')
    reference.set_defaults(handler=_cmd_reference)
    rviz = commands.add_parser(
        'rviz', help="write a scenario's rviz2 config (config/rviz/<scenario>.rviz)",
        description='Generate the rviz2 config of a scenario from its scene and parameter '
        "file: fixed frame world, /tf, the robot description, the pads' tactile clouds "
        "coloured by pressure, tactile and contact markers, the monitor's events, the "
        'objects, and a camera framing the scene.')
    _scenario_arguments(rviz)
    rviz.add_argument('--output', type=Path, help='write it here (default: standard output)')
    rviz.add_argument('--check', action='store_true',
                      help="instead, check it against the running graph: each display's "
                      'topic and type, its frames resolved to world; exit 1 on a failure')
    rviz.add_argument('--namespace', default='', help="with --check: rviz2's namespace")
    rviz.add_argument('--timeout', type=float, default=20.0,
                      help='with --check: how long to wait for the messages, s (default 20)')
    rviz.set_defaults(handler=_cmd_rviz)
    snapshot = commands.add_parser(
        'snapshot', help='a PNG of the grasp as rviz would show it',
        description='Run a scenario offline to its grasp and render it with MuJoCo from '
        "its rviz config's camera: the pads' taxels coloured by pressure as rviz colours "
        "the tactile clouds, and the pads' contact forces as arrows.")
    _scenario_arguments(snapshot)
    snapshot.add_argument('--at', type=float, metavar='SECONDS',
                          help='simulated time of the picture (default: the grasp)')
    snapshot.add_argument('--output', type=Path, required=True, help='the PNG to write')
    snapshot.set_defaults(handler=_cmd_snapshot)
    plugins = commands.add_parser(
        'plugins', help='list the sensor and motor plugin types with their parameters')
    plugins.set_defaults(handler=_cmd_plugins)
    plot = commands.add_parser(
        'tactile-plot', help="PNGs of each pad's taxel layout and of its forces at the grasp")
    plot.add_argument('--scenario', default=DEFAULT_SCENARIO, choices=SCENARIOS)
    plot.add_argument('--pad', action='append', default=[],
                      help="pad body to draw, repeatable (default: the scene's pads)")
    pad = {setting.name: setting for setting in TACTILE_SETTINGS}
    plot.add_argument('--resolution', type=float, default=pad['resolution'].default,
                      help=pad['resolution'].description)
    plot.add_argument('--touch', default=pad['touch'].default,
                      choices=PAD_FRAME_TOUCH_FUNCTIONS)
    plot.add_argument('--response', default=pad['response'].default,
                      choices=pad['response'].choices)
    plot.add_argument('--duration', type=float, default=5.0,
                      help='simulated seconds to wait for the grasp')
    plot.add_argument('--dwell', type=float,
                      help='grasp when the object stayed still this long in two bodies, s '
                      '(default: long enough for the contacts to settle)')
    plot.add_argument('--output-dir', default='results/tactile', help='where the PNGs go')
    plot.set_defaults(handler=_cmd_tactile_plot)
    urdf = commands.add_parser(
        'urdf', help="write a scenario's URDF, as mujoco_sim publishes it on /robot_description",
        description='Write the URDF of the scene a scenario builds from its parameter file: '
        'a link per body named as its /tf frame, the MJCF geometry and colours, joints with '
        'limits. Mesh geoms become STL files in <output stem>_meshes/ beside the file '
        '(with no --output: in the cache, ~/.cache/grasp_monitor/meshes).')
    _scenario_arguments(urdf)
    urdf.add_argument('--gripper-only', action='store_true',
                      help='only the robot, no objects or table (what moteus_servos publishes)')
    urdf.add_argument('--output', type=Path, help='write to this file (default: standard output)')
    urdf.set_defaults(handler=_cmd_urdf)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; configuration errors exit with status 2 and the reason."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[2:] if argv is None else argv[1:])
    try:
        return args.handler(args)
    except GraspMonitorError as error:
        print(f'grasp-monitor: error: {error}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
