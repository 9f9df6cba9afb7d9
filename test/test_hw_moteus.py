"""The moteus backend through the real moteus library, over a transport double.

Frames are encoded and parsed by ``moteus`` itself; the double decodes them with its own
reading of the register protocol and simulates each controller. Most tests run cycles by
hand on a fake clock; the threaded tests bound counts, never tight timings.
"""

import asyncio
import math
import time

from common import run_fresh_python
from grasp_monitor.core.errors import CommandError, ConfigError, GraspMonitorError, HardwareError
from grasp_monitor.core.servo import ServoCommand, ServoObservation
from grasp_monitor.core.servo.backend import ServoBackend
from grasp_monitor.hardware.moteus import (
    make_transport, MoteusConfig, MoteusServos, routed_transport, ServoFault)
from grasp_monitor.hardware.moteus_double import (
    decode_frame, DoubleConfig, encode_reply, F32, INT16, INT8, pad_to_can_fd, ProtocolError,
    TransportDouble)
import moteus
import numpy as np
import pytest

TWO_PI = 2 * math.pi
JOINTS = ('left', 'right')
IDS = (11, 12)
QUERY = [(0x000, INT8), (0x001, F32), (0x002, F32), (0x003, F32), (0x00d, INT16),
         (0x00e, INT16), (0x00f, INT8)]


class FakeClock:
    """A clock tests move by hand, s."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def rig(latency_s=0.0, double=None, **overrides):
    """Return (servos, double, clock) on a fake clock, two joints on ids 11 and 12."""
    clock = FakeClock()
    double = TransportDouble(DoubleConfig(ids=IDS, **(double or {})), latency_s, clock)
    # The reply timeout is wall time (asyncio), not the fake clock: one period (5 ms) is
    # missed on a loaded machine, and a missed cycle sends queries the test did not expect.
    config = MoteusConfig(**({'joints': JOINTS, 'ids': IDS, 'reply_timeout_s': 1.0} | overrides))
    return MoteusServos(config, transport=moteus.Transport(double), clock=clock), double, clock


async def cycles(servos, clock, n, dt_s=0.005):
    """Run ``n`` cycles ``dt_s`` apart; return the last observation."""
    for _ in range(n):
        clock.now += dt_s
        observation = await servos.cycle()
    return observation


def command(position=(0.5, -0.25), velocity=(0.0, 0.0), feedforward=(0.0, 0.0),
            kp_scale=(1.0, 1.0), kd_scale=(1.0, 1.0), maximum_torque=(1.0, 1.0)):
    return ServoCommand(position, velocity, feedforward, kp_scale, kd_scale, maximum_torque)


def last_written(double, servo_id):
    return double.frames(servo_id)[-1].written()


def test_decoder_reads_the_protocol_reference_example():
    # moteus reference A.3: mode 10; int16 position 96, velocity 288, torque -176; reads.
    subframes = decode_frame(bytes.fromhex('01000a07206000200150ff140400130d'))
    writes = {s.name: s.value for s in subframes if s.kind == 'write'}
    assert writes == pytest.approx({'mode': 10, 'command_position': 96 * 0.0001,
                                    'command_velocity': 288 * 0.00025,
                                    'command_feedforward_torque': -176 * 0.01})
    reads = [(s.register, s.resolution) for s in subframes if s.kind == 'read']
    assert reads == [(0, INT16), (1, INT16), (2, INT16), (3, INT16),
                     (0x00d, INT8), (0x00e, INT8), (0x00f, INT8)]


def test_replies_use_the_requested_resolution_as_the_library_parses_them():
    data = pad_to_can_fd(encode_reply([(0x00d, INT16, 23.46), (0x00e, INT8, 31.4),
                                       (0x001, F32, 0.125), (0x002, INT16, math.nan)]))
    # 4 + 3 + 6 + 4 bytes of subframes, padded with NOPs to the 20-byte CAN-FD length.
    assert len(data) == 20 and data.endswith(b'\x50\x50\x50')
    values = moteus.parse_registers(data).response
    assert values[moteus.Register.VOLTAGE] == pytest.approx(23.5)      # 0.1 V steps
    assert values[moteus.Register.TEMPERATURE] == 31.0                   # 1 °C steps
    assert values[moteus.Register.POSITION] == 0.125
    assert math.isnan(values[moteus.Register.VELOCITY])


def test_decoder_refuses_what_it_does_not_speak():
    with pytest.raises(ProtocolError) as error:
        decode_frame(bytes([0x40, 0x01, 0x00]))
    assert str(error.value) == 'unsupported subframe opcode 0x40 at byte 0'


def test_first_cycle_only_queries_then_commands_reach_the_frames_in_revolutions():
    servos, double, clock = rig()

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command(position=(0.5, math.nan), velocity=(1.0, -2.0),
                                   feedforward=(0.2, -0.3), kp_scale=(0.5, 0.0),
                                   kd_scale=(0.25, 1.0), maximum_torque=(0.8, 0.6)))
        return await cycles(servos, clock, 1)

    observation = asyncio.run(scenario())
    first = double.frames(11)[0]
    assert first.writes == () and first.reply_required
    assert [(r.register, r.resolution) for r in first.reads] == QUERY
    frame = double.frames(11)[-1]
    assert all(w.resolution == F32 for w in frame.writes[1:])
    assert frame.written() == pytest.approx({
        'mode': 10, 'command_position': 0.5 / TWO_PI, 'command_velocity': 1.0 / TWO_PI,
        'command_feedforward_torque': 0.2, 'command_kp_scale': 0.5,
        'command_kd_scale': 0.25, 'command_maximum_torque': 0.8})
    right = last_written(double, 12)
    assert math.isnan(right.pop('command_position'))
    assert right == pytest.approx({
        'mode': 10, 'command_velocity': -2.0 / TWO_PI, 'command_feedforward_torque': -0.3,
        'command_kp_scale': 0.0, 'command_kd_scale': 1.0, 'command_maximum_torque': 0.6})
    assert observation.commanding and observation.mode.tolist() == [10, 10]


def test_query_replies_become_observations_in_radians():
    servos, double, clock = rig()
    double.set_state(11, 0.25, -0.5)
    double.set_state(12, -1.5, 0.125)
    observation = asyncio.run(cycles(servos, clock, 1))
    assert observation.position == pytest.approx([0.25 * TWO_PI, -1.5 * TWO_PI])
    assert observation.velocity == pytest.approx([-0.5 * TWO_PI, 0.125 * TWO_PI])
    assert observation.torque.tolist() == [0.0, 0.0]
    assert observation.voltage_v.tolist() == [24.0, 24.0]
    assert observation.temperature_c.tolist() == [25.0, 25.0]
    assert observation.mode.tolist() == [0, 0] and observation.fault_code.tolist() == [0, 0]
    assert observation.fresh.tolist() == [True, True] and observation.time_s == 100.005
    states = observation.joint_states()
    assert states.names == JOINTS and states.position.tolist() == observation.position.tolist()
    servo = observation.servo_observation()
    assert isinstance(servo, ServoObservation) and servo.voltage_v == 24.0


def test_the_servos_offer_the_servo_backend_interface():
    servos, double, clock = rig(torque_limit_nm=0.5)
    assert isinstance(servos, ServoBackend) and servos.joints == JOINTS
    assert servos.servo_config.maximum_torque.tolist() == [0.5, 0.5]
    assert servos.command is None and servos.joint_states() is None
    assert servos.servo_observation() is None
    sent = servos.set_command(command(maximum_torque=(1.0, 0.25)))
    assert servos.command is sent and sent.maximum_torque.tolist() == [0.5, 0.25]
    observation = asyncio.run(cycles(servos, clock, 1))
    assert servos.joint_states().position.tolist() == observation.position.tolist()
    assert servos.servo_observation().voltage_v == 24.0
    servos.close()
    servos.close()


def test_a_commanded_servo_follows_the_moteus_law_and_reports_its_torque():
    servos, double, clock = rig()

    async def scenario():
        await cycles(servos, clock, 1)
        observations = []
        for _ in range(100):
            servos.set_command(command(position=(0.5, -0.25)))
            observations.append(await cycles(servos, clock, 1))
        return observations

    observations = asyncio.run(scenario())
    # The first commanded reply shows the law's torque at rest: kp 4 N·m/rev × 0.5/2π rev.
    assert observations[0].torque[0] == pytest.approx(4.0 * 0.5 / TWO_PI, rel=1e-6)
    assert observations[-1].position == pytest.approx([0.5, -0.25], abs=1e-3)
    assert observations[-1].torque == pytest.approx([0.0, 0.0], abs=1e-2)


def test_a_replayed_motion_is_reported_as_recorded_whatever_the_command_then_released():
    servos, double, clock = rig()
    # samples of a jittery recording, rev and rev/s (each reported as the f32 query gives it)
    recording = [((0.0101, -0.02), (0.0031, -0.0027)), ((0.0102, -0.02), (-0.0024, 0.0019)),
                 ((0.0102, -0.0201), (0.0008, -0.0033))]

    async def scenario():
        await cycles(servos, clock, 1)
        observations = []
        for positions, velocities in recording:
            servos.set_command(command(position=(0.5, -0.25)))  # pulls hard elsewhere
            for servo_id, position, velocity in zip(IDS, positions, velocities):
                double.replay(servo_id, position, velocity)
            observations.append(await cycles(servos, clock, 1))
        double.release(11)
        released = [await cycles(servos, clock, 1) for _ in range(100)]
        return observations, released

    observations, released = asyncio.run(scenario())
    f32 = np.float32
    for (positions, velocities), observation in zip(recording, observations):
        assert observation.position.tolist() == [float(f32(p)) * TWO_PI for p in positions]
        assert observation.velocity.tolist() == [float(f32(v)) * TWO_PI for v in velocities]
    # the law still reports the torque it would apply at the recorded position
    assert observations[-1].torque[0] == pytest.approx(4.0 * (0.5 / TWO_PI - 0.0102)
                                                       - 0.1 * 0.0008, rel=1e-5)
    # released, 11 is simulated again from the recording and goes to its target; 12 stays
    assert released[0].position[0] != observations[-1].position[0]
    assert released[-1].position[0] == pytest.approx(0.5, abs=1e-2)
    assert released[-1].position[1] == observations[-1].position[1]
    assert double.state(12).position_rev == -0.0201


def test_watchdog_stops_the_servos_when_commands_stop_and_a_command_resumes():
    servos, double, clock = rig(command_timeout_s=0.1)

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command())
        commanded = await cycles(servos, clock, 20)          # 0.1 s: still in time
        tripped = await cycles(servos, clock, 1)
        frame = last_written(double, 11)
        more = await cycles(servos, clock, 5)
        mode = double.state(11).mode
        servos.set_command(command())
        resumed = await cycles(servos, clock, 1)
        return commanded, tripped, frame, (more, mode), resumed

    commanded, tripped, frame, (more, mode), resumed = asyncio.run(scenario())
    assert commanded.commanding and not commanded.watchdog_tripped
    assert frame == {'mode': 0}
    assert tripped.watchdog_tripped and not tripped.commanding
    assert more.watchdog_tripped and mode == 0
    assert resumed.commanding and not resumed.watchdog_tripped
    assert servos.stats().watchdog_trips == 1


def test_a_neutral_watchdog_sends_the_neutral_command_where_zero_torque_sends_a_stop():
    servos, double, clock = rig(command_timeout_s=0.1, watchdog_action='neutral',
                                torque_limit_nm=(0.5, 2.0))

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command())
        await cycles(servos, clock, 22)  # past the timeout
        return await cycles(servos, clock, 1)

    tripped = asyncio.run(scenario())
    assert tripped.watchdog_tripped and tripped.commanding
    # position mode without a target, velocity 0, full scales, the joint's torque limit
    frame = last_written(double, 11)
    assert frame['mode'] == 10 and math.isnan(frame['command_position'])
    assert {key: value for key, value in frame.items() if key not in (
        'mode', 'command_position')} == pytest.approx({
            'command_velocity': 0.0, 'command_feedforward_torque': 0.0,
            'command_kp_scale': 1.0, 'command_kd_scale': 1.0, 'command_maximum_torque': 0.5})
    assert last_written(double, 12)['command_maximum_torque'] == pytest.approx(2.0)


def test_before_any_command_the_servos_are_held_stopped_without_a_watchdog_trip():
    servos, double, clock = rig()
    observation = asyncio.run(cycles(servos, clock, 3))
    assert last_written(double, 11) == {'mode': 0} and last_written(double, 12) == {'mode': 0}
    assert not observation.watchdog_tripped and servos.stats().watchdog_trips == 0


def test_limits_clamp_position_and_torque_before_anything_is_sent():
    servos, double, clock = rig(position_min_rad=(-0.2, -1.0), position_max_rad=(0.3, 1.0),
                                torque_limit_nm=(0.5, 2.0))
    sent = servos.set_command(command(position=(1.0, -0.5), feedforward=(-2.0, 1.5),
                                      maximum_torque=(3.0, 1.0)))
    assert sent.position.tolist() == [0.3, -0.5]
    assert sent.feedforward_torque.tolist() == [-0.5, 1.5]
    assert sent.maximum_torque.tolist() == [0.5, 1.0]
    assert servos.command is sent and servos.stats().clamped_commands == 1
    asyncio.run(cycles(servos, clock, 2))
    assert last_written(double, 11) == pytest.approx({
        'mode': 10, 'command_position': 0.3 / TWO_PI, 'command_velocity': 0.0,
        'command_feedforward_torque': -0.5, 'command_kp_scale': 1.0,
        'command_kd_scale': 1.0, 'command_maximum_torque': 0.5})
    servos.set_command(command(position=(0.1, math.nan), maximum_torque=(0.5, 2.0)))
    assert servos.stats().clamped_commands == 1


def test_read_only_never_writes_a_register_not_even_on_close():
    servos, double, clock = rig(read_only=True)
    with pytest.raises(CommandError) as error:
        servos.set_command(command())
    assert str(error.value) == 'the moteus backend is read-only: commands are not sent'
    assert error.value.kind == 'read_only'

    async def scenario():
        observation = await cycles(servos, clock, 10)
        await servos.aclose()
        return observation

    observation = asyncio.run(scenario())
    assert double.frame_count == 20 and double.write_frame_count == 0
    assert all(f.reply_required and f.writes == () for f in double.frames())
    assert observation.fresh.tolist() == [True, True] and not observation.commanding


def test_stop_latches_until_resume_even_while_commands_arrive():
    servos, double, clock = rig()

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command())
        before = await cycles(servos, clock, 1)
        servos.stop()
        servos.set_command(command())
        stopped = await cycles(servos, clock, 3)
        frame = last_written(double, 12)
        servos.resume()
        resumed = await cycles(servos, clock, 1)
        return before, stopped, frame, resumed

    before, stopped, frame, resumed = asyncio.run(scenario())
    assert before.commanding
    assert stopped.stopped and not stopped.commanding and frame == {'mode': 0}
    assert resumed.commanding and not resumed.stopped


def test_close_without_a_thread_sends_a_final_stop_to_every_servo():
    servos, double, clock = rig()

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command())
        return await cycles(servos, clock, 1)

    assert asyncio.run(scenario()).commanding
    with servos:
        pass
    for servo_id in IDS:
        final = double.frames(servo_id)[-1]
        assert final.written() == {'mode': 0} and not final.reply_required
        assert double.state(servo_id).mode == 0
    servos.close()
    assert double.frame_count == 6


def test_a_transport_failure_is_counted_and_reported_not_raised():
    servos, double, clock = rig()
    double.close()
    observation = asyncio.run(cycles(servos, clock, 2))
    stats = servos.stats()
    assert stats.transport_errors == 2 and stats.missed_replies == 4
    assert stats.last_error == 'ProtocolError: frame sent on a closed transport double'
    assert observation.fresh.tolist() == [False, False] and np.isnan(observation.position).all()


def test_a_fault_is_latched_and_stops_every_servo_until_cleared():
    servos, double, clock = rig()
    double.inject_fault(12, 38)

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command())
        faulted = await cycles(servos, clock, 1)
        servos.set_command(command())
        held = await cycles(servos, clock, 2)
        frames = last_written(double, 11), last_written(double, 12)
        servos.clear_faults()
        servos.set_command(command())
        cleared = await cycles(servos, clock, 1)
        return faulted, held, frames, cleared

    faulted, held, frames, cleared = asyncio.run(scenario())
    fault = ServoFault('right', 12, 'fault', 38, 'over temperature', faulted.time_s)
    assert faulted.faults == (fault,) and fault.time_s == pytest.approx(100.01)
    assert faulted.mode.tolist() == [10, 1] and faulted.fault_code.tolist() == [0, 38]
    assert fault.message == 'right (id 12): fault 38, over temperature'
    assert frames == ({'mode': 0}, {'mode': 0})
    assert held.faults == (fault,) and held.mode.tolist() == [0, 0]
    assert cleared.commanding and cleared.faults == () and servos.faults == ()


def test_an_output_limit_code_is_reported_but_is_not_a_fault():
    servos, double, clock = rig()
    double.set_limit_code(11, 102)

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command())
        return await cycles(servos, clock, 2)

    observation = asyncio.run(scenario())
    assert observation.fault_code.tolist() == [102, 0]
    assert observation.faults == () and observation.commanding


def test_the_firmware_timeout_mode_is_a_fault():
    servos, double, clock = rig(double={'firmware_timeout_s': 0.05})

    async def scenario():
        await cycles(servos, clock, 1)
        servos.set_command(command())
        await cycles(servos, clock, 1)
        servos.set_command(command())
        return await cycles(servos, clock, 1, dt_s=0.08)

    observation = asyncio.run(scenario())
    assert observation.mode.tolist() == [11, 11]
    assert [(f.joint, f.kind) for f in observation.faults] == [('left', 'timeout'),
                                                               ('right', 'timeout')]


def test_a_silent_controller_is_named_and_the_others_stay_observed():
    servos, double, clock = rig(reply_timeout_s=0.02, missed_cycles_to_fault=3)
    double.set_silent(12)

    async def scenario():
        first = await cycles(servos, clock, 2)
        return first, await cycles(servos, clock, 1)

    first, third = asyncio.run(scenario())
    assert first.fresh.tolist() == [True, False] and first.faults == ()
    assert [(f.joint, f.kind, f.description) for f in third.faults] == [
        ('right', 'no_reply', 'no reply for 3 cycles')]
    stats = servos.stats()
    assert stats.timeouts == 3 and stats.missed_replies == 3


def test_the_threaded_loop_never_outruns_its_rate_and_tracks_under_reply_latency():
    # 3 ms of reply latency in a 5 ms period. How close to 200 Hz the loop stays is a
    # benchmark figure (load-dependent); here only bounds that hold on any machine.
    double = TransportDouble(DoubleConfig(ids=IDS), latency_s=0.003)
    config = MoteusConfig(JOINTS, IDS, rate_hz=200.0, reply_timeout_s=0.5)
    servos = MoteusServos(config, transport=moteus.Transport(double))
    servos.start()
    try:
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline or servos.stats().cycles < 20:
            servos.set_command(command(position=(0.3, -0.3)))
            time.sleep(0.02)
        observation = servos.observation
        elapsed_s = time.monotonic() - deadline + 0.5
    finally:
        servos.close()
    stats = servos.stats()
    # Regulated: never more cycles than the rate allows in the time it ran.
    assert 20 <= stats.cycles <= 200.0 * elapsed_s + 10
    assert stats.rate_hz <= 230.0 and stats.timeouts == 0
    assert observation.commanding and observation.position == pytest.approx([0.3, -0.3],
                                                                            abs=0.02)
    assert not servos.running and double.frames(11)[-1].written() == {'mode': 0}
    assert not double.frames(11)[-1].reply_required


def test_a_transport_that_cannot_open_fails_start_in_the_callers_thread():
    try:
        import moteus_pi3hat  # noqa: F401
        pytest.skip('moteus_pi3hat is installed here')
    except ImportError:
        pass
    servos = MoteusServos(MoteusConfig(JOINTS, IDS, buses=(1, 2), transport='pi3hat'))
    with pytest.raises(HardwareError) as error:
        servos.start()
    assert str(error.value) == ("transport 'pi3hat' needs the moteus-pi3hat package "
                                '(Raspberry Pi only): pip install moteus-pi3hat')
    assert not servos.running
    with pytest.raises(GraspMonitorError):
        servos.start()


def test_each_controller_is_routed_to_the_device_of_its_bus():
    clock = FakeClock()
    bus_1, bus_2 = (TransportDouble(DoubleConfig(ids=(i,)), clock=clock) for i in IDS)
    config = MoteusConfig(JOINTS, IDS, buses=(1, 2), fdcanusb_paths=('/dev/a', '/dev/b'),
                          reply_timeout_s=1.0)
    servos = MoteusServos(config, transport=routed_transport(config, [bus_1, bus_2]),
                          clock=clock)
    bus_1.set_state(11, 0.5)
    bus_2.set_state(12, -0.5)
    observation = asyncio.run(cycles(servos, clock, 3))
    assert {f.destination for f in bus_1.frames()} == {11} and bus_1.frame_count == 3
    assert {f.destination for f in bus_2.frames()} == {12} and bus_2.frame_count == 3
    assert observation.position == pytest.approx([0.5 * TWO_PI, -0.5 * TWO_PI])
    with pytest.raises(ConfigError) as error:
        routed_transport(config, [bus_1])
    assert str(error.value) == 'buses go up to 2, but only 1 devices were given'


def test_a_missing_fdcanusb_is_a_hardware_error_naming_the_device():
    config = MoteusConfig(JOINTS, IDS, fdcanusb_paths=('/dev/grasp_monitor_no_such_fdcanusb',))
    with pytest.raises(HardwareError) as error:
        make_transport(config)
    assert str(error.value).startswith(
        'cannot open the fdcanusb transport: SerialException: ')
    assert '/dev/grasp_monitor_no_such_fdcanusb' in str(error.value)


@pytest.mark.parametrize('fields, message', [
    ({'transport': 'usb'}, "unknown transport 'usb'; valid: fdcanusb, socketcan, pi3hat"),
    ({'ids': (11, 11)}, 'ids must be one CAN id in [1, 126] per joint (2), unique, got [11, 11]'),
    ({'ids': (0, 127)}, 'ids must be one CAN id in [1, 126] per joint (2), unique, got [0, 127]'),
    ({'ids': (11,)}, 'ids must be one CAN id in [1, 126] per joint (2), unique, got [11]'),
    ({'transport': 'pi3hat', 'buses': (1, 6)},
     "buses for transport 'pi3hat' must be in [1, 2, 3, 4, 5], got [1, 6]"),
    ({'buses': 2}, "buses for transport 'fdcanusb' must be in [1], got [2, 2]"),
    ({'transport': 'socketcan', 'socketcan_channels': ('can0', 'can1'), 'buses': (1, 3)},
     "buses for transport 'socketcan' must be in [1, 2], got [1, 3]"),
    ({'buses': (1, 2, 1)}, 'buses must be one integer or one per joint (2), got [1, 2, 1]'),
    ({'rate_hz': 0.0}, 'rate_hz must be in (0, 2000], got 0.0'),
    ({'command_timeout_s': -1.0}, 'command_timeout_s must be >= 0 (0 disables), got -1.0'),
    ({'reply_timeout_s': 2.0}, 'reply_timeout_s must be in [0, 1] (0 = one period), got 2.0'),
    ({'missed_cycles_to_fault': 0}, 'missed_cycles_to_fault must be an integer >= 1, got 0'),
    ({'position_min_rad': 1.0, 'position_max_rad': (2.0, 0.5)},
     'position_min_rad must be < position_max_rad for every joint, got [1.0, 1.0] and '
     '[2.0, 0.5]'),
    ({'torque_limit_nm': -1.0}, 'torque_limit_nm must be finite and >= 0, got [-1.0, -1.0]'),
    ({'torque_limit_nm': (1.0, 2.0, 3.0)},
     'torque_limit_nm must be one value or one per joint (2)'),
    ({'joints': ('a', 'a')}, "joints must name at least one joint, each once, got ['a', 'a']"),
])
def test_bad_configuration_is_refused_with_what_is_valid(fields, message):
    with pytest.raises(ConfigError) as error:
        MoteusConfig(**({'joints': JOINTS, 'ids': IDS} | fields))
    assert str(error.value) == message


def test_a_command_for_the_wrong_number_of_servos_is_refused():
    servos, _, _ = rig()
    with pytest.raises(CommandError) as error:
        servos.set_command(ServoCommand.stop(3))
    assert str(error.value) == 'command is for 3 servos, the bank has 2 (left, right)'


def test_servo_config_parses_named_commands_with_the_torque_limit_as_default():
    config = MoteusConfig(JOINTS, IDS, torque_limit_nm=(0.7, 0.9))
    named = ServoCommand.from_named(config.servo_config(), ['right'], {'position': [0.2]})
    assert named.maximum_torque.tolist() == [0.7, 0.9]
    assert np.isnan(named.position[0]) and named.position[1] == 0.2


def test_double_configuration_is_validated():
    with pytest.raises(ConfigError) as error:
        DoubleConfig(ids=(1, 127))
    assert str(error.value) == 'ids must be unique CAN ids in [1, 126], got [1, 127]'


def test_hardware_backend_imports_without_ros_or_a_device():
    code = ('import sys, grasp_monitor.hardware.moteus\n'
            "leaks = sorted(m for m in sys.modules if m.split('.')[0] in ('rclpy', 'std_msgs', "
            "'sensor_msgs', 'moteus_pi3hat', 'serial.tools.list_ports'))\n"
            'assert not leaks, leaks\n')
    run_fresh_python(code)
