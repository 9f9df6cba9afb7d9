"""Lockstep: the simulator steps a tick only once that tick's inputs are in."""

import math
import random
import time

from common import wait_for
from grasp_monitor.core.grasp_script import PickLiftScript
from grasp_monitor.nodes.grasp_controller import GraspControllerNode
from grasp_monitor.nodes.mujoco_sim import MujocoSimNode
from grasp_monitor.sim.backend import Simulator
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

RELIABLE = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)


def make_sim(ros, start=True, **overrides):
    params = {'publish_rate': 250.0, 'command_timeout': 0.0, 'tactile': False} | overrides
    return ros.add(MujocoSimNode(
        start=start, context=ros.context,
        parameter_overrides=[Parameter(k, value=v) for k, v in params.items()]))


def stamp_s(stamp):
    return stamp.sec + stamp.nanosec * 1e-9


def test_a_peer_that_answers_each_clock_holds_every_tick_until_its_answer(ros):
    sim = make_sim(ros, real_time_factor=0.0)  # as fast as possible: only the peer holds it
    tick_s = sim.runner.steps_per_tick * sim.sim.timestep_s
    client = ros.client()
    commands = client.create_publisher(JointState, 'servo_commands', RELIABLE)
    answered, states = [], []
    slow = random.Random(0)

    def answer(msg):
        t = stamp_s(msg.clock)
        if answered and abs(answered[-1] - t) < 1e-9:
            return  # a clock sent again while the answer travels
        if slow.random() < 0.2:
            time.sleep(0.01)  # a late answer: the simulator must wait for it
        lift = 0.05 + 0.02 * math.sin(40.0 * t)  # each tick its own target
        command = JointState(name=['lift'], position=[lift], effort=[9.0])
        command.header.stamp = msg.clock
        commands.publish(command)
        answered.append(t)

    client.create_subscription(Clock, '/clock', answer, RELIABLE)
    client.create_subscription(JointState, 'joint_states', states.append, RELIABLE)
    assert wait_for(lambda: sim.lockstep.peer, timeout_s=20.0), 'the peer never joined'
    joined = len(states)
    assert wait_for(lambda: len(states) >= joined + 300, timeout_s=60.0)
    answers = {round(t / tick_s) for t in answered}
    # every tick after the join started from an answered clock
    ticks = [round(stamp_s(s.header.stamp) / tick_s) - 1 for s in states[joined + 1:]]
    assert ticks and all(tick in answers for tick in ticks), sorted(set(ticks) - answers)[:5]
    assert sim.lockstep.peer


def test_publishers_of_unstamped_commands_do_not_hold_the_clock(ros):
    sim = make_sim(ros, real_time_factor=0.0)
    client = ros.client()
    commands = client.create_publisher(JointState, 'servo_commands', 10)
    states = []
    client.create_subscription(JointState, 'joint_states', states.append, 10)
    assert wait_for(lambda: states)
    before = sim.runner.ticks
    for _ in range(20):
        commands.publish(JointState(name=['lift'], position=[0.05], effort=[9.0]))
        time.sleep(0.01)
    assert wait_for(lambda: sim.runner.ticks > before + 500)
    assert not sim.lockstep.peer and sim.sim.servos.received is not None


def test_a_hosted_controller_commands_each_tick_as_the_script_does_offline(ros):
    sim = make_sim(ros, start=False, real_time_factor=0.0)
    controller = ros.add(GraspControllerNode(
        runner=sim.runner, context=ros.context,
        parameter_overrides=[Parameter('grip_force', value=12.0),
                             Parameter('rate', value=100.0), Parameter('hosted', value=True)]))
    client = ros.client()
    states = []
    client.create_subscription(JointState, 'joint_states', states.append, RELIABLE)
    sim.start()
    assert wait_for(lambda: len(states) >= 800, timeout_s=60.0)  # 3.2 s: into the lift

    # The same scene, stepped tick by tick with the script's command at each 10 ms.
    offline = Simulator(sim.sim.scene, command_timeout_s=0.0)
    script = PickLiftScript(grip_force_n=12.0)
    assert controller.script == script
    expected = {}
    next_s = 0.0
    for _ in range(800):
        now_s = offline.time_s
        if now_s >= next_s - 0.5 * offline.timestep_s:
            offline.set_command(script.command(now_s))
            next_s = (math.floor(now_s / 0.01 + 1e-6) + 1) * 0.01
        offline.step(sim.runner.steps_per_tick)
        expected[round(offline.time_s, 6)] = list(offline.joint_states().position)
    got = {round(stamp_s(s.header.stamp), 6): list(s.position) for s in states[:800]}
    assert got.keys() == expected.keys()
    assert got == expected  # bit for bit: no command late, none early


def test_a_refused_command_stamped_with_the_clock_holds_no_tick(ros):
    """An unknown joint, stamped with the latest /clock: refused, and lockstep never waits."""
    sim = make_sim(ros, real_time_factor=0.0)
    client = ros.client()
    commands = client.create_publisher(JointState, 'servo_commands', RELIABLE)
    clocks = []
    client.create_subscription(Clock, '/clock', clocks.append, RELIABLE)
    assert wait_for(lambda: clocks, timeout_s=20.0)
    bad = JointState(name=['no_such_joint'], position=[0.05], effort=[9.0])
    bad.header.stamp = clocks[-1].clock
    commands.publish(bad)
    assert wait_for(lambda: sim.refused['unknown_joint'] == 1, timeout_s=10.0), sim.refused
    seen = len(clocks)
    assert wait_for(lambda: len(clocks) > seen + 100, timeout_s=20.0)
    assert not sim.lockstep.peer and sim.lockstep.resends == 0
