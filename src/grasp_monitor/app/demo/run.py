"""``grasp-monitor demo``: start the graph, run one trial through its services, report."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
import importlib.util
import json
import os
from pathlib import Path
import signal
import sys
import time
from typing import Callable, TextIO

from grasp_monitor.app.demo.live_view import LiveView
from grasp_monitor.app.demo.options import DemoOptions
from grasp_monitor.app.demo.plan import GraphPlan
from grasp_monitor.app.demo.processes import ProcessGroup
from grasp_monitor.app.demo.report import (
    DemoResult, plot_summary, results_table, status_lines, TopicCount, write_json)
from grasp_monitor.app.demo.series import series_from_recording
from grasp_monitor.app.demo.watcher import DemoError, Watched, Watcher
from grasp_monitor.app.results_dir import new_run_dir, point_latest
from grasp_monitor.app.scenario_config import default_params_file, ScenarioConfig
from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics.criteria import CRITERIA
from grasp_monitor.core.quality import epsilon_summary
from grasp_monitor.recording import message_counts


#: The recorder node (branch ``record``): parameter ``path``, MCAP finished on SIGINT.
RECORDER = 'recorder'


#: Topics of the monitor and the metrics the demo counts against the recording.
COUNTED_TOPICS = ('/grasp_monitor/events', '/grasp_monitor/verdicts', '/grasp_metrics/energy',
                  '/grasp_metrics/reward', '/grasp_metrics/epsilon')


#: Simulated seconds a monitoring trial (a scenario without a controller) lasts.
DEFAULT_MONITORING_S = 10.0


def demo_environment() -> dict[str, str]:
    """Return the environment of the demo's processes (and set it for this one).

    A private ``ROS_DOMAIN_ID`` unless one is set; discovery on this machine only
    unless a range is set.
    """
    os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))
    os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    env = os.environ.copy()
    env.update(PYTHONUNBUFFERED='1', RCUTILS_COLORIZED_OUTPUT='0')
    return env


def recorder_available() -> bool:
    """Whether the recorder node is installed."""
    return importlib.util.find_spec(f'grasp_monitor.nodes.{RECORDER}') is not None


def run_demo(options: DemoOptions, stream: TextIO = sys.stdout) -> int:
    """Run the demo; return 0, or 1 when a node or the recording failed (said on stderr)."""
    params_file = options.params_file or default_params_file(options.scenario)
    plan = GraphPlan.from_file(params_file)
    output = new_run_dir(options.output_dir)  # never over an earlier run
    options = replace(options, output_dir=output)
    logs = output / 'logs'
    logs.mkdir(parents=True, exist_ok=True)
    env = demo_environment()
    monitoring = not plan.has_controller
    duration_s = options.duration_s or (DEFAULT_MONITORING_S if monitoring else None)
    mode = (f'monitoring for {duration_s:g} s, no grasp controller' if monitoring
            else 'scripted pick by grasp_controller, force test after the grasp')
    view = LiveView(stream, redraw=not options.headless and stream.isatty())
    view.note(f'grasp-monitor demo: {plan.scenario} ({mode}); parameters {params_file}; '
              f'ROS_DOMAIN_ID {env["ROS_DOMAIN_ID"]}; output {output}')
    result = DemoResult(plan.scenario, mode, logs_dir=str(logs), recording_note='' if
                        recorder_available() else f'no {RECORDER} node installed')
    graph = ProcessGroup(plan.params_file, logs, env)
    watcher: Watcher | None = None
    # SIGTERM (a timeout, a CI runner) stops the nodes as Ctrl-C does
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        view.note(f'starting {", ".join(plan.nodes)}' + (
            f' and the {RECORDER}' if recorder_available() else '') + '; logs in ' + str(logs))
        # a set length ends on its own tick: the simulator pauses there by itself
        graph.start('mujoco_sim', **({'pause_at': duration_s} if duration_s else {}))
        for name in plan.nodes[1:]:
            extra = {'event_log': output / 'events.jsonl'} if name == 'grasp_monitor' else {}
            graph.start(name, use_sim_time='true', **extra)
        watcher = Watcher(plan)
        _run_trial(options, plan, graph, watcher, view, result, duration_s)
    except DemoError as error:
        result.failures.append(str(error))
    except KeyboardInterrupt:
        result.failures.append('interrupted before the trial ended')
    finally:
        view.note('stopping the nodes')
        result.failures += graph.died()
        # the recorder last, so it sees every publisher go
        nodes = [p for p in graph.processes if p.name != RECORDER]
        result.failures += graph.interrupt(nodes)
        if watcher is not None:
            watcher.close()
        if result.mcap_path and result.events:  # drawn while the nodes shut down
            try:
                series = series_from_recording(Path(result.mcap_path), plan)
                result.png_path = str(plot_summary(result, series, output / 'summary.png'))
            except ConfigError as error:
                result.failures.append(f'no figure: {error}')
        result.failures += graph.wait(nodes, options.grace_s)
        rest = [p for p in graph.processes if p.name == RECORDER]
        result.failures += graph.stop(rest, options.grace_s)
    json_path = write_json(result, output / 'summary.json')
    point_latest(output)  # whatever the result: the newest run
    view.note('done')
    print(results_table(result) + f'\nresults    {json_path}', file=stream, flush=True)
    if result.failures:
        print('grasp-monitor demo failed:\n' + '\n'.join(result.failures), file=sys.stderr)
    return 1 if result.failures or not result.counts_match() else 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _run_trial(options: DemoOptions, plan: GraphPlan, graph: ProcessGroup, watcher: Watcher,
               view: LiveView, result: DemoResult,
               duration_s: float | None) -> None:
    """Bring the graph to a paused start, record and run the trial, then pause again."""
    def alive() -> None:
        died = graph.died()
        if died:
            raise DemoError('\n'.join(died))

    deadline = time.monotonic() + options.startup_timeout_s
    for name in ('mujoco_sim/reset', 'grasp_monitor/start', 'grasp_monitor/stop') + (
            ('grasp_controller/start',) if plan.has_controller else ()):
        while not watcher.trigger[name].wait_for_service(timeout_sec=0.2):
            alive()
            if time.monotonic() > deadline:
                raise DemoError(f'service {name} did not appear within '
                                f'{options.startup_timeout_s:g} s')

    # Every input of the monitor and the metrics flows (the simulator waits for the
    # monitor's verdicts; the metrics took samples): none misses the trial's first ticks.
    def flowing(seen: Watched) -> bool:
        waits = seen.sim_status.get('lockstep') == 'True' and plan.monitor_verdicts
        return bool(seen.sim_status) and seen.metrics_samples > 0 and (
            not waits or seen.sim_status.get('lockstep_monitor') == 'True')

    if not watcher.wait(flowing, options.startup_timeout_s, alive):
        raise DemoError("the monitor and the metrics did not take the simulator's streams "
                        f'within {options.startup_timeout_s:g} s')
    # the simulator's diagnostics carry its tick count: the window's bounds
    watcher.pause(True)
    watcher.call(watcher.trigger['mujoco_sim/reset'], watcher.Trigger.Request())
    view.note('graph up; simulator paused and reset' + (
        f'; starting the {RECORDER}' if recorder_available() else ''))
    recorder = None
    mcap = options.output_dir / 'demo.mcap'
    if recorder_available():
        mcap.unlink(missing_ok=True)
        recorder = graph.start(RECORDER, path=mcap, use_sim_time='true')
        # every counted topic, the monitor's and the metrics' too: a reader that has not
        # matched its publisher when the trial starts loses the first samples
        wanted = set(plan.published_per_tick()) | set(COUNTED_TOPICS)
        if not watcher.wait(lambda seen: wanted <= watcher.subscriptions_of(RECORDER),
                            options.startup_timeout_s, alive):
            raise DemoError(f'the recorder did not subscribe to {", ".join(sorted(wanted))}')
        time.sleep(1.0)  # discovery has matched its readers with the publishers
    first_ticks = _paused_ticks(watcher, alive)
    watcher.begin_window(float(watcher.snapshot(
        lambda seen: seen.sim_status.get('sim_time_s', 0.0))))
    trial_id = watcher.call(watcher.trigger['grasp_monitor/start'],
                            watcher.Trigger.Request()).message
    if plan.has_controller:  # its script restarts when the reset's time reaches it
        watcher.call(watcher.trigger['grasp_controller/start'], watcher.Trigger.Request())
    watcher.pause(False)
    # a status from before the resume may still say paused
    running_seq = watcher.snapshot(lambda seen: seen.sim_status_seq) + 1
    view.note(f'trial {trial_id} running' + (f' for {duration_s:g} s' if duration_s else ''))
    shown = 0
    deadline = time.monotonic() + options.timeout_s
    reason = ''
    while not reason:
        alive()
        events, sim_time_s, phase, forces, energy = watcher.snapshot(lambda seen: (
            list(seen.events), seen.sim_time_s, seen.phase,
            list(seen.pad_force_n),
            seen.energy_j[-1] if seen.energy_j else None))
        for event in events[shown:]:
            view.event(event)
        shown = len(events)
        force_test = watcher.snapshot(lambda seen: seen.sim_status.get('force_test')) == 'true'
        label = 'monitoring' if not plan.has_controller else (phase or 'starting')
        view.status(status_lines(plan.scenario, label + (', force test' if force_test else ''),
                                 sim_time_s, forces, energy, events))
        if any(e.get('type') == 'trial_end' for e in events):
            reason = 'the monitor ended the trial'
        elif duration_s is not None and sim_time_s >= duration_s - 1e-9 and \
                watcher.snapshot(lambda seen: seen.sim_status_seq > running_seq
                                 and seen.sim_status.get('paused') == 'True'):
            reason = f'{duration_s:g} s simulated'
        elif time.monotonic() > deadline:
            reason = f'timeout after {options.timeout_s:g} s'
        time.sleep(0.1)
    view.note(f'trial over: {reason}')
    if duration_s is not None and not reason.startswith('the monitor'):
        # the simulator paused after publishing its last sample; the monitor may still
        # hold it: stopped before its verdict, the trial would end one sample short
        if not watcher.wait(lambda seen: seen.verdict_next_s > duration_s + 1e-9, 15.0, alive):
            view.note(f'the monitor gave no verdict on the sample at {duration_s:g} s '
                      'within 15 s; stopping the trial where it is')
    summary = json.loads(watcher.call(watcher.trigger['grasp_monitor/stop'],
                                      watcher.Trigger.Request()).message)
    result.events = summary['events']
    starts = [e for e in result.events if e['type'] == 'trial_start']
    result.trial_start_s = float(starts[0]['time_s']) if starts else 0.0
    # the reward comes with the trial's end; the criteria with the next diagnostics
    watcher.wait(lambda seen: seen.reward, 10.0, alive)
    criteria_seq = watcher.snapshot(lambda seen: seen.criteria_seq)
    watcher.wait(lambda seen: seen.criteria_seq > criteria_seq, 15.0, alive)
    watcher.pause(True)
    last_ticks = _paused_ticks(watcher, alive)
    # the reset put the first tick at time index 0: a stream of every k-th tick publishes
    # on the indices that are multiples of k (the time grid), whatever the tick counter says
    expected = {topic: (last_ticks - first_ticks) // every
                for topic, every in plan.published_per_tick().items()}
    seen = watcher.snapshot(lambda seen: (Counter(seen.counts), dict(seen.criteria),
                                          list(seen.reward), list(seen.energy_j),
                                          list(seen.energy_s), list(seen.epsilon)))
    counts, criteria, rewards, energy, energy_s, epsilon = seen
    # the status also names the trial and its samples
    result.criteria = {k: float(v) for k, v in criteria.items() if k in CRITERIA}
    result.reward = rewards[-1] if rewards else None
    result.basis = criteria.get('basis', '')
    # the trial's samples only: the metrics' samples stamped after its end (a busy machine
    # delivers the end late) are not the offline trial's
    bounds = _trial_bounds(result)
    kept = [i for i in range(len(energy)) if len(bounds) < 2
            or bounds[0] - 1e-9 <= energy_s[i] <= bounds[-1] + 1e-9]
    if kept:
        best = max(kept, key=lambda i: (energy[i], -energy_s[i]))
        result.energy_peak_j, result.energy_peak_time_s = energy[best], energy_s[best]
    result.epsilon = _epsilon(plan, result, epsilon)
    expected['/grasp_monitor/events'] = len(result.events)
    sources = {topic: f'mujoco_sim ticks / {every}' if every > 1 else 'mujoco_sim ticks'
               for topic, every in plan.published_per_tick().items()}
    sources['/grasp_monitor/events'] = "grasp_monitor's trial summary"
    for topic in ('/grasp_metrics/energy', '/grasp_metrics/reward'):
        expected[topic] = counts[topic]  # published only inside the trial, inside the window
        sources[topic] = 'the demo received'
    recorded: dict[str, int] = {}
    if recorder is not None:
        view.note(f'simulator paused after {last_ticks - first_ticks} ticks; waiting for the '
                  f'{RECORDER} to write them')
        # SIGINT drops what its reader queues still hold: wait until it says it wrote all
        watcher.wait(lambda seen: all(seen.recorded.get(t, 0) >= n for t, n in expected.items()),
                     30.0, alive)
        result.failures += graph.stop([recorder], options.grace_s)
        try:
            recorded = {('/' + t).replace('//', '/'): n for t, n in message_counts(mcap).items()}
        except Exception as error:  # a broken MCAP is a result, not a crash
            result.failures.append(f'{mcap} does not read back: {error}')
        result.mcap_path = str(mcap)
    for topic in sorted(set(expected) | set(recorded)):
        result.counts.append(TopicCount(
            topic, recorded.get(topic, 0) if recorder is not None else None,
            expected.get(topic), sources.get(topic, ''), counts.get(topic)))


def _trial_bounds(result: DemoResult) -> list[float]:
    """Return the trial's start and end times, s (fewer when it did not start or end)."""
    return [float(e['time_s']) for e in result.events if e['type'] in ('trial_start',
                                                                       'trial_end')]


def _epsilon(plan: GraphPlan, result: DemoResult,
             samples: list[tuple[float, float, float]]) -> dict:
    """Return the summary of the trial's epsilon series, as ``grasp-monitor run`` gives it.

    The metrics publish epsilon every sample, in or out of a trial: those stamped in
    the trial (its start to its end) are the offline run's.
    """
    times = _trial_bounds(result)
    if len(times) < 2 or not samples:
        return {}
    variant = ScenarioConfig.from_file(plan.params_file).node('grasp_metrics')[
        'epsilon.variant']
    column = 1 if variant == 'l1' else 2
    kept = sorted(row for row in samples if times[0] - 1e-9 <= row[0] <= times[-1] + 1e-9)
    grasp = next((float(e['time_s']) for e in result.events if e['type'] == 'grasp'), None)
    return {'variant': variant} | epsilon_summary(
        [row[0] for row in kept], [row[column] for row in kept], grasp)


def _paused_ticks(watcher: Watcher, alive: Callable[[], None]) -> int:
    """Return the simulator's tick count once two diagnostics say paused with the same count."""
    readings: list[int] = []
    seq = watcher.snapshot(lambda seen: seen.sim_status_seq)
    deadline = time.monotonic() + 15.0
    while time.monotonic() < deadline:
        if watcher.wait(lambda seen: seen.sim_status_seq > seq, 5.0, alive):
            seq, status = watcher.snapshot(lambda seen: (seen.sim_status_seq, seen.sim_status))
            if status.get('paused') == 'True':
                readings.append(int(status['ticks']))
                if len(readings) >= 2 and readings[-1] == readings[-2]:
                    return readings[-1]
    raise DemoError('the simulator did not report a paused tick count within 15 s')
