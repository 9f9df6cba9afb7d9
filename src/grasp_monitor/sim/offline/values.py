"""The offline pipeline's values: how it runs (``PipelineConfig``), what it measured."""

from __future__ import annotations

from dataclasses import dataclass
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.force_test import ExternalForceTest
from grasp_monitor.core.monitor import EventRecord, InputsConfig
from grasp_monitor.core.noise import NoiseConfig
from grasp_monitor.core.realism import JointRealismConfig, TactileRealismConfig

#: A pad touches when the norm of its summed taxel forces reaches this, N (the monitor's).
CONTACT_FORCE_N = 1e-3


@dataclass(frozen=True)
class PipelineConfig:
    """How the offline pipeline runs.

    Attributes:
        control_rate_hz: how often the drive and the force test are applied, Hz
            (the simulator node's ticks: ``publish_rate``).
        sample_rate_hz: how often the monitor takes a sample, Hz (0: every control
            tick); a whole number of control ticks.
        block_s: simulated time between two evaluations of tactile, energy
            and monitors, s (rounded to whole control ticks); also the longest
            delay between a monitor sample and the force test's start or stop.
            0.5 s: each evaluation has a fixed cost of about 1 ms of numpy
            calls, which at 0.1 s blocks costs as much as MuJoCo's step.
        contact_slots: contacts per pad the contact sensor reports per step;
            more are counted in ``PipelineResult.contact_overflows`` and lost.
        force_test: the external force test (None: none).
        force_on_grasp: a grasp (ACTIVATE) starts ``force_test``, as the monitor asks its
            simulator to; False: only ``force_test_start_time_s`` does (a monitor
            without a simulator asks nothing).
        force_test_body: the body the force test pulls ('' = the scene's first object).
        force_test_start_time_s: also start the force test by itself at this simulated
            time, s (0 = only on a grasp), as the simulator's ``force_test.start_time``.
        contact_force_n: a pad touches when the norm of its summed taxel forces
            reaches this, N (the monitor node's ``contact_force``).
        object_body: the body whose speed the monitor reads ('' = the scene's
            first object), as the monitor node reads ``ground_truth/<object>``.
        contacts: the monitor and metrics read the pads' contacts with the object
            (their ``contacts`` parameter set), not the taxels (an estimate).
        motor_noise: noise on the servos' feedforward torque, as the simulator
            node's ``motor_noise_*``.
        joints: joints whose positions and velocities are recorded too
            (``SensorLayout.joint_states``), as ``joint_states`` carries them.
        inputs: without ``contacts``, what the monitor listens to, as the monitor
            node's parameters make it (``MonitorInputs`` then takes the pads' clouds,
            the object's speed, ``joint_states`` and the pads' distances tick by tick,
            as the node takes the messages); None: the node's defaults for the pads.
        tactile_rate_hz: without ``contacts``, the tactile clouds' rate, Hz (the
            tactile node's ``publish_rate``; 0: the monitor's sample rate).
        tactile_realism: without ``contacts``, what the tactile arrays report
            (``realism.tactile.*``; ideal: the forces as they are).
        joint_realism: without ``contacts``, what the encoders report in
            ``joint_states`` (``realism.joints.*``).
        tactile_seed: the tactile node's ``realism.seed`` (each pad draws its own stream).
        joint_seed: the simulator node's ``realism.seed`` (the joints' stream).
    """

    control_rate_hz: float = 100.0
    sample_rate_hz: float = 0.0
    block_s: float = 0.5
    contact_slots: int = 16
    force_test: ExternalForceTest | None = ExternalForceTest()
    force_on_grasp: bool = True
    force_test_body: str = ''
    force_test_start_time_s: float = 0.0
    contact_force_n: float = CONTACT_FORCE_N
    object_body: str = ''
    contacts: bool = True
    motor_noise: NoiseConfig = NoiseConfig()
    joints: tuple[str, ...] = ()
    inputs: InputsConfig | None = None
    tactile_rate_hz: float = 0.0
    tactile_realism: TactileRealismConfig = TactileRealismConfig()
    joint_realism: JointRealismConfig = JointRealismConfig()
    tactile_seed: int = 0
    joint_seed: int = 0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.control_rate_hz) and 0 < self.control_rate_hz <= 10000):
            raise ConfigError(
                f'control_rate_hz must be in (0, 10000], got {self.control_rate_hz}')
        if not (math.isfinite(self.sample_rate_hz) and 0 <= self.sample_rate_hz
                <= self.control_rate_hz):
            raise ConfigError(f'sample_rate_hz must be in [0, control_rate_hz='
                              f'{self.control_rate_hz}], got {self.sample_rate_hz}')
        if not (math.isfinite(self.block_s) and self.block_s > 0):
            raise ConfigError(f'block_s must be finite and > 0, got {self.block_s}')
        start_s = self.force_test_start_time_s
        if not (math.isfinite(start_s) and start_s >= 0):
            raise ConfigError(f'force_test_start_time_s must be finite and >= 0, got {start_s}')
        if not 1 <= self.contact_slots <= 1024:
            raise ConfigError(f'contact_slots must be in [1, 1024], got {self.contact_slots}')
        if not (math.isfinite(self.contact_force_n) and self.contact_force_n > 0):
            raise ConfigError(
                f'contact_force_n must be finite and > 0, got {self.contact_force_n}')
        if not (math.isfinite(self.tactile_rate_hz) and self.tactile_rate_hz >= 0):
            raise ConfigError(f'tactile_rate_hz must be finite and >= 0, got '
                              f'{self.tactile_rate_hz}')
        if self.inputs is not None and self.inputs.contacts != self.contacts:
            raise ConfigError(f'inputs.contacts {self.inputs.contacts} must be contacts '
                              f'{self.contacts}')


@dataclass(frozen=True)
class PipelineResult:
    """What an offline run measured.

    Attributes:
        steps: physics steps taken.
        sim_time_s: simulated time at the end, s.
        wall_time_s: wall time of the run, s.
        diverged: whether the simulation diverged (the run stops there).
        events: every record the monitor emitted, in order.
        peak_contact_force_n: per pad, the highest norm of its summed taxel forces, N.
        peak_energy_j: the highest energy metric over objects and steps, J.
        peak_energy_time_s: its time, s.
        energy_failed: whether the energy metric exceeded its threshold.
        contact_overflows: steps in which a pad had more contacts than slots.
    """

    steps: int
    sim_time_s: float
    wall_time_s: float
    diverged: bool
    events: tuple[EventRecord, ...]
    peak_contact_force_n: tuple[float, ...]
    peak_energy_j: float
    peak_energy_time_s: float
    energy_failed: bool
    contact_overflows: int
