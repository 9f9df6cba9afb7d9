"""``grasp-monitor run``: one trial of a scenario offline, summarised."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from grasp_monitor.app.verb.arguments import add_scenario, as_written, key_value, \
    scenario_config
from grasp_monitor.core.errors import ConfigError

HELP = 'simulate a scenario offline and summarise it'
DESCRIPTION = (
    'Simulate one trial of a scenario without ROS, configured by the same parameter file as '
    'the demo and the launch files (config/<scenario>.yaml): physics, tactile pads, monitor, '
    'force test and metrics. Prints the events, criteria and reward and writes them to '
    '<output-dir>/<UTC time>/run.json, with <output-dir>/latest pointing at the newest run.')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the scenario, its parameter file, ``--set``, ``--param`` and where to write."""
    add_scenario(parser, optional=True)
    parser.add_argument('--duration', type=float,
                        help='simulated seconds at most (default: scenario)')
    parser.add_argument('--continue-after-end', action='store_true',
                        help="keep simulating after the monitor's verdict (trial_end) up to the "
                        'duration (default: stop at the verdict)')
    parser.add_argument('--real-time-factor', type=float, default=0.0,
                        help='pace against the wall clock; 0 = as fast as possible')
    parser.add_argument('--set', type=key_value, action='append', default=[],
                        metavar='KEY=VALUE',
                        help='physics setting, e.g. --set friction=1e8 --set cone=elliptic')
    parser.add_argument('--param', type=key_value, action='append', default=[],
                        metavar='KEY=VALUE', help='scenario parameter, e.g. --param n_cubes=5')
    where = parser.add_mutually_exclusive_group()
    where.add_argument('--output-dir', default='results/run',
                       help='each run writes <output-dir>/<UTC time>/run.json and points '
                       '<output-dir>/latest at it (default results/run)')
    where.add_argument('--output', type=Path, help='write the JSON result to this file instead')


def _check_inputs(scenario: str, args: argparse.Namespace) -> None:
    """Refuse a bad --set or --param, naming it as the user wrote it."""
    from grasp_monitor.sim.scene import SimSettings
    from grasp_monitor.sim.scenes import apply_settings, check_params
    apply_settings(SimSettings(), {key: (as_written(f'--set {key}=', value), value)
                                   for key, value in args.set})
    for key, value in args.param:
        try:
            check_params(scenario, {key: value})
        except ConfigError as error:
            raise ConfigError(f'{as_written(f"--param {key}=", value)}: {error}') from None


def run(args: argparse.Namespace) -> int:
    """Run the trial, print its summary, write its JSON; 1 if it diverged."""
    from datetime import datetime, timezone

    from grasp_monitor.app.results_dir import new_run_dir, point_latest
    from grasp_monitor.app.scenario_config import offline_run
    from grasp_monitor.sim.scenario_run import run_scenario
    started = datetime.now(timezone.utc)
    config = scenario_config(args)
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
