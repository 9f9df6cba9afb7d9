"""Real signals through the hardware graph: the monitor fires where the offline run does.

Offline, one pick_lift trial runs (hardware-eval's pipeline); each tick's taxel forces of
both pads and the finger joints' positions and velocities pass through the ``typical``
realism (noise, offset, drift, gain, hysteresis, quantisation, dead and stuck taxels,
crosstalk, dropped frames, latency; encoder quantum, backlash, differentiated and jittery
velocities, latency), and are rounded as the messages will carry them: taxels as float32,
joints as the moteus query's float32 revolutions. A monitor configured as the node is
(``config/hardware.yaml`` as hardware-eval runs it: no object, no contacts, stillness from
``finger_joints``, a trial opened by a start) is fed exactly those: its records are the
reference.

The graph is the hardware stack over real DDS, in this process: one ``tactile_adapter``
per pad (layout ``positions``, 3 values per taxel) fed the noisy arrays on its ``taxels``
input; ``moteus_servos`` on the moteus bus double under the real ``moteus`` library, its
controllers replaying the recorded readings (``TransportDouble.replay``); the
``grasp_monitor`` node with the same settings. Every node runs on ``use_sim_time``.

Pacing (the nodes stamp with their own clocks, so the test paces the clock to make those
stamps the ticks): for each tick, the double is set to the tick's joint readings and the
test waits for a moteus cycle that began after that; then it publishes ``/clock`` at the
tick, waits until every node's clock reads it, and only then publishes the pads' arrays.
``tactile_adapter`` stamps a cloud with its clock on arrival and ``moteus_servos`` stamps
the cycle it publishes (its timer runs on the clock: one per tick) with its clock, so
both stamp the tick. The next tick waits for the clouds and joint states stamped with
this one and for the monitor's verdicts on every sample the reference took by then. A
frame the realism drops is not sent (a pad) or, for the joints, the controllers report
the last reading again, as moteus does when a reading is missed.
"""

import math
import time

from builtin_interfaces.msg import Time
from common import Observer, status_values, wait_for
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from grasp_monitor.app.hardware_eval.family import make_family
from grasp_monitor.app.hardware_eval.trial import (
    FINGERS, hardware_feed, hardware_values, trial_pipeline, trial_ticks)
from grasp_monitor.core.monitor import GraspMonitor
from grasp_monitor.core.realism import JointRealism, PRESETS, stream_seed, TactileRealism
from grasp_monitor.hardware.moteus_double import DoubleConfig, TransportDouble
from grasp_monitor.nodes import conversions
from grasp_monitor.nodes.grasp_monitor import GraspMonitorNode
from grasp_monitor.nodes.grasp_monitor_parameters import monitor_config
from grasp_monitor.nodes.moteus_servos import MoteusServosNode
from grasp_monitor.nodes.qos import EVENTS_QOS, VERDICTS_QOS
from grasp_monitor.nodes.tactile_adapter import TactileAdapterNode
import moteus
import numpy as np
import pytest
from rclpy.parameter import Parameter
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, PointCloud2
from std_msgs.msg import Float32MultiArray
from std_srvs.srv import Trigger

pytestmark = pytest.mark.graph

TWO_PI = 2 * math.pi
#: The trial: family seed 0's first (a hold), long enough to grasp (at ~0.68 s) with room
#: for the detectors to move; the realism's seed.
SEED = 1
DURATION_S = 0.8
#: CAN ids of the finger controllers.
IDS = (1, 2)


def offline_trial():
    """Run the trial offline; return its ticks as the messages carry them and the reference.

    Returns a dict: ``values`` the monitor's parameters; ``ns`` (T,) tick stamps, ns;
    ``positions`` per pad (N, 3) taxel positions, m; ``arrays`` per pad (T, N, 3)
    float32 readings and ``kept`` (T,) bool (a dropped frame is not sent); ``joint_rev``,
    ``joint_rev_s`` (T, 2) the controllers' readings, rev, rev/s; ``joint_position``,
    ``joint_velocity`` (T, 2) as moteus reports them in joint_states; ``records`` the
    reference's records as strings; ``samples`` per tick, the sample times the reference
    took once the tick was in.
    """
    values = hardware_values({'event_log': ''})
    trial = make_family(1, 0)[0]
    assert trial.kind == 'hold' and trial.seed == SEED
    pipeline, positions = trial_pipeline(trial, values)
    blocks = list(trial_ticks(pipeline, DURATION_S))
    stamps = np.concatenate([block[0] for block in blocks])
    true_position = np.concatenate([block[2] for block in blocks])
    true_velocity = np.concatenate([block[3] for block in blocks])
    forces = [np.concatenate([block[4 + i] for block in blocks]) for i in range(2)]
    period_s = 1.0 / values['rate']
    ns = np.round(stamps * 1e9).astype(np.int64)
    # consecutive ticks of one sample period: the nodes' timers run on that grid
    assert ns[0] == round(period_s * 1e9) and np.all(np.diff(ns) == round(period_s * 1e9))

    # The typical preset, seeded as hardware-eval seeds its sensors.
    tactile, joints = PRESETS['typical']
    pads = [TactileRealism(tactile, at, period_s, stream_seed(SEED, pad_name)).apply(pad)
            for pad_name, at, pad in zip(values['pads'], positions, forces)]
    encoders = JointRealism(joints, len(FINGERS), period_s, stream_seed(SEED, 'joints'))
    position, velocity, delivered = encoders.apply(true_position, true_velocity)
    assert not all(kept.all() for _, kept in pads) and not delivered.all()  # drops happen
    for k in np.flatnonzero(~delivered[1:]) + 1:  # a missed reading: the last one again
        position[k], velocity[k] = position[k - 1], velocity[k - 1]
    # As the messages carry them: float32 taxels; the moteus query's f32 revolutions.
    arrays = [readings.astype(np.float32) for readings, _ in pads]
    joint_rev, joint_rev_s = position / TWO_PI, velocity / TWO_PI
    joint_position = joint_rev.astype(np.float32).astype(float) * TWO_PI
    joint_velocity = joint_rev_s.astype(np.float32).astype(float) * TWO_PI
    stamps_s = [conversions.time_from_msg(tick_time(n)) for n in ns]

    # The reference: the node's inputs and monitor, fed exactly those (the ideal preset:
    # the noise is in the readings already), a trial opened by a start before any input.
    feed = hardware_feed(values, PRESETS['ideal'], positions, SEED)
    inputs, monitor = feed.inputs, GraspMonitor(monitor_config(values))
    assert monitor.start_trial() == []
    inputs.tare()
    records, samples = [], []
    for k, stamp in enumerate(stamps_s):
        for pad, at, array, (_, kept) in zip(values['pads'], positions, arrays, pads):
            if kept[k]:
                inputs.update_pad(pad, array[k].astype(float), stamp, at)
        inputs.update_joints(FINGERS, joint_velocity[k], stamp, joint_position[k])
        due = inputs.due()
        for sample in due:
            records += [r.as_strings() for r in monitor.update(sample).records]
        samples.append([sample.time_s for sample in due])
    return {'values': values, 'ns': ns, 'positions': positions,
            'arrays': arrays, 'kept': [kept for _, kept in pads], 'joint_rev': joint_rev,
            'joint_rev_s': joint_rev_s, 'joint_position': joint_position,
            'joint_velocity': joint_velocity, 'records': records, 'samples': samples}


def tick_time(ns):
    """Return a tick's stamp as a message carries it."""
    return Time(sec=int(ns) // 1_000_000_000, nanosec=int(ns) % 1_000_000_000)


def until(predicate, timeout_s=10.0):
    """Poll ``predicate`` briskly (a tick is a few ms); return its last value."""
    return wait_for(predicate, timeout_s, period_s=0.0005)


class HardwareGraph:
    """The adapters, moteus_servos on the double, the monitor, and the test's ends."""

    def __init__(self, ros, offline, event_log):
        values = offline['values']
        sim_time = Parameter('use_sim_time', value=True)
        self.pads = list(values['pads'])
        # one adapter per pad, named as docs/hardware.md runs them
        self.adapters = [ros.add(TactileAdapterNode(
            context=ros.context, cli_args=['--ros-args', '-r', f'__node:=tactile_{pad}'],
            parameter_overrides=[sim_time] + [
                Parameter(k, value=v) for k, v in {
                    'pad': pad, 'input_topic': f'driver/{pad}/taxels', 'layout': 'positions',
                    'positions': at.reshape(-1).tolist(), 'values_per_taxel': 3}.items()]))
            for pad, at in zip(self.pads, offline['positions'])]
        # no firmware timeout: nothing commands these controllers, they only report
        self.double = TransportDouble(DoubleConfig(ids=IDS, firmware_timeout_s=0.0))
        self.servos = ros.add(MoteusServosNode(
            transport=moteus.Transport(self.double), context=ros.context,
            parameter_overrides=[sim_time] + [Parameter(k, value=v) for k, v in {
                'joints': list(FINGERS), 'ids': list(IDS), 'command_timeout': 0.0,
                'reply_timeout': 0.5, 'rate': 500.0, 'publish_rate': values['rate']}.items()]))
        self.monitor = ros.add(GraspMonitorNode(
            context=ros.context, parameter_overrides=[sim_time] + [
                Parameter(k, value=v) for k, v in (values | {'event_log': event_log}).items()]))
        self.nodes = self.adapters + [self.servos, self.monitor]
        node = self.node = ros.client('hardware_driver')
        self.clock = node.create_publisher(Clock, '/clock', 10)
        self.drivers = [node.create_publisher(Float32MultiArray, f'driver/{pad}/taxels', 10)
                        for pad in self.pads]
        self.clouds = {pad: [] for pad in self.pads}
        for pad in self.pads:
            node.create_subscription(PointCloud2, f'tactile/{pad}', self.clouds[pad].append,
                                     1000)
        self.states, self.events, self.verdicts = [], [], []
        node.create_subscription(JointState, 'joint_states', self.states.append, 1000)
        node.create_subscription(DiagnosticStatus, 'grasp_monitor/events', self.events.append,
                                 EVENTS_QOS)
        node.create_subscription(
            DiagnosticArray, 'grasp_monitor/verdicts',
            lambda msg: self.verdicts.append(conversions.verdict_from_msg(msg)), VERDICTS_QOS)
        self.start = node.create_client(Trigger, 'grasp_monitor/start')

    def matched(self):
        """Whether every publisher reaches every subscriber the trial needs."""
        return all(pub.get_subscription_count() >= n for pub, n in (
            (self.clock, len(self.nodes)), *((driver, 1) for driver in self.drivers),
            *((adapter.cloud_pub, 2) for adapter in self.adapters),
            (self.servos.joint_pub, 2), (self.monitor.verdicts.pub, 1),
            (self.monitor.output.events_pub, 1))) and self.servos.servos.observation is not None

    def tick(self, k, offline):
        """Run tick ``k`` in lockstep; return a description of what did not come, or ''."""
        ns, stamp = int(offline['ns'][k]), tick_time(offline['ns'][k])
        # the controllers report the tick's readings, from a cycle begun after both did
        for i, servo_id in enumerate(IDS):
            self.double.replay(servo_id, offline['joint_rev'][k, i],
                               offline['joint_rev_s'][k, i])
        set_s = time.monotonic()
        if not until(lambda: self.servos.servos.observation.time_s > set_s
                     and self.servos.servos.observation.fresh.all()):
            return 'no moteus cycle answered by both controllers'
        # the clock, again until every node reads it (clock subscriptions are best effort)
        for _ in range(10):
            self.clock.publish(Clock(clock=stamp))
            if until(lambda: all(n.get_clock().now().nanoseconds == ns for n in self.nodes),
                     1.0):
                break
        else:
            return 'the clock did not reach every node'
        sent = []
        for pad, driver, array, kept in zip(self.pads, self.drivers, offline['arrays'],
                                            offline['kept']):
            if kept[k]:
                driver.publish(Float32MultiArray(data=array[k].reshape(-1).tolist()))
                sent.append(pad)
        due_ns = [round(t * 1e9) for t in offline['samples'][k]]
        done = until(lambda: self.states and self.states[-1].header.stamp == stamp and all(
            self.clouds[pad] and self.clouds[pad][-1].header.stamp == stamp for pad in sent)
            and (not due_ns or (self.verdicts
                                and round(self.verdicts[-1][0] * 1e9) >= due_ns[-1])))
        return '' if done else (f'joint_states: {len(self.states)}, clouds: '
                                f'{[len(c) for c in self.clouds.values()]}, verdicts: '
                                f'{len(self.verdicts)}')


@pytest.fixture(scope='module')
def offline():
    return offline_trial()


def test_the_hardware_graph_fires_contact_and_grasp_at_the_offline_samples(
        ros, offline, tmp_path):
    expected = [(r['type'], r['time_s']) for r in offline['records']]
    kinds = [kind for kind, _ in expected]
    assert 'contact' in kinds and 'grasp' in kinds, expected
    # Jittery: over the grasp's dwell most samples have a still finger reported faster than
    # finger_still_speed; the reported velocities alone would never let the grasp fire.
    grasp_k = round(float(dict(expected)['grasp']) * offline['values']['rate']) - 1
    dwell = round(offline['values']['grasp_dwell'] * offline['values']['rate'])
    speeds = np.abs(offline['joint_velocity'][grasp_k - dwell:grasp_k + 1]).max(axis=1)
    assert np.mean(speeds > offline['values']['finger_still_speed']) > 0.5
    graph = HardwareGraph(ros, offline, str(tmp_path / 'events.jsonl'))
    observer = Observer(ros)
    assert wait_for(graph.matched, 20.0)
    response = ros.call(graph.start, Trigger.Request())
    assert response.success and response.message == '1'

    for k in range(len(offline['ns'])):
        missing = graph.tick(k, offline)
        assert not missing, f'tick {k}: {missing}'

    # Every reading carried its tick's stamp and the values the reference was fed.
    ticks = [tick_time(n) for n in offline['ns']]
    assert [s.header.stamp for s in graph.states] == ticks
    assert all(list(s.name) == list(FINGERS) for s in graph.states)
    assert np.array([s.position for s in graph.states]).tolist() == \
        offline['joint_position'].tolist()
    assert np.array([s.velocity for s in graph.states]).tolist() == \
        offline['joint_velocity'].tolist()
    for i, pad in enumerate(graph.pads):
        kept = offline['kept'][i]
        clouds = graph.clouds[pad]
        assert [c.header.stamp for c in clouds] == [t for t, keep in zip(ticks, kept) if keep]
        readings = [conversions.tactile_cloud_from_msg(c) for c in clouds]
        assert all(np.array_equal(positions, offline['positions'][i])
                   for positions, _, _ in readings)
        assert np.array_equal(np.array([forces for _, forces, _ in readings]),
                              offline['arrays'][i][kept])
    # The monitor sampled as the reference did, and emitted the same records.
    samples = [round(t * 1e9) for per_tick in offline['samples'] for t in per_tick]
    assert [round(v[0] * 1e9) for v in graph.verdicts] == samples  # stamps: on the ns grid
    assert not any(v[3] for v in graph.verdicts)  # none stale
    assert wait_for(lambda: len(graph.events) >= len(expected))
    events = [status_values(e) for e in graph.events]
    assert [(e['type'], e['time_s']) for e in events] == expected
    assert events == offline['records']

    # Nothing refused anywhere, as the nodes report it.
    status = observer.status(': monitor', lambda s: 'grasp' in status_values(s)['fired'])
    assert status is not None
    counters = status_values(status)
    refusals = {key: value for key, value in counters.items()
                if key.startswith(('refused', 'lost', 'reset_dropped', 'old_timeline'))
                or key == 'dropped_samples'}
    assert refusals and set(refusals.values()) == {'0'}, refusals
    for pad in graph.pads:
        adapter = observer.status(f'tactile_{pad}: {pad}', lambda s: int(
            status_values(s)['clouds']) == int(offline['kept'][graph.pads.index(pad)].sum()))
        assert adapter is not None and status_values(adapter)['refused_arrays'] == '0'
    loop = observer.status('moteus_servos: loop')
    assert loop is not None and status_values(loop)['refused_commands'] == '0'
